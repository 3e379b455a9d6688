// Keys the merchant manages with a key of its own (scopes api_keys_read / api_keys_write): list, create
// with chosen scopes, rotate with an overlap, revoke. Each mode manages its own keys (a sandbox key never
// sees or makes a live one), and a key never grants what its creator does not hold.
import * as keysDb from "../../db/api_keys.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import { type ApiKeyAuth, generateApiKey, type KeyKind, PUBLISHABLE_SCOPES, type Scope } from "./api_keys.ts";
import { keyCacheOf } from "./key_cache.ts";

/** The longest a rotated key keeps working beside its successor (as aggregators do for webhook secrets). */
export const MAX_OVERLAP_SECONDS = 86_400;
export const DEFAULT_OVERLAP_SECONDS = 3_600;
export const MANAGED_KINDS = ["secret", "publishable", "restricted"] as const;
export type ManagedKind = typeof MANAGED_KINDS[number];

type KeyDeps = Pick<Deps, "db" | "clock" | "config" | "log" | "keyCache">;

function kindFor(kind: ManagedKind, sandbox: boolean): KeyKind {
  if (kind === "restricted") return "restricted";
  return `${sandbox ? "test" : "live"}_${kind}` as KeyKind;
}

function managedKind(kind: string): ManagedKind {
  return kind === "restricted" ? "restricted" : kind.endsWith("_publishable") ? "publishable" : "secret";
}

function statusOf(row: keysDb.ManagedKeyRow, now: Date) {
  if (row.revoked_at) return "REVOKED" as const;
  if (row.expires_at && row.expires_at <= now) return "EXPIRED" as const;
  return row.expires_at ? "EXPIRING" as const : "ACTIVE" as const;
}

export function managedKeyView(row: keysDb.ManagedKeyRow, now: Date) {
  const iso = (d: Date | null) => d ? d.toISOString() : null;
  return {
    id: row.id,
    kind: managedKind(row.kind),
    mode: row.is_sandbox ? "sandbox" as const : "live" as const,
    name: row.name,
    prefix: row.display_prefix,
    scopes: row.scopes,
    status: statusOf(row, now),
    createdAt: row.created_at.toISOString(),
    createdBy: row.created_by,
    lastUsedAt: iso(row.last_used_at),
    lastUsedFrom: row.last_used_from,
    expiresAt: iso(row.expires_at),
    rotatedTo: row.rotated_to,
    ipAllowlist: row.ip_allowlist,
    revokedAt: iso(row.revoked_at),
  };
}

const forbidden = (why: string) => new AppError("FORBIDDEN", why, { reason: "INSUFFICIENT_SCOPE" });

/** The scopes a new key of `kind` would hold; refused when the creating key does not hold them all. */
function grantableScopes(creator: ApiKeyAuth, kind: ManagedKind, requested?: readonly Scope[]) {
  if (kind === "secret") {
    if (creator.scopes !== null) throw forbidden("Only a secret key may create or rotate a secret key");
    if (requested?.length) {
      throw new AppError("VALIDATION_ERROR", "A secret key holds every scope: omit scopes");
    }
    return null;
  }
  const scopes = kind === "publishable" ? PUBLISHABLE_SCOPES : [...new Set(requested ?? [])];
  if (kind === "publishable" && requested?.length) {
    throw new AppError(
      "VALIDATION_ERROR",
      "A publishable key's scopes are fixed (payments_read, paylinks_read)",
    );
  }
  if (kind === "restricted" && scopes.length === 0) {
    throw new AppError("VALIDATION_ERROR", "A restricted key needs at least one scope", {
      details: [{ field: "scopes", reason: "required for a restricted key" }],
    });
  }
  const lacking = creator.scopes === null ? [] : scopes.filter((s) => !creator.scopes!.includes(s));
  if (lacking.length) throw forbidden(`This key cannot grant scopes it lacks: ${lacking.join(", ")}`);
  return scopes;
}

async function ownKey(deps: KeyDeps, caller: ApiKeyAuth, id: string, lock = false) {
  const row = await keysDb.findMerchantKey(deps.db, caller.merchantId, id, lock);
  // Another mode's key is as unknown as another merchant's.
  if (!row || row.is_sandbox !== caller.isSandbox) throw new AppError("NOT_FOUND", "API key not found");
  return row;
}

export async function listKeys(deps: Pick<Deps, "db" | "clock">, caller: ApiKeyAuth) {
  const now = deps.clock.now();
  return (await keysDb.listMerchantKeys(deps.db, caller.merchantId))
    .filter((row) => row.is_sandbox === caller.isSandbox)
    .map((row) => managedKeyView(row, now));
}

async function insertKey(
  deps: KeyDeps,
  caller: ApiKeyAuth,
  input: { kind: ManagedKind; scopes: readonly Scope[] | null; name: string | null },
) {
  const generated = await generateApiKey(kindFor(input.kind, caller.isSandbox));
  const row = await keysDb.insertManagedKey(deps.db, {
    id: newId("key"),
    merchantId: caller.merchantId,
    kind: kindFor(input.kind, caller.isSandbox),
    isSandbox: caller.isSandbox,
    displayPrefix: generated.displayPrefix,
    hash: generated.hash,
    scopes: input.scopes,
    name: input.name,
    createdBy: caller.keyId,
    createdAt: deps.clock.now(),
  });
  return { row, plaintext: generated.plaintext };
}

/** A new key in the caller's mode; its secret is in this answer and never again. */
export async function createKey(
  deps: KeyDeps,
  caller: ApiKeyAuth,
  input: { kind: ManagedKind; name?: string; scopes?: Scope[] },
) {
  const scopes = grantableScopes(caller, input.kind, input.scopes);
  const now = deps.clock.now();
  const { row, plaintext } = await deps.db.tx(async (tx) => {
    const { used, cap } = await keysDb.lockKeyCount(tx, caller.merchantId, now, deps.config.maxApiKeys);
    if (used >= cap) {
      throw new AppError("LIMIT_EXCEEDED_API_KEYS", `At most ${cap} working keys; revoke one first`);
    }
    return await insertKey({ ...deps, db: tx }, caller, {
      kind: input.kind,
      scopes,
      name: input.name ?? null,
    });
  });
  deps.log.info("key.created", { merchantId: caller.merchantId, keyId: row.id, by: caller.keyId });
  return { ...managedKeyView(row, now), key: plaintext };
}

/**
 * A successor with the same kind, scopes and name; the old key keeps working for `overlapSeconds` (0 ends
 * it now) and then is refused. A rotation is never refused for the key cap: the old key is on its way out.
 */
export async function rotateKey(
  deps: KeyDeps,
  caller: ApiKeyAuth,
  input: { id: string; overlapSeconds?: number },
) {
  const overlap = input.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
  const now = deps.clock.now();
  const result = await deps.db.tx(async (tx) => {
    const old = await ownKey({ ...deps, db: tx }, caller, input.id, true);
    if (statusOf(old, now) !== "ACTIVE") {
      throw new AppError(
        "INVALID_STATE",
        `Only an active key can be rotated; this one is ${statusOf(old, now)}`,
      );
    }
    const kind = managedKind(old.kind);
    const scopes = grantableScopes(caller, kind, kind === "restricted" ? old.scopes as Scope[] : undefined);
    const created = await insertKey({ ...deps, db: tx }, caller, { kind, scopes, name: old.name });
    const expiresAt = new Date(now.getTime() + overlap * 1000);
    await keysDb.markRotated(tx, old.id, created.row.id, expiresAt);
    return { ...created, oldId: old.id, expiresAt };
  });
  keyCacheOf(deps).forgetKey(result.oldId);
  deps.log.info("key.rotated", {
    merchantId: caller.merchantId,
    keyId: result.oldId,
    successorId: result.row.id,
    oldKeyExpiresAt: result.expiresAt.toISOString(),
    by: caller.keyId,
  });
  return {
    ...managedKeyView(result.row, now),
    key: result.plaintext,
    replaces: { id: result.oldId, expiresAt: result.expiresAt.toISOString() },
  };
}

/** Revoked at once (other processes within AUTH_CACHE_TTL_MS). A key cannot revoke itself: use another. */
export async function revokeOwnKey(deps: KeyDeps, caller: ApiKeyAuth, id: string) {
  if (id === caller.keyId) {
    throw new AppError("INVALID_STATE", "A key cannot revoke itself; revoke it with another key");
  }
  const row = await ownKey(deps, caller, id);
  if (managedKind(row.kind) === "secret" && caller.scopes !== null) {
    throw forbidden("Only a secret key may revoke a secret key");
  }
  const revoked = await keysDb.revokeMerchantKey(deps.db, caller.merchantId, id, deps.clock.now());
  keyCacheOf(deps).forgetKey(id);
  deps.log.info("key.revoked", { merchantId: caller.merchantId, keyId: id, by: caller.keyId });
  return managedKeyView(revoked!, deps.clock.now());
}
