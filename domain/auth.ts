// Turns a presented API key (or the operator token) into who is calling. A valid key is found with one
// indexed lookup, then kept in this process for AUTH_CACHE_TTL_MS (domain/key_cache.ts). Failed attempts
// are counted per client address; past AUTH_FAILURE_LIMIT a minute that address gets 429 with Retry-After.
// A key already in the cache skips that check, so throttling never slows down valid keys.
import { findApiKeyByHash } from "../db/merchants.ts";
import { type ApiKeyAuth, hashApiKey, type KeyKind, looksLikeApiKey, type Scope } from "./api_keys.ts";
import { timingSafeEqual } from "./crypto.ts";
import type { Deps } from "./deps.ts";
import { AppError } from "./errors.ts";
import { keyCacheOf } from "./key_cache.ts";
import { assertNotThrottled, countAuthFailure } from "./rate_limit.ts";

/** The key's holder, with the merchant settings most routes need, read in the same lookup. */
export type Caller = ApiKeyAuth & {
  rateLimits: Record<string, number>;
  kybStatus: "PENDING" | "APPROVED" | "REJECTED";
  enabledRails: string[];
  feeSchedule: Record<string, string>;
};

type AuthDeps = Pick<Deps, "db" | "kv" | "clock" | "config" | "keyCache">;

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
  if (cached) return cached;
  await assertNotThrottled(deps, "api", clientAddress);
  let caller: Caller;
  try {
    caller = await lookUp(deps, presented, hash);
  } catch (err) {
    if (err instanceof AppError) await countAuthFailure(deps, "api", clientAddress);
    throw err;
  }
  if (hash && deps.config.authCacheTtlMs > 0) cache.set(hash, caller, nowMs + deps.config.authCacheTtlMs);
  return caller;
}

async function lookUp(deps: AuthDeps, presented: string | undefined, hash: string | undefined) {
  if (!presented) {
    throw new AppError("UNAUTHORIZED", "API key missing: send it in X-Api-Key or Authorization: Bearer");
  }
  const row = hash ? await findApiKeyByHash(deps.db, hash) : undefined;
  if (!row) throw new AppError("UNAUTHORIZED", "API key invalid");
  if (row.revoked_at) throw new AppError("INVALID_API_KEY", "API key revoked");
  if (row.merchant_status === "CLOSED") throw new AppError("ACCOUNT_CLOSED", "Merchant account closed");
  if (row.merchant_status === "SUSPENDED") {
    throw new AppError("MERCHANT_STATUS_INVALID", "Merchant account suspended");
  }
  return {
    keyId: row.id,
    merchantId: row.merchant_id,
    kind: row.kind as KeyKind,
    isSandbox: row.is_sandbox,
    scopes: row.scopes as Scope[] | null,
    rateLimits: row.rate_limits ?? {},
    kybStatus: row.kyb_status,
    enabledRails: row.enabled_rails,
    feeSchedule: row.fee_schedule ?? {},
  };
}

/** Operator routes: `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time, throttled alike. */
export async function authenticateOperator(
  deps: Pick<Deps, "kv" | "clock" | "config">,
  authorization: string | undefined,
  clientAddress = "unknown",
): Promise<void> {
  await assertNotThrottled(deps, "admin", clientAddress);
  const expected = deps.config.adminToken;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (!expected || !match || !timingSafeEqual(match[1], expected)) {
    await countAuthFailure(deps, "admin", clientAddress);
    throw new AppError("UNAUTHORIZED", "Admin token missing or invalid");
  }
}
