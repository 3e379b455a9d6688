// Deposit addresses are derived ahead of need by a refill job, so creating a pay-in usually only claims a
// row. Each deriver (refill or request) first reserves a range of indexes with one atomic UPDATE of the
// account's counter, so none races another for an index. The refill is asked for on the queue as soon as
// the pool runs low; a request that finds the pool empty derives its own address from a reserved index
// (a public derivation and a QR drawing, well under a millisecond), so a burst never fails.
// Live and sandbox use different BIP44 accounts.
import * as pool from "../db/deposit_addresses.ts";
import { createAddressDeriver, type TronAddressDeriver } from "../rails/tron/hd.ts";
import { qrPngDataUrlSync } from "../rails/tron/qr.ts";
import type { Db } from "../db/mod.ts";
import type { Deps } from "./deps.ts";

export const ACCOUNT_INDEX = { live: 0, sandbox: 1 } as const;
/** Late funds are still credited (as a deposit) this long after a pay-in expires. */
export const WATCH_AFTER_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000;
/** Addresses derived per reserved range by a refill (about 25 ms of CPU each, then one INSERT). */
export const REFILL_BATCH = 100;
/** A process asks for a refill of a mode at most this often; the job itself is safe to run twice. */
const REFILL_REQUEST_INTERVAL_MS = 1000;
/**
 * Indexes a process reserves at once for requests that found the pool empty, then hands out one by one:
 * a burst on an empty pool costs one counter commit per this many requests. Indexes left unused when the
 * process stops are gaps in the sequence, which cost nothing.
 */
const SPARE_INDEXES = 16;

const derivers = new Map<string, TronAddressDeriver>();
// Per database (and per queue): tests run several gateways in one process.
const lastRefillRequest = new WeakMap<object, Map<string, number>>();
const spareIndexes = new WeakMap<Db, Map<string, { free: number[]; pending?: Promise<void> }>>();

function mapOf<K extends object, V>(maps: WeakMap<K, Map<string, V>>, owner: K): Map<string, V> {
  let map = maps.get(owner);
  if (!map) maps.set(owner, map = new Map());
  return map;
}

function deriverFor(mnemonic: string, account: number): TronAddressDeriver {
  const key = `${account}:${mnemonic}`;
  let deriver = derivers.get(key);
  if (!deriver) derivers.set(key, deriver = createAddressDeriver(mnemonic, account));
  return deriver;
}

function mnemonicOf(deps: Pick<Deps, "config">): string {
  const mnemonic = deps.config.tron.mnemonic;
  if (!mnemonic) throw new Error("TRON mnemonic not loaded: the runtime must provide one");
  return mnemonic;
}

const accountOf = (isSandbox: boolean) => isSandbox ? ACCOUNT_INDEX.sandbox : ACCOUNT_INDEX.live;

function deriveAt(deps: Pick<Deps, "config">, isSandbox: boolean, index: number) {
  const account = accountOf(isSandbox);
  const derived = deriverFor(mnemonicOf(deps), account).address(index);
  return { ...derived, isSandbox, accountIndex: account, index, qrPng: qrPngDataUrlSync(derived.address) };
}

/**
 * Tops the pool up towards `target` free addresses by at most `batch`, from a freshly reserved range of
 * indexes; answers how many it added (0 when the pool was full). Safe when several processes run it at
 * once: each derives its own range, so two at once can only overshoot the target by a batch.
 */
export async function fillAddressPool(
  deps: Pick<Deps, "db" | "config">,
  input: { isSandbox: boolean; target?: number; batch?: number },
): Promise<number> {
  const target = input.target ?? deps.config.addressPoolSize;
  const { free } = await pool.countFree(deps.db, input.isSandbox);
  const missing = Math.min(target - free, input.batch ?? REFILL_BATCH);
  if (missing <= 0) return 0;
  const start = await pool.reserveIndexes(deps.db, accountOf(input.isSandbox), missing);
  const rows = [];
  for (let index = start; index < start + missing; index++) rows.push(deriveAt(deps, input.isSandbox, index));
  return await pool.insertAddresses(deps.db, rows);
}

/** Fills a mode's pool to its target, batch after batch: the `address-pool.refill` job and the cron. */
export async function refillAddressPool(deps: Pick<Deps, "db" | "config">, isSandbox: boolean) {
  let added = 0;
  for (let n; (n = await fillAddressPool(deps, { isSandbox })) > 0;) added += n;
  return added;
}

/** Asks the queue for a refill, at most once a second per process and mode; never fails the caller. */
async function requestRefill(deps: Pick<Deps, "queue" | "log" | "clock">, isSandbox: boolean) {
  const key = String(isSandbox);
  const last = mapOf(lastRefillRequest, deps.queue);
  const now = deps.clock.now().getTime();
  if (now - (last.get(key) ?? -Infinity) < REFILL_REQUEST_INTERVAL_MS) return;
  last.set(key, now);
  try {
    await deps.queue.enqueue({ type: "address-pool.refill", isSandbox });
  } catch (err) {
    // The cron tops the pool up anyway, and an empty pool only costs a derivation per request.
    deps.log.warn("address pool refill request failed", { error: String(err) });
  }
}

/**
 * An index of this process's spare range for `db`. Concurrent requests share one reservation in flight,
 * so a burst reserves SPARE_INDEXES at a time rather than a range each.
 */
async function spareIndex(db: Db, mnemonic: string, accountIndex: number): Promise<number> {
  const spare = mapOf(spareIndexes, db);
  const key = `${accountIndex}:${mnemonic}`;
  let range = spare.get(key);
  if (!range) spare.set(key, range = { free: [] });
  while (range.free.length === 0) {
    if (!range.pending) {
      const r = range;
      r.pending = pool.reserveIndexes(db, accountIndex, SPARE_INDEXES).then((start) => {
        r.free.push(...Array.from({ length: SPARE_INDEXES }, (_, i) => start + i));
      }).finally(() => r.pending = undefined);
    }
    await range.pending;
  }
  return range.free.shift()!;
}

export type DepositAddress = { address: string; qrPng: string };
export type OwnAddress = ReturnType<typeof deriveAt>;
type Claim = { isSandbox: boolean; payinId: string; expiresAt: Date };

/**
 * Claims the pool's next free address for a pay-in, asking for a refill once fewer than half the target
 * remain; undefined when the pool is empty (then `deriveOwnAddress`, and `claimOwnAddress`). Pass the
 * pay-in's transaction as `deps.db` so the claim commits with it: one commit, and a creation that fails
 * leaves the address in the pool.
 */
export async function claimPooledAddress(
  deps: Pick<Deps, "db" | "config" | "clock" | "queue" | "log">,
  input: Claim,
): Promise<DepositAddress | undefined> {
  const now = deps.clock.now();
  const claimed = await pool.claimFree(deps.db, {
    isSandbox: input.isSandbox,
    payinId: input.payinId,
    accountIndex: accountOf(input.isSandbox),
    watchUntil: watchUntilOf(input.expiresAt),
    now,
  });
  const lowWater = Math.floor(deps.config.addressPoolSize / 2);
  if (!claimed || claimed.next_index - claimed.derivation_index - 1 <= lowWater) {
    if (deps.config.addressPoolSize > 0) await requestRefill(deps, input.isSandbox);
  }
  return claimed && { address: claimed.address, qrPng: claimed.qr_png };
}

/**
 * An address for a request that found the pool empty, derived from an index of this process's spare
 * range (reserved with one atomic counter update per SPARE_INDEXES requests, so nobody else derives it).
 * Call it outside the pay-in's transaction: the counter row is then never held for a transaction's length.
 */
export async function deriveOwnAddress(deps: Pick<Deps, "db" | "config">, isSandbox: boolean) {
  const index = await spareIndex(deps.db, mnemonicOf(deps), accountOf(isSandbox));
  return deriveAt(deps, isSandbox, index);
}

/** Records an address from `deriveOwnAddress` as claimed by the pay-in (in the pay-in's transaction). */
export async function claimOwnAddress(
  deps: Pick<Deps, "db" | "clock">,
  own: OwnAddress,
  input: Claim,
): Promise<DepositAddress> {
  await pool.insertClaimedAddress(deps.db, {
    ...own,
    payinId: input.payinId,
    watchUntil: watchUntilOf(input.expiresAt),
    now: deps.clock.now(),
  });
  return { address: own.address, qrPng: own.qrPng };
}

const watchUntilOf = (expiresAt: Date) => new Date(expiresAt.getTime() + WATCH_AFTER_EXPIRY_MS);
