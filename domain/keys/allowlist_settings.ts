// Changing the IP allowlists: the merchant's (only with a secret key) and one key's. A change that would
// refuse the address making it is IP_ALLOWLIST_SELF_LOCKOUT; it takes effect at once in this process and
// within AUTH_CACHE_TTL_MS in the others.
import * as keysDb from "../../db/api_keys.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { ApiKeyAuth } from "./api_keys.ts";
import { assertNotLockingOut, normalizeAllowlist } from "./ip_allowlist.ts";
import { keyCacheOf } from "./key_cache.ts";
import { managedKeyView } from "./manage.ts";

type SettingsDeps = Pick<Deps, "db" | "clock" | "log" | "keyCache">;

export async function merchantAllowlist(deps: Pick<Deps, "db">, caller: ApiKeyAuth, address: string) {
  return { cidrs: await keysDb.findMerchantAllowlist(deps.db, caller.merchantId), yourAddress: address };
}

export async function setMerchantAllowlist(
  deps: SettingsDeps,
  caller: ApiKeyAuth,
  input: { cidrs: string[]; address: string },
) {
  if (caller.scopes !== null) {
    throw new AppError("FORBIDDEN", "Only a secret key may change the merchant's allowlist", {
      reason: "INSUFFICIENT_SCOPE",
    });
  }
  const cidrs = normalizeAllowlist(input.cidrs);
  assertNotLockingOut(cidrs, input.address);
  await keysDb.updateMerchantAllowlist(deps.db, caller.merchantId, cidrs);
  keyCacheOf(deps).forgetMerchant(caller.merchantId);
  deps.log.info("merchant.ip_allowlist.changed", { merchantId: caller.merchantId, by: caller.keyId });
  return { cidrs, yourAddress: input.address };
}

export async function setKeyAllowlist(
  deps: SettingsDeps,
  caller: ApiKeyAuth,
  input: { id: string; cidrs: string[]; address: string },
) {
  const cidrs = normalizeAllowlist(input.cidrs);
  const row = await keysDb.findMerchantKey(deps.db, caller.merchantId, input.id);
  if (!row || row.is_sandbox !== caller.isSandbox) throw new AppError("NOT_FOUND", "API key not found");
  if (row.kind.endsWith("_secret") && caller.scopes !== null) {
    throw new AppError("FORBIDDEN", "Only a secret key may change a secret key's allowlist", {
      reason: "INSUFFICIENT_SCOPE",
    });
  }
  if (input.id === caller.keyId) assertNotLockingOut(cidrs, input.address);
  const updated = await keysDb.updateKeyAllowlist(deps.db, caller.merchantId, input.id, cidrs);
  keyCacheOf(deps).forgetKey(input.id);
  deps.log.info("key.ip_allowlist.changed", {
    merchantId: caller.merchantId,
    keyId: input.id,
    by: caller.keyId,
  });
  return managedKeyView(updated!, deps.clock.now());
}
