// What operators change on merchants (create, settings and branding, KYB, keys, the paylink limit), each
// with its audit record in the same transaction: who, the merchant or key before and after. Secrets
// (keys) never enter the trail; a logo is recorded by its size.
import type { MerchantRow } from "../../db/merchants.ts";
import { audited } from "../audit/audited.ts";
import type { Deps } from "../deps.ts";
import type { KeyKind, Scope } from "../keys/api_keys.ts";
import { keyCacheOf } from "../keys/key_cache.ts";
import { updateMerchantBranding } from "../merchants/branding.ts";
import {
  createMerchant,
  getMerchant,
  issueKey,
  type KybStatus,
  type MerchantSettingsPatch,
  revokeKey,
  setKybStatus,
  updateMerchantSettings,
} from "../merchants/mod.ts";
import { getPaylinkLimit, setPaylinkLimit } from "../paylinks/create.ts";
import type { Actor } from "./roles.ts";
import { AppError } from "../errors.ts";
import { lockMerchantStatus } from "../../db/operator_views.ts";

type ActionDeps = Pick<Deps, "db" | "clock" | "keyCache">;

/** What the trail keeps of a merchant. */
function snapshot(m: MerchantRow) {
  return {
    name: m.name,
    status: m.status,
    kybStatus: m.kyb_status,
    enabledRails: m.enabled_rails,
    feeSchedule: m.fee_schedule ?? {},
    rateLimits: m.rate_limits ?? {},
    displayName: m.display_name,
    logo: m.logo_data_url ? `${m.logo_data_url.length} characters` : null,
  };
}

export async function createMerchantAs(
  deps: ActionDeps,
  actor: Actor,
  input: { name: string; kybStatus?: KybStatus },
) {
  return await audited(deps, actor, { action: "merchant.create", itemType: "merchant" }, async (tx) => {
    const created = await createMerchant({ db: tx }, input);
    const row = await getMerchant({ db: tx }, created.merchantId);
    return { result: created, itemId: created.merchantId, after: snapshot(row) };
  });
}

export type MerchantChange = MerchantSettingsPatch & { displayName?: string | null; logoUrl?: string | null };

/** Settings and branding in one transaction, recorded once. */
export async function updateMerchantAs(deps: ActionDeps, actor: Actor, id: string, patch: MerchantChange) {
  const what = { action: "merchant.update", itemType: "merchant", itemId: id };
  // Forgotten again once committed: a lookup between the change and its commit could cache the old row.
  const forget = () => keyCacheOf(deps).forgetMerchant(id);
  return await audited(deps, actor, what, async (tx) => {
    tx.afterCommit(forget);
    const txDeps = { ...deps, db: tx };
    const before = snapshot(await getMerchant(txDeps, id));
    let row = await updateMerchantSettings(txDeps, id, patch);
    if (patch.displayName !== undefined || patch.logoUrl !== undefined) {
      row = await updateMerchantBranding(txDeps, id, patch);
    }
    return { result: row, before, after: snapshot(row) };
  });
}

export async function setKybStatusAs(deps: ActionDeps, actor: Actor, id: string, status: KybStatus) {
  const what = { action: "merchant.kyb", itemType: "merchant", itemId: id };
  return await audited(deps, actor, what, async (tx) => {
    tx.afterCommit(() => keyCacheOf(deps).forgetMerchant(id));
    const txDeps = { ...deps, db: tx };
    const before = await getMerchant(txDeps, id);
    const row = await setKybStatus(txDeps, id, status);
    return { result: row, before: { kybStatus: before.kyb_status }, after: { kybStatus: row.kyb_status } };
  });
}

export async function issueKeyAs(
  deps: ActionDeps,
  actor: Actor,
  input: { merchantId: string; kind: KeyKind; scopes?: Scope[]; sandbox?: boolean },
) {
  return await audited(deps, actor, { action: "key.issue", itemType: "key" }, async (tx) => {
    const issued = await issueKey({ db: tx }, input);
    const after = {
      merchantId: input.merchantId,
      kind: issued.kind,
      mode: issued.mode,
      scopes: issued.scopes,
    };
    return { result: issued, itemId: issued.id, after };
  });
}

export async function revokeKeyAs(deps: ActionDeps, actor: Actor, keyId: string) {
  const what = { action: "key.revoke", itemType: "key", itemId: keyId };
  return await audited(deps, actor, what, async (tx) => {
    tx.afterCommit(() => keyCacheOf(deps).forgetKey(keyId));
    const row = await revokeKey({ ...deps, db: tx }, keyId);
    const after = { merchantId: row.merchant_id, revokedAt: row.revoked_at?.toISOString() ?? null };
    return { result: row, after };
  });
}

export async function setPaylinkLimitAs(deps: ActionDeps, actor: Actor, merchantId: string, max: number) {
  const what = { action: "merchant.paylink_limit", itemType: "merchant", itemId: merchantId };
  return await audited(deps, actor, what, async (tx) => {
    const txDeps = { ...deps, db: tx };
    await getMerchant(txDeps, merchantId);
    const before = await getPaylinkLimit(txDeps, merchantId);
    const after = await setPaylinkLimit(txDeps, merchantId, max);
    return { result: after, before: { maxPaylinks: before.maxPaylinks }, after: { maxPaylinks: max } };
  });
}

/** What the console's status buttons may do: suspend an active merchant, reactivate a suspended one. */
const STATUS_MOVES: Record<string, readonly string[]> = { ACTIVE: ["SUSPENDED"], SUSPENDED: ["ACTIVE"] };

/**
 * Suspends or reactivates a merchant with a note saying why (both are recorded with it): a wrong-state move
 * (say reactivating a CLOSED merchant) is INVALID_STATE, a missing note REASON_NOTE_REQUIRED.
 */
export async function setMerchantStatusAs(
  deps: ActionDeps,
  actor: Actor,
  input: { id: string; status: "ACTIVE" | "SUSPENDED"; note?: string },
) {
  const note = input.note?.trim();
  if (!note) throw new AppError("REASON_NOTE_REQUIRED", "Suspending or reactivating a merchant needs a note");
  const verb = input.status === "ACTIVE" ? "reactivate" : "suspend";
  const what = { action: `merchant.${verb}`, itemType: "merchant", itemId: input.id, note };
  return await audited(deps, actor, what, async (tx) => {
    tx.afterCommit(() => keyCacheOf(deps).forgetMerchant(input.id));
    const txDeps = { ...deps, db: tx };
    const before = await lockMerchantStatus(tx, input.id);
    if (!before) throw new AppError("MERCHANT_NOT_FOUND");
    if (!STATUS_MOVES[before.status]?.includes(input.status)) {
      throw new AppError("INVALID_STATE", `A ${before.status} merchant cannot be set ${input.status}`);
    }
    const row = await updateMerchantSettings(txDeps, input.id, { status: input.status });
    return { result: row, before: { status: before.status }, after: { status: row.status } };
  });
}
