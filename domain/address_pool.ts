// Deposit addresses are derived ahead of need (one BIP32 child and one QR image each) by a background
// job, so creating a pay-in only claims a row. Live and sandbox use different BIP44 accounts.
import * as pool from "../db/deposit_addresses.ts";
import { createDeriver, type TronDeriver } from "../rails/tron/hd.ts";
import { qrPngDataUrl } from "../rails/tron/qr.ts";
import type { Deps } from "./deps.ts";

export const ACCOUNT_INDEX = { live: 0, sandbox: 1 } as const;
export const POOL_TARGET = 200;
/** Late funds are still credited (as a deposit) this long after a pay-in expires. */
export const WATCH_AFTER_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000;

const derivers = new Map<string, TronDeriver>();

function deriverFor(mnemonic: string, account: number): TronDeriver {
  const key = `${account}:${mnemonic}`;
  let deriver = derivers.get(key);
  if (!deriver) derivers.set(key, deriver = createDeriver(mnemonic, account));
  return deriver;
}

function mnemonicOf(deps: Pick<Deps, "config">): string {
  const mnemonic = deps.config.tron.mnemonic;
  if (!mnemonic) throw new Error("TRON mnemonic not loaded: the runtime must provide one");
  return mnemonic;
}

/** Tops the pool up to `target` free addresses; safe when several processes run it at once. */
export async function fillAddressPool(
  deps: Pick<Deps, "db" | "config">,
  input: { isSandbox: boolean; target?: number; batch?: number },
): Promise<number> {
  const target = input.target ?? POOL_TARGET;
  const { free, nextIndex } = await pool.countFree(deps.db, input.isSandbox);
  const missing = Math.min(target - free, input.batch ?? 50);
  if (missing <= 0) return 0;
  const account = input.isSandbox ? ACCOUNT_INDEX.sandbox : ACCOUNT_INDEX.live;
  const deriver = deriverFor(mnemonicOf(deps), account);
  const rows = [];
  for (let index = nextIndex; index < nextIndex + missing; index++) {
    const derived = deriver.derive(index);
    rows.push({
      address: derived.address,
      addressHex: derived.addressHex,
      isSandbox: input.isSandbox,
      accountIndex: account,
      index,
      qrPng: await qrPngDataUrl(derived.address),
    });
  }
  return await pool.insertAddresses(deps.db, rows);
}

/** Claims a fresh address for a pay-in, deriving one on the spot only when the pool ran dry. */
export async function claimDepositAddress(
  deps: Pick<Deps, "db" | "config" | "clock">,
  input: { isSandbox: boolean; payinId: string; expiresAt: Date },
): Promise<{ address: string; qrPng: string }> {
  const watchUntil = new Date(input.expiresAt.getTime() + WATCH_AFTER_EXPIRY_MS);
  for (let attempt = 0; attempt < 5; attempt++) {
    const claimed = await pool.claimFree(deps.db, { ...input, watchUntil, now: deps.clock.now() });
    if (claimed) return { address: claimed.address, qrPng: claimed.qr_png };
    await fillAddressPool(deps, {
      isSandbox: input.isSandbox,
      target: 1 + attempt * 4,
      batch: 1 + attempt * 4,
    });
  }
  throw new Error("could not claim a deposit address");
}
