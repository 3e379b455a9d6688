// Turns a presented API key into who is calling, with one indexed lookup.
import { findApiKeyByHash } from "../db/merchants.ts";
import { type ApiKeyAuth, hashApiKey, type KeyKind, looksLikeApiKey, type Scope } from "./api_keys.ts";
import type { Deps } from "./deps.ts";
import { AppError } from "./errors.ts";

/** The key's holder, with the merchant settings most routes need, read in the same lookup. */
export type Caller = ApiKeyAuth & {
  rateLimits: Record<string, number>;
  kybStatus: "PENDING" | "APPROVED" | "REJECTED";
  enabledRails: string[];
  feeSchedule: Record<string, string>;
};

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
  deps: Pick<Deps, "db">,
  presented: string | undefined,
): Promise<Caller> {
  if (!presented) {
    throw new AppError("UNAUTHORIZED", "API key missing: send it in X-Api-Key or Authorization: Bearer");
  }
  // A malformed key cannot exist; skip the lookup but answer exactly as for an unknown key.
  const row = looksLikeApiKey(presented)
    ? await findApiKeyByHash(deps.db, await hashApiKey(presented))
    : undefined;
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
