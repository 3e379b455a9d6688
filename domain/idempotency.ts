// Idempotency-Key handling, per the policy in ARCHITECTURE.md: records live 24 h per (merchant, key);
// the same request replays the stored answer, a different one is IDEMPOTENCY_KEY_MISMATCH, and a
// request still running is CONFLICT.
import * as store from "../db/idempotency.ts";
import { sha256Hex } from "./crypto.ts";
import type { Deps } from "./deps.ts";
import { AppError } from "./errors.ts";

export const RECORD_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a first request may run before a retry may take over its key (it crashed mid-flight). */
export const RUNNING_LOCK_MS = 60 * 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function validateIdempotencyKey(key: string | undefined, required: boolean): string | undefined {
  if (key === undefined || key === "") {
    if (required) throw new AppError("MISSING_IDEMPOTENCY_KEY", "Idempotency-Key header required (a UUID)");
    return undefined;
  }
  if (!UUID.test(key)) throw new AppError("IDEMPOTENCY_KEY_INVALID", "Idempotency-Key must be a UUID");
  return key.toLowerCase();
}

export function requestFingerprint(method: string, path: string, body: string): Promise<string> {
  return sha256Hex(`${method.toUpperCase()} ${path}\n${body}`);
}

export type BeginResult = { kind: "proceed" } | { kind: "replay"; status: number; body: string };

export async function beginIdempotentRequest(
  deps: Pick<Deps, "db" | "clock">,
  input: { merchantId: string; key: string; fingerprint: string },
): Promise<BeginResult> {
  const now = deps.clock.now();
  const times = {
    now,
    lockedUntil: new Date(now.getTime() + RUNNING_LOCK_MS),
    expiresAt: new Date(now.getTime() + RECORD_TTL_MS),
  };
  if (await store.insertRunning(deps.db, { ...input, ...times })) return { kind: "proceed" };
  if (await store.takeOver(deps.db, { ...input, ...times })) return { kind: "proceed" };
  const existing = await store.findRecord(deps.db, input.merchantId, input.key);
  // Deleted in between (the first request failed with a 5xx): treat as new.
  if (!existing) return await beginIdempotentRequest(deps, input);
  if (existing.fingerprint !== input.fingerprint) {
    throw new AppError("IDEMPOTENCY_KEY_MISMATCH", "This Idempotency-Key was used with different parameters");
  }
  if (existing.state === "RUNNING") {
    throw new AppError(
      "CONFLICT",
      "A request with this Idempotency-Key is still being processed; retry shortly",
    );
  }
  return { kind: "replay", status: existing.response_status ?? 200, body: existing.response_body ?? "" };
}

export async function finishIdempotentRequest(
  deps: Pick<Deps, "db">,
  input: { merchantId: string; key: string; status: number; body: string },
): Promise<void> {
  // Server errors are not remembered: the client may retry the same key once we are healthy again.
  if (input.status >= 500) await store.deleteRecord(deps.db, input.merchantId, input.key);
  else await store.completeRecord(deps.db, input);
}

export async function purgeExpiredIdempotencyRecords(deps: Pick<Deps, "db" | "clock">): Promise<number> {
  return await store.deleteExpired(deps.db, deps.clock.now());
}
