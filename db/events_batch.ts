// Events and their webhook deliveries for many events in one statement; the one-event form, and the
// rest of the outbox, are in db/events.ts.
import type { Db } from "./mod.ts";
import type { Owner } from "./webhooks.ts";

/**
 * insertEventWithDeliveries for many events in one statement (the scanner's block moves tens of pay-ins
 * at once): the events, then one delivery per ACTIVE subscribed endpoint of each event's merchant and mode.
 */
export async function insertEventsWithDeliveries(
  db: Db,
  events: Array<Owner & { eventId: string; type: string; dataJson: string; body: string }>,
  now: Date,
  deliveryIdPrefix: string,
): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::text::jsonb)
         AS e("eventId" text, "merchantId" text, "isSandbox" boolean, type text, "dataJson" text, body text)
     ), ev AS (
       INSERT INTO events (id, merchant_id, is_sandbox, is_test, type, data, created_at)
       SELECT "eventId", "merchantId", "isSandbox", false, type, "dataJson"::jsonb, $2::timestamptz FROM input
       RETURNING id
     )
     INSERT INTO webhook_deliveries (id, event_id, endpoint_id, merchant_id, is_sandbox, event_type, body,
       next_attempt_at, created_at, updated_at)
     SELECT $3::text || substr(md5(gen_random_uuid()::text), 1, 16), ev.id, w.id, w.merchant_id,
            w.is_sandbox, i.type, i.body, $2::timestamptz, $2::timestamptz, $2::timestamptz
       FROM ev JOIN input i ON i."eventId" = ev.id
       JOIN webhook_endpoints w ON w.merchant_id = i."merchantId" AND w.is_sandbox = i."isSandbox"
      WHERE w.status = 'ACTIVE' AND i.type = ANY (w.events)
     RETURNING id`,
    [JSON.stringify(events), now, deliveryIdPrefix],
  );
  return rows.map((r) => r.id);
}
