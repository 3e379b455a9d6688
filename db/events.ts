// SQL for events and their webhook outbox: one delivery row per (event, endpoint), its attempts, and the
// lease that lets several processes deliver without sending the same attempt twice.
import type { Db } from "./mod.ts";
import type { Owner } from "./webhooks.ts";

export type DeliveryRow = {
  id: string;
  event_id: string;
  endpoint_id: string;
  merchant_id: string;
  is_sandbox: boolean;
  event_type: string;
  body: string;
  status: "PENDING" | "SUCCEEDED" | "FAILED";
  attempt_count: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type AttemptRow = {
  delivery_id: string;
  attempt_no: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  succeeded: boolean;
};

/**
 * The event and its deliveries in one statement (one round trip, and atomic even outside a transaction).
 * Without `onlyEndpointId` the deliveries go to every ACTIVE endpoint of the merchant and mode subscribed
 * to the type; with it, to that endpoint alone (test events). Delivery ids are `idPrefix` (the prefix and
 * time part of a fresh id) plus 16 random hex characters drawn per row.
 */
export type EventRowInput = Owner & {
  eventId: string;
  type: string;
  isTest: boolean;
  dataJson: string;
  body: string;
  now: Date;
  deliveryIdPrefix: string;
  onlyEndpointId?: string;
};

/**
 * `alongside` is a data-modifying statement (placeholders from $11) that must happen atomically with the
 * event, e.g. the row the event reports: it runs as a CTE of the same statement, and the event is only
 * written when it produced a row.
 */
export async function insertEventWithDeliveries(
  db: Db,
  e: EventRowInput,
  alongside?: { sql: string; params: unknown[] },
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `WITH ${alongside ? `src AS (${alongside.sql}), ` : ""}ev AS (
       INSERT INTO events (id, merchant_id, is_sandbox, is_test, type, data, created_at)
       SELECT $1, $2, $3, $4, $5::text, $6::text::jsonb, $7::timestamptz ${
      alongside ? "FROM src" : ""
    } RETURNING id
     )
     INSERT INTO webhook_deliveries (id, event_id, endpoint_id, merchant_id, is_sandbox, event_type, body,
       next_attempt_at, created_at, updated_at)
     SELECT $8::text || substr(md5(gen_random_uuid()::text), 1, 16), ev.id, w.id, w.merchant_id,
            w.is_sandbox, $5::text, $9::text, $7::timestamptz, $7::timestamptz, $7::timestamptz
       FROM ev, webhook_endpoints w
      WHERE w.merchant_id = $2 AND w.is_sandbox = $3
        AND CASE WHEN $10::text IS NULL THEN w.status = 'ACTIVE' AND $5::text = ANY (w.events)
                 ELSE w.id = $10::text END
     RETURNING id`,
    [
      e.eventId,
      e.merchantId,
      e.isSandbox,
      e.isTest,
      e.type,
      e.dataJson,
      e.now,
      e.deliveryIdPrefix,
      e.body,
      e.onlyEndpointId ?? null,
      ...(alongside?.params ?? []),
    ],
  );
  return rows.map((r) => r.id);
}

export type ClaimedDelivery = DeliveryRow & {
  url: string;
  secret_encrypted: string;
  max_retries: number;
  retry_interval_seconds: number;
};

/**
 * Takes the lease on a due delivery whose endpoint is ACTIVE. One UPDATE: of two concurrent callers the
 * second re-reads the row after the first commits, finds the lease taken and claims nothing.
 */
export async function claimDelivery(
  db: Db,
  id: string,
  now: Date,
  leaseUntil: Date,
): Promise<ClaimedDelivery | undefined> {
  return (await db.query<ClaimedDelivery>(
    `UPDATE webhook_deliveries d SET lease_until = $3::timestamptz, updated_at = $2::timestamptz
       FROM webhook_endpoints w
      WHERE d.id = $1 AND w.id = d.endpoint_id AND w.status = 'ACTIVE'
        AND d.status = 'PENDING' AND d.next_attempt_at <= $2::timestamptz
        AND (d.lease_until IS NULL OR d.lease_until <= $2::timestamptz)
     RETURNING d.*, w.url, w.secret_encrypted, w.max_retries, w.retry_interval_seconds`,
    [id, now, leaseUntil],
  ))[0];
}

/**
 * Writes the outcome of an attempt, only while this caller still holds the lease it took (`leaseUntil`
 * is the token): a worker that overran its lease must not overwrite its successor's result.
 */
export async function recordDeliveryOutcome(
  db: Db,
  o: {
    id: string;
    leaseUntil: Date;
    attemptNo: number;
    status: "PENDING" | "SUCCEEDED" | "FAILED";
    nextAttemptAt: Date | null;
    statusCode: number | null;
    error: string | null;
    now: Date;
  },
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE webhook_deliveries SET status = $3, attempt_count = $4, last_status_code = $5, last_error = $6,
       next_attempt_at = COALESCE($7::timestamptz, next_attempt_at),
       completed_at = CASE WHEN $3 = 'PENDING' THEN NULL ELSE $8::timestamptz END,
       lease_until = NULL, updated_at = $8::timestamptz
     WHERE id = $1 AND status = 'PENDING' AND lease_until = $2::timestamptz RETURNING id`,
    [o.id, o.leaseUntil, o.status, o.attemptNo, o.statusCode, o.error, o.nextAttemptAt, o.now],
  );
  return rows.length === 1;
}

export async function insertAttempt(db: Db, a: AttemptRow): Promise<void> {
  await db.query(
    `INSERT INTO webhook_attempts (delivery_id, attempt_no, started_at, duration_ms, status_code, error, succeeded)
     VALUES ($1, $2, $3::timestamptz, $4, $5, $6, $7) ON CONFLICT (delivery_id, attempt_no) DO NOTHING`,
    [a.delivery_id, a.attempt_no, a.started_at, a.duration_ms, a.status_code, a.error, a.succeeded],
  );
}

export async function findDelivery(db: Db, owner: Owner, id: string): Promise<DeliveryRow | undefined> {
  return (await db.query<DeliveryRow>(
    "SELECT * FROM webhook_deliveries WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3",
    [id, owner.merchantId, owner.isSandbox],
  ))[0];
}

export async function listDeliveriesOfEndpoint(
  db: Db,
  endpointId: string,
  page: { limit: number; offset: number; status?: string },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const rows = await db.query<DeliveryRow & { total: number }>(
    `SELECT *, count(*) OVER ()::int AS total FROM webhook_deliveries
      WHERE endpoint_id = $1 AND ($4::text IS NULL OR status = $4::text)
      ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
    [endpointId, page.limit, page.offset, page.status ?? null],
  );
  let total = rows[0]?.total;
  if (total === undefined) {
    total = (await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries
        WHERE endpoint_id = $1 AND ($2::text IS NULL OR status = $2::text)`,
      [endpointId, page.status ?? null],
    ))[0].n;
  }
  return { rows, total };
}

export async function listAttempts(db: Db, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return await db.query<AttemptRow>(
    `SELECT delivery_id, attempt_no, started_at, duration_ms, status_code, error, succeeded
       FROM webhook_attempts WHERE delivery_id = ANY ($1::text[]) ORDER BY delivery_id, attempt_no`,
    [deliveryIds],
  );
}

/** A manual retry: a PENDING or FAILED delivery becomes due now. A lease in force is left alone. */
export async function makeDeliveryDue(
  db: Db,
  owner: Owner,
  id: string,
  now: Date,
): Promise<DeliveryRow | undefined> {
  return (await db.query<DeliveryRow>(
    `UPDATE webhook_deliveries SET status = 'PENDING', next_attempt_at = $4::timestamptz,
       completed_at = NULL, updated_at = $4::timestamptz
     WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3 AND status IN ('PENDING', 'FAILED')
     RETURNING *`,
    [id, owner.merchantId, owner.isSandbox, now],
  ))[0];
}

/** Due deliveries nobody holds, on ACTIVE endpoints, optionally of one endpoint: the sweep's work. */
export async function listDueDeliveryIds(
  db: Db,
  now: Date,
  limit: number,
  endpointId?: string,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.status = 'PENDING' AND d.next_attempt_at <= $1::timestamptz
        AND (d.lease_until IS NULL OR d.lease_until <= $1::timestamptz) AND w.status = 'ACTIVE'
        AND ($3::text IS NULL OR d.endpoint_id = $3::text)
      ORDER BY d.next_attempt_at LIMIT $2`,
    [now, limit, endpointId ?? null],
  );
  return rows.map((r) => r.id);
}
