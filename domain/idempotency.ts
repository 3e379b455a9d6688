// Idempotency-Key handling, per the policy in ARCHITECTURE.md: records live 24 h per (merchant, mode,
// key); the same request replays the stored answer, a different one is IDEMPOTENCY_KEY_MISMATCH, and a
// request still running is CONFLICT. This file holds the rules every route shares and the after-commit
// path that pay-in creation uses; money movements use domain/idempotent_money.ts, which completes the
// record inside the movement's own transaction.
import * as store from "../db/idempotency.ts";
import { canonicalJson } from "./canonical_json.ts";
import { sha256Hex, toHex } from "./crypto.ts";
import type { Deps } from "./deps.ts";
import { AppError, AWAITING_SOLIDIFICATION } from "./errors.ts";

export const RECORD_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a first request may run before a retry may take over its key (it crashed mid-flight). */
export const RUNNING_LOCK_MS = 60 * 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A key belongs to one merchant in one mode: a sandbox answer never replays to a live caller. */
export type IdempotencyScope = { merchantId: string; isSandbox: boolean; key: string };
export type IdempotentRequest = IdempotencyScope & { fingerprint: string };
export type StoredAnswer = { status: number; body: string };

/**
 * The key of a request, lower-cased; undefined when none was sent and none is required. An empty header
 * where the key is optional is malformed, not absent: the client meant to send one (an unset variable,
 * say) and must not lose the protection it asked for without knowing.
 */
export function validateIdempotencyKey(key: string | undefined, required: boolean): string | undefined {
  if (key === undefined || key === "") {
    if (required) throw new AppError("MISSING_IDEMPOTENCY_KEY", "Idempotency-Key header required (a UUID)");
    if (key === "") {
      throw new AppError("IDEMPOTENCY_KEY_INVALID", "Idempotency-Key is empty: send a UUID or no header");
    }
    return undefined;
  }
  if (!UUID.test(key)) throw new AppError("IDEMPOTENCY_KEY_INVALID", "Idempotency-Key must be a UUID");
  return key.toLowerCase();
}

/**
 * What makes two requests "the same": method, path, query string (parameters sorted by name, repeated
 * ones kept in their order) and the body as canonical JSON, so spacing and key order do not matter. A
 * body that is not JSON (or not UTF-8) counts by its exact bytes.
 */
export async function requestFingerprint(
  method: string,
  path: string,
  query: URLSearchParams,
  body: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const params = [...query.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return await sha256Hex(JSON.stringify([method.toUpperCase(), path, params, await bodyIdentity(body)]));
}

async function bodyIdentity(body: Uint8Array<ArrayBuffer>): Promise<{ json: string } | { bytes: string }> {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(body);
    // JSON.stringify escapes lone surrogates, so two bodies differing only there stay different.
    return { json: canonicalJson(JSON.parse(text)) };
  } catch {
    return { bytes: toHex(await crypto.subtle.digest("SHA-256", body)) };
  }
}

/**
 * Answers that refuse a request before anything changed are not kept: the client may fix the request,
 * or wait, and retry with the same key. They are the ones about the request itself or who sent it:
 * validation, authentication and permission, the sandbox/live mode check, rate limits, the idempotency
 * checks themselves, and every 5xx. Everything else (a 2xx, or a refusal decided against the merchant's
 * state, such as DUPLICATE_EXTERNAL_REF or INSUFFICIENT_BALANCE) is the key's outcome for 24 hours.
 */
export const REFUSED_BEFORE_CHANGE: ReadonlySet<string> = new Set([
  "VALIDATION_ERROR",
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "INVALID_API_KEY",
  "FORBIDDEN",
  "INSUFFICIENT_SCOPE",
  "SANDBOX_KEY_LIVE_REQUEST",
  "LIVE_KEY_SANDBOX_REQUEST",
  "RATE_LIMITED",
  "RATE_LIMIT_EXCEEDED",
  "MISSING_IDEMPOTENCY_KEY",
  "IDEMPOTENCY_KEY_INVALID",
  "IDEMPOTENCY_KEY_MISMATCH",
  "CONFLICT",
]);

/** Whether an answer becomes the key's outcome (see REFUSED_BEFORE_CHANGE). */
export function isKeptAnswer(status: number, body: string): boolean {
  if (status < 400) return true;
  if (status >= 500 || status === 401 || status === 429) return false;
  const { code, cause } = errorOf(body);
  // A 4xx without a catalogue code did not come from a domain decision: keep the key free. A refusal
  // that only waits for time to pass (credits solidifying) is not an outcome either.
  return code !== undefined && !REFUSED_BEFORE_CHANGE.has(code) && cause !== AWAITING_SOLIDIFICATION;
}

function errorOf(body: string): { code?: string; cause?: string } {
  try {
    const error = JSON.parse(body)?.error;
    return {
      code: typeof error?.code === "string" ? error.code : undefined,
      cause: typeof error?.cause === "string" ? error.cause : undefined,
    };
  } catch {
    return {};
  }
}

/** The checks every path applies to an existing, unexpired record; returns it when it can be replayed. */
export function judgeExisting(
  existing: store.IdempotencyRow,
  fingerprint: string,
  now: Date,
): StoredAnswer | "take-over" {
  if (existing.fingerprint !== fingerprint) {
    throw new AppError("IDEMPOTENCY_KEY_MISMATCH", "This Idempotency-Key was used with different parameters");
  }
  if (existing.state === "DONE") {
    return { status: existing.response_status ?? 200, body: existing.response_body ?? "" };
  }
  if (existing.locked_until > now) {
    throw new AppError(
      "CONFLICT",
      "A request with this Idempotency-Key is still being processed; retry shortly",
    );
  }
  return "take-over";
}

export function recordTimes(now: Date) {
  return {
    now,
    lockedUntil: new Date(now.getTime() + RUNNING_LOCK_MS),
    expiresAt: new Date(now.getTime() + RECORD_TTL_MS),
  };
}

export type BeginResult = { kind: "proceed" } | { kind: "replay"; status: number; body: string };

/**
 * The after-commit path (pay-in creation): claims the key as RUNNING in its own statement; the handler
 * then commits on its own and finishIdempotentRequest completes the record. A crash in between leaves
 * the key RUNNING until its lock expires, after which a retry runs again: acceptable for creating a
 * pay-in, never for moving money (that is what withIdempotentMoney is for).
 */
export async function beginIdempotentRequest(
  deps: Pick<Deps, "db" | "clock">,
  input: IdempotentRequest,
): Promise<BeginResult> {
  const times = recordTimes(deps.clock.now());
  if (await store.insertRunning(deps.db, { ...input, ...times })) return { kind: "proceed" };
  if (await store.takeOver(deps.db, { ...input, ...times })) return { kind: "proceed" };
  const existing = await store.findRecord(deps.db, input);
  // Deleted in between (the first request's answer was not kept): treat as new.
  if (!existing) return await beginIdempotentRequest(deps, input);
  const verdict = judgeExisting(existing, input.fingerprint, times.now);
  // An expired lock was just refused to takeOver by a concurrent retry that won it: that one is running.
  if (verdict === "take-over") {
    throw new AppError(
      "CONFLICT",
      "A request with this Idempotency-Key is still being processed; retry shortly",
    );
  }
  return { kind: "replay", ...verdict };
}

export async function finishIdempotentRequest(
  deps: Pick<Deps, "db">,
  input: IdempotencyScope & StoredAnswer,
): Promise<void> {
  if (isKeptAnswer(input.status, input.body)) await store.completeRecord(deps.db, input);
  else await store.deleteRunning(deps.db, input);
}

export async function purgeExpiredIdempotencyRecords(deps: Pick<Deps, "db" | "clock">): Promise<number> {
  return await store.deleteExpired(deps.db, deps.clock.now());
}
