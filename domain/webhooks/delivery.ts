// Sending webhooks. A delivery is claimed with a lease (one UPDATE), signed, POSTed to the address its URL
// was vetted for, and its outcome recorded under that lease, so any number of processes may run
// `deliverWebhook` for the same id: one sends, the others find nothing to claim. A crash after sending
// leaves the lease to expire and the next claim sends the same body with the same Service-Event-Id, which
// receivers dedupe on. At volume the queue listener goes through the pump (domain/webhooks/pump.ts), which
// does the same steps (domain/webhooks/attempt.ts) for many deliveries at once.
import * as eventsDb from "../../db/events.ts";
import type { AttemptRow, DeliveryRow } from "../../db/events.ts";
import * as endpointsDb from "../../db/webhooks.ts";
import type { Owner } from "../../db/webhooks.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import {
  attemptDelivery,
  type DeliveryDeps,
  type DeliveryResult,
  leaseUntil,
  recordAttempts,
} from "./attempt.ts";

export {
  CONNECTION_ERROR,
  type DeliveryDeps,
  type DeliveryResult,
  DISABLE_AFTER_EXHAUSTED,
  LEASE_MS,
  REFUSED_ERROR,
  retryDelayMs,
  signatureHeader,
  UNRESOLVED_ERROR,
} from "./attempt.ts";

/**
 * At most this many attempts to one endpoint are in flight at a time in a process: a receiver that hangs
 * holds that many of the pump's workers, never all of them, and one merchant's dead endpoint never
 * delays another's deliveries. The rest wait, due, for a slot (the pump claims them as slots free).
 */
export const PER_ENDPOINT_IN_FLIGHT = 16;

/** Claims, sends and records one attempt of a delivery. Safe to call any number of times, concurrently. */
export async function deliverWebhook(deps: DeliveryDeps, deliveryId: string): Promise<DeliveryResult> {
  const claimedAt = deps.clock.now();
  const lease = leaseUntil(deps, claimedAt);
  const [d] = await eventsDb.claimDeliveries(deps.db, {
    ids: [deliveryId],
    pull: 0,
    busy: new Map(),
    now: claimedAt,
    leaseUntil: lease,
    perEndpoint: PER_ENDPOINT_IN_FLIGHT,
    limit: 1,
  });
  if (!d) return { outcome: "not_claimed" };
  const attempt = await attemptDelivery(deps, d, lease);
  return (await recordAttempts(deps, [attempt])).get(d.id)!;
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
