// Merchants: creation with their six wallets (three per mode) and four keys, KYB, settings, keys.
import * as merchantsDb from "../../db/merchants.ts";
import { insertWallet } from "../../db/ledger.ts";
import type { Deps } from "../deps.ts";
import { keyCacheOf } from "../keys/key_cache.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import { WALLET_PAIRS } from "../money.ts";
import { signCurrentAgreement } from "../kyb/agreement.ts";
import { generateApiKey, type KeyKind, type Scope, scopesFor } from "../keys/api_keys.ts";

export type KybStatus = "PENDING" | "APPROVED" | "REJECTED";
export const RAILS = ["USDT_TRC20", "CARD", "MOBILE_MONEY"] as const;
export type PaymentRail = typeof RAILS[number];

export type CreatedMerchant = {
  merchantId: string;
  keys: { liveSecret: string; livePublishable: string; testSecret: string; testPublishable: string };
};

export async function createMerchant(
  deps: Pick<Deps, "db">,
  input: { name: string; kybStatus?: KybStatus },
): Promise<CreatedMerchant> {
  const merchantId = newId("mch");
  return await deps.db.tx(async (tx) => {
    await merchantsDb.insertMerchant(tx, {
      id: merchantId,
      name: input.name,
      kybStatus: input.kybStatus ?? "PENDING",
    });
    for (const isSandbox of [false, true]) {
      for (const pair of WALLET_PAIRS) {
        await insertWallet(tx, { id: newId("wal"), merchantId, isSandbox, ...pair });
      }
    }
    const issue = async (kind: KeyKind) => (await issueKey({ db: tx }, { merchantId, kind })).key;
    return {
      merchantId,
      keys: {
        liveSecret: await issue("live_secret"),
        livePublishable: await issue("live_publishable"),
        testSecret: await issue("test_secret"),
        testPublishable: await issue("test_publishable"),
      },
    };
  });
}

/**
 * The merchant a development server creates on a fresh data directory, so a newcomer has keys to try at
 * once (runtime.ts keeps them in DATA_DIR and main.ts prints them). Approved, with the current agreement
 * signed on its behalf, so pay-ins work straight away (a real merchant goes through /v1/merchant/kyb).
 */
export async function createDemoMerchant(
  deps: Pick<Deps, "db" | "queue" | "clock" | "keyCache">,
): Promise<CreatedMerchant> {
  const created = await createMerchant(deps, { name: "Demo merchant", kybStatus: "APPROVED" });
  await signCurrentAgreement(deps, {
    merchantId: created.merchantId,
    signedBy: "development server (demo merchant)",
    signedFrom: "127.0.0.1",
  });
  return created;
}

export type IssuedKey = {
  id: string;
  kind: KeyKind;
  key: string;
  scopes: readonly Scope[] | null;
  mode: "live" | "sandbox";
};

/** Issues a key and returns its plaintext, the only time it is ever seen. */
export async function issueKey(
  deps: Pick<Deps, "db">,
  input: { merchantId: string; kind: KeyKind; scopes?: Scope[]; sandbox?: boolean },
): Promise<IssuedKey> {
  const merchant = await merchantsDb.findMerchant(deps.db, input.merchantId);
  if (!merchant) throw new AppError("MERCHANT_NOT_FOUND");
  const scopes = scopesFor(input.kind, input.scopes);
  const isSandbox = input.kind === "restricted" ? input.sandbox === true : input.kind.startsWith("test_");
  const generated = await generateApiKey(input.kind);
  const id = newId("key");
  await merchantsDb.insertApiKey(deps.db, {
    id,
    merchantId: input.merchantId,
    kind: input.kind,
    isSandbox,
    displayPrefix: generated.displayPrefix,
    hash: generated.hash,
    scopes,
  });
  return { id, kind: input.kind, key: generated.plaintext, scopes, mode: isSandbox ? "sandbox" : "live" };
}

export async function revokeKey(deps: Pick<Deps, "db" | "keyCache">, keyId: string) {
  const row = await merchantsDb.revokeApiKey(deps.db, keyId);
  if (!row) throw new AppError("NOT_FOUND", "API key not found");
  keyCacheOf(deps).forgetKey(keyId); // at once here; other processes within AUTH_CACHE_TTL_MS
  return row;
}

export async function setKybStatus(
  deps: Pick<Deps, "db" | "keyCache">,
  merchantId: string,
  status: KybStatus,
) {
  const row = await merchantsDb.updateMerchant(deps.db, merchantId, { kybStatus: status });
  if (!row) throw new AppError("MERCHANT_NOT_FOUND");
  keyCacheOf(deps).forgetMerchant(merchantId);
  return row;
}

export type MerchantSettingsPatch = {
  status?: "ACTIVE" | "SUSPENDED" | "CLOSED";
  enabledRails?: PaymentRail[];
  feeSchedule?: Record<string, string>;
  rateLimits?: Record<string, number>;
};

/**
 * Closing is refused while live money is still the merchant's: a wallet not at zero, a pay-in that may
 * still be paid, a payout or withdrawal not finished. The operator settles those first (pays out, lets
 * pay-ins expire), so nothing in flight is lost; suspending stops new business meanwhile.
 */
async function assertClosable(deps: Pick<Deps, "db">, merchantId: string): Promise<void> {
  const blockers = await merchantsDb.closingBlockers(deps.db, merchantId);
  if (!blockers) return;
  const details = [
    ...blockers.wallets.map((w) => ({ field: "wallets", reason: `live balance ${w}` })),
    ...(blockers.payins
      ? [{ field: "payins", reason: `${blockers.payins} live pay-in(s) not finished` }]
      : []),
    ...(blockers.outbound
      ? [{ field: "outbound", reason: `${blockers.outbound} payout(s) or withdrawal(s) not finished` }]
      : []),
  ];
  if (details.length) {
    throw new AppError("CONFLICT", "The merchant still has live money: pay it out first, then close", {
      details,
    });
  }
}

export async function updateMerchantSettings(
  deps: Pick<Deps, "db" | "keyCache">,
  merchantId: string,
  patch: MerchantSettingsPatch,
) {
  if (patch.status === "CLOSED") await assertClosable(deps, merchantId);
  const row = await merchantsDb.updateMerchant(deps.db, merchantId, {
    status: patch.status,
    enabledRails: patch.enabledRails,
    feeSchedule: patch.feeSchedule,
    rateLimits: patch.rateLimits,
  });
  if (!row) throw new AppError("MERCHANT_NOT_FOUND");
  keyCacheOf(deps).forgetMerchant(merchantId);
  return row;
}

/** The merchant, or undefined: for public pages that answer their own not-found. */
export async function findMerchantById(deps: Pick<Deps, "db">, merchantId: string) {
  return await merchantsDb.findMerchant(deps.db, merchantId) ?? undefined;
}

export async function getMerchant(deps: Pick<Deps, "db">, merchantId: string) {
  const row = await merchantsDb.findMerchant(deps.db, merchantId);
  if (!row) throw new AppError("MERCHANT_NOT_FOUND");
  return row;
}
