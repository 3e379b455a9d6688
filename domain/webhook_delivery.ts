// Sending webhooks. A delivery is claimed with a 60 s lease (one UPDATE), signed, POSTed, and its
// outcome recorded under that lease, so any number of processes may run `deliverWebhook` for the same
// id: one sends, the others find nothing to claim. A crash after sending leaves the lease to expire and
// the next claim sends the same body with the same Service-Event-Id, which receivers dedupe on.
import * as eventsDb from "../db/events.ts";
import type { AttemptRow, DeliveryRow } from "../db/events.ts";
import * as endpointsDb from "../db/webhooks.ts";
import type { Owner } from "../db/webhooks.ts";
import { hmacSha256Hex } from "./crypto.ts";
import type { Deps } from "./deps.ts";
import { AppError } from "./errors.ts";
import { defaultTransport, type WebhookTransport } from "./webhook_http.ts";
import { type Resolver, vetConnectTarget } from "./webhook_urls.ts";

export const LEASE_MS = 60_000;
/** ARCHITECTURE.md: an endpoint is disabled after this many consecutive exhausted deliveries. */
export const DISABLE_AFTER_EXHAUSTED = 5;
const USER_AGENT = "PaymentGateway-Webhooks/1.0";

export type DeliveryDeps = Pick<Deps, "db" | "clock" | "config" | "secrets" | "queue" | "log"> & {
  /** DNS for the URL policy; the system resolver unless a test injects one. */
  resolveDns?: Resolver;
  /** The pinned HTTP client (domain/webhook_http.ts) unless a test injects one. */
  transport?: WebhookTransport;
};

export type DeliveryResult =
  | { outcome: "not_claimed" }
  | { outcome: "succeeded"; attemptNo: number; statusCode: number }
  | { outcome: "retrying"; attemptNo: number; statusCode: number | null; error: string; nextAttemptAt: Date }
  | {
    outcome: "failed";
    attemptNo: number;
    statusCode: number | null;
    error: string;
    endpointDisabled: boolean;
  }
  /** Sent, but the lease ran out first and another worker took over: its record stands, not ours. */
  | { outcome: "lease_lost"; attemptNo: number };

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the specification's Signature section. */
export async function signatureHeader(secret: string, body: string, at: Date): Promise<string> {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${await hmacSha256Hex(secret, `${t}.${body}`)}`;
}

/** Exponential backoff from the endpoint's interval: attempt 1 failed -> 1x, 2 -> 2x, 3 -> 4x... */
export function retryDelayMs(retryIntervalSeconds: number, attemptNo: number): number {
  return retryIntervalSeconds * 1000 * 2 ** (attemptNo - 1);
}

/**
 * What the merchant sees of a refused or failed connection: one fixed text each, so the delivery log is
 * no port scanner (refused, reset, TLS failure and unknown host all read the same). The precise cause
 * goes to the operator's log.
 */
export const REFUSED_ERROR = "destination refused by the webhook URL policy";
export const CONNECTION_ERROR = "could not connect to the endpoint or send the request";

async function post(
  deps: DeliveryDeps,
  d: eventsDb.ClaimedDelivery,
  secret: string,
): Promise<{ statusCode: number | null; error: string | null }> {
  const vetted = await vetConnectTarget(deps.config, d.url, deps.resolveDns);
  if ("problem" in vetted) {
    deps.log.warn("webhook destination refused", { deliveryId: d.id, reason: vetted.problem });
    return { statusCode: null, error: REFUSED_ERROR };
  }
  const timeoutMs = deps.config.webhookTimeoutMs;
  try {
    const { status } = await (deps.transport ?? defaultTransport)(vetted.target, {
      headers: {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Service-Signature": await signatureHeader(secret, d.body, deps.clock.now()),
        "Service-Event-Id": d.event_id,
        "Service-Delivery-Id": d.id,
      },
      body: d.body,
      timeoutMs,
    });
    if (status >= 200 && status < 300) return { statusCode: status, error: null };
    const redirect = status >= 300 && status < 400;
    return {
      statusCode: status,
      error: redirect ? `redirect not followed (HTTP ${status})` : `HTTP ${status}`,
    };
  } catch (err) {
    const name = err instanceof Error || err instanceof DOMException ? err.name : "";
    if (name === "TimeoutError" || name === "AbortError") {
      return { statusCode: null, error: `no response within ${timeoutMs} ms` };
    }
    deps.log.warn("webhook connection failed", { deliveryId: d.id, cause: String(err).slice(0, 300) });
    return { statusCode: null, error: CONNECTION_ERROR };
  }
}

/** Claims, sends and records one attempt of a delivery. Safe to call any number of times, concurrently. */
export async function deliverWebhook(deps: DeliveryDeps, deliveryId: string): Promise<DeliveryResult> {
  const claimedAt = deps.clock.now();
  const leaseUntil = new Date(
    claimedAt.getTime() + Math.max(LEASE_MS, deps.config.webhookTimeoutMs + 15_000),
  );
  const d = await eventsDb.claimDelivery(deps.db, deliveryId, claimedAt, leaseUntil);
  if (!d) return { outcome: "not_claimed" };

  const attemptNo = d.attempt_count + 1;
  const startedAt = deps.clock.now();
  const t0 = performance.now();
  const secret = await deps.secrets.decrypt(d.secret_encrypted).catch(() => null);
  // An undecryptable secret (APP_SECRET changed) is a failed attempt, not a job that throws forever.
  const { statusCode, error } = secret === null
    ? { statusCode: null, error: "endpoint secret cannot be decrypted; rotate the secret" }
    : await post(deps, d, secret);
  const durationMs = Math.round(performance.now() - t0);
  const now = deps.clock.now();
  const succeeded = error === null;
  const exhausted = !succeeded && attemptNo >= 1 + d.max_retries;
  const nextAttemptAt = succeeded || exhausted
    ? null
    : new Date(now.getTime() + retryDelayMs(d.retry_interval_seconds, attemptNo));

  const result = await deps.db.tx(async (tx): Promise<DeliveryResult> => {
    const recorded = await eventsDb.recordDeliveryOutcome(tx, {
      id: d.id,
      leaseUntil,
      attemptNo,
      status: succeeded ? "SUCCEEDED" : exhausted ? "FAILED" : "PENDING",
      nextAttemptAt,
      statusCode,
      error,
      now,
    });
    if (!recorded) return { outcome: "lease_lost", attemptNo };
    await eventsDb.insertAttempt(tx, {
      delivery_id: d.id,
      attempt_no: attemptNo,
      started_at: startedAt,
      duration_ms: durationMs,
      status_code: statusCode,
      error,
      succeeded,
    });
    if (succeeded) {
      await endpointsDb.resetEndpointFailures(tx, d.endpoint_id, now);
      return { outcome: "succeeded", attemptNo, statusCode: statusCode! };
    }
    if (exhausted) {
      const ep = await endpointsDb.recordEndpointExhausted(tx, d.endpoint_id, DISABLE_AFTER_EXHAUSTED, now);
      return { outcome: "failed", attemptNo, statusCode, error, endpointDisabled: ep?.status === "DISABLED" };
    }
    const delayMs = nextAttemptAt!.getTime() - now.getTime();
    tx.afterCommit(() => deps.queue.enqueue({ type: "webhook.deliver", deliveryId: d.id }, { delayMs }));
    return { outcome: "retrying", attemptNo, statusCode, error: error!, nextAttemptAt: nextAttemptAt! };
  });

  const fields = { deliveryId: d.id, endpointId: d.endpoint_id, attemptNo, statusCode, durationMs };
  if (result.outcome === "succeeded") deps.log.info("webhook delivered", fields);
  else if (result.outcome === "lease_lost") deps.log.warn("webhook lease lost; outcome not recorded", fields);
  else deps.log.warn("webhook attempt failed", { ...fields, error, outcome: result.outcome });
  if (result.outcome === "failed" && result.endpointDisabled) {
    deps.log.warn("webhook endpoint disabled after consecutive exhausted deliveries", {
      endpointId: d.endpoint_id,
    });
  }
  return result;
}

/** The cron safety net: queue again every due delivery nobody holds (a KV message may have been lost). */
export async function sweepDueDeliveries(
  deps: Pick<Deps, "db" | "clock" | "queue">,
  limit = 100,
): Promise<number> {
  const ids = await eventsDb.listDueDeliveryIds(deps.db, deps.clock.now(), limit);
  for (const deliveryId of ids) await deps.queue.enqueue({ type: "webhook.deliver", deliveryId });
  return ids.length;
}

export type WebhookAttempt = {
  attemptNo: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  succeeded: boolean;
};

export type WebhookDelivery = {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryRow["status"];
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  completedAt: Date | null;
  attempts: WebhookAttempt[];
};

function deliveryView(row: DeliveryRow, attempts: AttemptRow[]): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: row.status === "PENDING" ? row.next_attempt_at : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    attempts: attempts.filter((a) => a.delivery_id === row.id).map((a) => ({
      attemptNo: a.attempt_no,
      startedAt: a.started_at,
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      error: a.error,
      succeeded: a.succeeded,
    })),
  };
}

export async function listWebhookDeliveries(
  deps: Pick<Deps, "db">,
  input: Owner & { endpointId: string; page: number; limit: number; status?: DeliveryRow["status"] },
): Promise<{ items: WebhookDelivery[]; total: number }> {
  const endpoint = await endpointsDb.findEndpoint(deps.db, input, input.endpointId);
  if (!endpoint) throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  const { rows, total } = await eventsDb.listDeliveriesOfEndpoint(deps.db, endpoint.id, {
    limit: input.limit,
    offset: (input.page - 1) * input.limit,
    status: input.status,
  });
  const attempts = await eventsDb.listAttempts(deps.db, rows.map((r) => r.id));
  return { items: rows.map((r) => deliveryView(r, attempts)), total };
}

export async function getWebhookDelivery(
  deps: Pick<Deps, "db">,
  input: Owner & { id: string },
): Promise<WebhookDelivery> {
  const row = await eventsDb.findDelivery(deps.db, input, input.id);
  if (!row) throw new AppError("NOT_FOUND", "Webhook delivery not found");
  return deliveryView(row, await eventsDb.listAttempts(deps.db, [row.id]));
}

/**
 * A FAILED or PENDING delivery becomes due now and is queued; a FAILED one gets one more attempt (its
 * attempt count already exhausts the retries). SUCCEEDED is INVALID_STATE.
 */
export async function retryWebhookDelivery(
  deps: Pick<Deps, "db" | "clock" | "queue">,
  input: Owner & { id: string },
): Promise<WebhookDelivery> {
  const row = await eventsDb.makeDeliveryDue(deps.db, input, input.id, deps.clock.now());
  if (!row) {
    const existing = await eventsDb.findDelivery(deps.db, input, input.id);
    if (!existing) throw new AppError("NOT_FOUND", "Webhook delivery not found");
    throw new AppError(
      "INVALID_STATE",
      `The delivery is ${existing.status}; only FAILED or PENDING can be retried`,
    );
  }
  await deps.queue.enqueue({ type: "webhook.deliver", deliveryId: row.id });
  return deliveryView(row, await eventsDb.listAttempts(deps.db, [row.id]));
}
