// Turns a presented API key (or the operator token) into who is calling. A valid key is found with one
// indexed lookup, then kept in this process for AUTH_CACHE_TTL_MS (domain/keys/key_cache.ts). Failed attempts
// are counted per client address; past AUTH_FAILURE_LIMIT a minute that address's failures get 429 with
// Retry-After instead of 401. The key is always looked up first, so a valid key is served from any address
// (a merchant behind a guesser's NAT is never locked out): what bounds guessing is the keys' entropy, the
// throttle tells a guessing client to stop and spares KV a flood's writes.
import { recordKeyUse } from "../db/api_keys.ts";
import { findApiKeyByHash } from "../db/merchants.ts";
import { hashApiKey, type KeyKind, looksLikeApiKey, type Scope } from "./keys/api_keys.ts";
import { timingSafeEqual } from "./crypto.ts";
import type { Deps } from "./deps.ts";
import { AppError } from "./errors.ts";
import { keyCacheOf } from "./keys/key_cache.ts";
import { assertAddressAllowed } from "./keys/ip_allowlist.ts";
import { throttleAuthFailure } from "./limits/rate_limit.ts";
import type { Caller } from "./keys/caller.ts";

export type { Caller } from "./keys/caller.ts";

type AuthDeps = Pick<Deps, "db" | "kv" | "clock" | "config" | "keyCache">;

/**
 * Failures that say the credential itself is wrong (missing, unknown, revoked): these count against the
 * address. A real key of a suspended or closed merchant answers its own code, whatever the address did.
 */
/** A key's "last used" is written at most this often (one UPDATE a minute, not one per request). */
const LAST_USED_PRECISION_MS = 60_000;

const CREDENTIAL_FAILURES = new Set(["UNAUTHORIZED", "INVALID_API_KEY"]);

/** Reads `X-Api-Key`, or `Authorization: Bearer <key>`. */
export function presentedKey(
  xApiKey: string | undefined,
  authorization: string | undefined,
): string | undefined {
  if (xApiKey) return xApiKey.trim();
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return match?.[1];
}

export async function authenticateApiKey(
  deps: AuthDeps,
  presented: string | undefined,
  clientAddress = "unknown",
): Promise<Caller> {
  const nowMs = deps.clock.now().getTime();
  // A malformed key cannot exist; it skips the lookup but answers exactly as an unknown key.
  const hash = presented && looksLikeApiKey(presented) ? await hashApiKey(presented) : undefined;
  const cache = keyCacheOf(deps);
  const cached = hash ? cache.get(hash, nowMs) : undefined;
  if (cached) return fromAllowedAddress(cached, clientAddress);
  let caller: Caller;
  let expiresAtMs = Infinity;
  try {
    const row = await lookUp(deps, presented, hash, nowMs);
    caller = row.caller;
    expiresAtMs = row.expiresAtMs;
    if (row.lastUsedMs === null || nowMs - row.lastUsedMs >= LAST_USED_PRECISION_MS) {
      await recordKeyUse(deps.db, caller.keyId, new Date(nowMs), clientAddress);
    }
  } catch (err) {
    if (err instanceof AppError && CREDENTIAL_FAILURES.has(err.code)) {
      await throttleAuthFailure(deps, "api", clientAddress);
    }
    throw err;
  }
  // A rotated key is not served from the cache past its end.
  const cachedUntil = Math.min(nowMs + deps.config.authCacheTtlMs, expiresAtMs);
  if (hash && deps.config.authCacheTtlMs > 0) cache.set(hash, caller, cachedUntil);
  return fromAllowedAddress(caller, clientAddress);
}

/** A right key from an address its allowlists do not name is refused (not counted as a guess). */
function fromAllowedAddress(caller: Caller, clientAddress: string): Caller {
  if (caller.ipAllowlist) assertAddressAllowed(caller.ipAllowlist, clientAddress);
  return caller;
}

async function lookUp(
  deps: AuthDeps,
  presented: string | undefined,
  hash: string | undefined,
  nowMs: number,
) {
  if (!presented) {
    throw new AppError("UNAUTHORIZED", "API key missing: send it in X-Api-Key or Authorization: Bearer");
  }
  const row = hash ? await findApiKeyByHash(deps.db, hash) : undefined;
  if (!row) throw new AppError("UNAUTHORIZED", "API key invalid");
  if (row.revoked_at) throw new AppError("INVALID_API_KEY", "API key revoked");
  const expiresAtMs = row.expires_at ? row.expires_at.getTime() : Infinity;
  if (expiresAtMs <= nowMs) throw new AppError("INVALID_API_KEY", "API key expired: it was rotated");
  if (row.merchant_status === "CLOSED") throw new AppError("ACCOUNT_CLOSED", "Merchant account closed");
  if (row.merchant_status === "SUSPENDED") {
    throw new AppError("MERCHANT_STATUS_INVALID", "Merchant account suspended");
  }
  const caller: Caller = {
    keyId: row.id,
    merchantId: row.merchant_id,
    kind: row.kind as KeyKind,
    isSandbox: row.is_sandbox,
    scopes: row.scopes as Scope[] | null,
    rateLimits: row.rate_limits ?? {},
    planLimits: row.plan_limits ?? {},
    kybStatus: row.kyb_status,
    agreementVersion: row.agreement_version,
    agreementResignBy: row.agreement_resign_by,
    enabledRails: row.enabled_rails,
    feeSchedule: row.fee_schedule ?? {},
    ipAllowlist: { merchant: row.merchant_ip_allowlist ?? [], key: row.key_ip_allowlist ?? [] },
  };
  return { caller, expiresAtMs, lastUsedMs: row.last_used_at ? row.last_used_at.getTime() : null };
}

/**
 * Operator routes: `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time (no lookup), throttled
 * alike: the right token is accepted from any address, wrong ones from a throttled address get 429.
 */
export async function authenticateOperator(
  deps: Pick<Deps, "kv" | "db" | "clock" | "config">,
  authorization: string | undefined,
  clientAddress = "unknown",
): Promise<void> {
  const expected = deps.config.adminToken;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (expected && match && timingSafeEqual(match[1], expected)) return;
  await throttleAuthFailure(deps, "admin", clientAddress);
  throw new AppError("UNAUTHORIZED", "Admin token missing or invalid");
}
