// API keys: the five kinds of the specification, shown once, stored as SHA-256 hashes.
import { AppError } from "../errors.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { randomToken } from "../ids.ts";

export type KeyKind = "live_secret" | "live_publishable" | "test_secret" | "test_publishable" | "restricted";

export const KEY_PREFIX: Record<KeyKind, string> = {
  live_secret: "svc_live_sk_",
  live_publishable: "svc_live_pk_",
  test_secret: "svc_test_sk_",
  test_publishable: "svc_test_pk_",
  restricted: "svc_rk_",
};

/** The specification's scope names, then ours for the resources whose scopes it does not show. */
export const SCOPES = [
  "wallets_read",
  "wallets_write",
  "fiat_destinations_read",
  "fiat_destinations_write",
  "webhooks_read",
  "webhooks_write",
  "analytics_read",
  "payments_read",
  "payments_write",
  "paylinks_read",
  "paylinks_write",
  "payouts_read",
  "payouts_write",
  "withdrawals_read",
  "withdrawals_write",
  "balances_read",
  "transactions_read",
  "sandbox_write",
  "api_keys_read",
  "api_keys_write",
  "refunds_read",
  "refunds_write",
] as const;
export type Scope = typeof SCOPES[number];

/** Browser-safe keys may only read what a checkout page needs. */
export const PUBLISHABLE_SCOPES: readonly Scope[] = ["payments_read", "paylinks_read"];

export type ApiKeyAuth = {
  keyId: string;
  merchantId: string;
  kind: KeyKind;
  isSandbox: boolean;
  /** Null for secret keys: they hold every scope. */
  scopes: readonly Scope[] | null;
};

export function isSecretKind(kind: KeyKind): boolean {
  return kind === "live_secret" || kind === "test_secret";
}

export function scopesFor(kind: KeyKind, requested?: readonly Scope[]): readonly Scope[] | null {
  if (isSecretKind(kind)) return null;
  if (kind === "restricted") {
    if (!requested || requested.length === 0) {
      throw new AppError("VALIDATION_ERROR", "A restricted key needs at least one scope", {
        details: [{ field: "scopes", reason: "required for a restricted key" }],
      });
    }
    return [...new Set(requested)];
  }
  return PUBLISHABLE_SCOPES;
}

export async function generateApiKey(
  kind: KeyKind,
): Promise<{ plaintext: string; hash: string; displayPrefix: string }> {
  const plaintext = KEY_PREFIX[kind] + randomToken(24);
  return {
    plaintext,
    hash: await hashApiKey(plaintext),
    displayPrefix: plaintext.slice(0, KEY_PREFIX[kind].length + 4),
  };
}

const utf8 = new TextEncoder();

/**
 * SHA-256 hex of the key, as stored. Computed synchronously with @noble/hashes: the same digest as Web
 * Crypto's, without the cost of an async operation on every request of the hot path.
 */
export function hashApiKey(plaintext: string): Promise<string> {
  return Promise.resolve(bytesToHex(sha256(utf8.encode(plaintext))));
}

export function looksLikeApiKey(value: string): boolean {
  return /^svc_(live_sk|live_pk|test_sk|test_pk|rk)_[0-9a-z]{20,64}$/.test(value);
}

/**
 * Secret keys may do anything; publishable keys only read within their scopes; restricted keys only
 * what their scopes name. A refusal is FORBIDDEN with cause INSUFFICIENT_SCOPE, as the specification says.
 */
export function assertScope(auth: ApiKeyAuth, scope: Scope, isWrite: boolean): void {
  if (auth.scopes === null) return;
  const publishableWrite = isWrite && (auth.kind === "live_publishable" || auth.kind === "test_publishable");
  if (publishableWrite || !auth.scopes.includes(scope)) {
    throw new AppError(
      "FORBIDDEN",
      `This key lacks the scope ${scope}; use a secret key with the needed scope`,
      {
        reason: "INSUFFICIENT_SCOPE",
      },
    );
  }
}

export function isPublishableKind(kind: KeyKind): boolean {
  return kind === "live_publishable" || kind === "test_publishable";
}

/** Publishable keys live in browsers: they may read one record by id, never list (FORBIDDEN). */
export function assertMayList(auth: ApiKeyAuth): void {
  if (isPublishableKind(auth.kind)) {
    throw new AppError("FORBIDDEN", "A publishable key may read one record by id, not list them", {
      reason: "INSUFFICIENT_SCOPE",
    });
  }
}

/** Reads that only serve the merchant (statistics, fee quotes): a browser's publishable key is refused. */
export function assertMerchantRead(auth: ApiKeyAuth): void {
  if (isPublishableKind(auth.kind)) {
    throw new AppError("FORBIDDEN", "A publishable key may not read this; use a secret key", {
      reason: "INSUFFICIENT_SCOPE",
    });
  }
}
