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

export async function insertEventWithDeliveries(
  db: Db,
  e: EventRowInput,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `WITH ev AS (
       INSERT INTO events (id, merchant_id, is_sandbox, is_test, type, data, created_at)
       VALUES ($1, $2, $3, $4, $5::text, $6::text::jsonb, $7::timestamptz) RETURNING id
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
 * Takes the lease on due deliveries whose endpoint is ACTIVE, in one UPDATE: those named by `ids`, and
 * with `pull` > 0 up to that many of the oldest due ones of endpoints not in `capped`. No endpoint gets
 * more than `perEndpoint` leases counting the `busy` ones the caller already holds (its attempts in
 * flight), so a receiver that hangs holds at most that many of the caller's workers and its backlog is
 * passed over, not waited on. Of two concurrent claims of one row the second re-reads it after the first
 * commits, finds the lease taken and skips it: a delivery is never claimed twice.
 */
export async function claimDeliveries(
  db: Db,
  c: {
    ids: string[];
    pull: number;
    busy: Map<string, number>;
    now: Date;
    leaseUntil: Date;
    perEndpoint: number;
    limit: number;
  },
): Promise<ClaimedDelivery[]> {
  if (c.limit <= 0 || (c.ids.length === 0 && c.pull <= 0)) return [];
  const due = `d.status = 'PENDING' AND d.next_attempt_at <= $2::timestamptz
    AND (d.lease_until IS NULL OR d.lease_until <= $2::timestamptz)`;
  const capped = [...c.busy].filter(([, n]) => n >= c.perEndpoint).map(([id]) => id);
  // Only the parts in use, so the common statement stays small (PGlite plans every statement anew).
  const sources = [
    c.ids.length > 0
      ? `SELECT d.id, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
          WHERE d.id = ANY ($1::text[]) AND ${due}`
      : "",
    c.pull > 0
      ? `(SELECT d.id, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
           JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.status = 'ACTIVE'
          WHERE ${due} AND d.endpoint_id <> ALL ($9::text[])
          ORDER BY d.next_attempt_at LIMIT $8)`
      : "",
  ].filter(Boolean).join(" UNION ");
  // `= ANY (ARRAY(...))` makes the planner fetch the picked rows by primary key.
  return await db.query<ClaimedDelivery>(
    `UPDATE webhook_deliveries d SET lease_until = $3::timestamptz, updated_at = $2::timestamptz
       FROM webhook_endpoints w
      WHERE d.id = ANY (ARRAY(
              SELECT r.id FROM (
                SELECT cand.id, COALESCE(busy.n, 0) + row_number()
                         OVER (PARTITION BY cand.endpoint_id ORDER BY cand.next_attempt_at, cand.id) AS slot
                  FROM (${sources}) cand
                  LEFT JOIN unnest($4::text[], $5::int[]) AS busy(endpoint_id, n) USING (endpoint_id)
              ) r WHERE r.slot <= $6 ORDER BY r.slot LIMIT $7))
        AND w.id = d.endpoint_id AND w.status = 'ACTIVE' AND ${due}
        -- Every parameter typed even when its part is left out (Postgres must know each one's type).
        AND cardinality($1::text[]) + cardinality($9::text[]) + $8::int >= 0
     RETURNING d.*, w.url, w.secret_encrypted, w.max_retries, w.retry_interval_seconds`,
    [
      c.ids,
      c.now,
      c.leaseUntil,
      [...c.busy.keys()],
      [...c.busy.values()],
      c.perEndpoint,
      c.limit,
      c.pull,
      capped,
    ],
  );
}

export type AttemptOutcome = {
  id: string;
  /** The lease the attempt was made under: its token. */
  leaseUntil: Date;
  attemptNo: number;
  status: "PENDING" | "SUCCEEDED" | "FAILED";
  nextAttemptAt: Date | null;
  statusCode: number | null;
  error: string | null;
  startedAt: Date;
  durationMs: number;
  now: Date;
};

/**
 * Writes the outcomes of many attempts in one statement (atomic on its own): each delivery's new state,
 * only while the attempt still holds the lease it took (a worker that overran its lease must not
 * overwrite its successor's result), the attempt rows of those recorded, and the end of the failure run
 * of every endpoint that answered. Returns the ids recorded.
 */
export async function recordAttemptOutcomes(db: Db, outcomes: AttemptOutcome[]): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  const json = JSON.stringify(outcomes.map((o) => ({
    id: o.id,
    lease_until: o.leaseUntil.toISOString(),
    attempt_no: o.attemptNo,
    status: o.status,
    next_attempt_at: o.nextAttemptAt?.toISOString() ?? null,
    status_code: o.statusCode,
    error: o.error,
    started_at: o.startedAt.toISOString(),
    duration_ms: o.durationMs,
    now: o.now.toISOString(),
  })));
  const rows = await db.query<{ id: string }>(
    `WITH o AS (
       SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS o(id text, lease_until timestamptz,
         attempt_no int, status text, next_attempt_at timestamptz, status_code int, error text,
         started_at timestamptz, duration_ms int, now timestamptz)
     ), upd AS (
       UPDATE webhook_deliveries d SET status = o.status, attempt_count = o.attempt_no,
         last_status_code = o.status_code, last_error = o.error,
         next_attempt_at = COALESCE(o.next_attempt_at, d.next_attempt_at),
         completed_at = CASE WHEN o.status = 'PENDING' THEN NULL ELSE o.now END,
         lease_until = NULL, updated_at = o.now
       FROM o
       WHERE d.id = ANY ($2::text[]) AND d.id = o.id AND d.status = 'PENDING'
         AND d.lease_until = o.lease_until
       RETURNING d.id, d.endpoint_id
     ), attempts AS (
       INSERT INTO webhook_attempts (delivery_id, attempt_no, started_at, duration_ms, status_code, error,
         succeeded)
       SELECT o.id, o.attempt_no, o.started_at, o.duration_ms, o.status_code, o.error, o.status = 'SUCCEEDED'
         FROM o JOIN upd ON upd.id = o.id
       ON CONFLICT (delivery_id, attempt_no) DO NOTHING
     ), answered AS (
       UPDATE webhook_endpoints w SET consecutive_failures = 0, updated_at = $3::timestamptz
        WHERE w.id IN (SELECT upd.endpoint_id FROM upd JOIN o ON o.id = upd.id WHERE o.status = 'SUCCEEDED')
          AND w.consecutive_failures <> 0
     )
     SELECT id FROM upd`,
    [json, outcomes.map((o) => o.id), outcomes[0].now],
  );
  return new Set(rows.map((r) => r.id));
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
