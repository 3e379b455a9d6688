// The statement that creates USDT pay-ins: for each, the deposit address recorded as claimed by it, the
// pay-in, `payin.created` and its webhook deliveries. One statement (one round trip, one commit) for one
// pay-in or for many created at the same moment (domain/payins/create_batch.ts).
import type { Db } from "./mod.ts";

/** One new USDT pay-in with its claimed address and its `payin.created` event. */
export type ClaimedPayinInsert = {
  id: string;
  merchantId: string;
  isSandbox: boolean;
  amount: string;
  amountExpected: string;
  networkFee: string;
  address: string;
  addressHex: string;
  accountIndex: number;
  derivationIndex: number;
  externalRef: string | null;
  metadata: Record<string, unknown>;
  successUrl: string | null;
  cancelUrl: string | null;
  expiresAt: Date;
  /** Transfers to the address are still looked at until then (late funds). */
  watchUntil: Date;
  now: Date;
  eventId: string;
  /** The event's `data`, serialized once for the event row and the delivery body. */
  eventDataJson: string;
  /** The exact bytes each delivery of the event sends. */
  deliveryBody: string;
  /** Prefix and time part of the delivery ids; the database appends a random part per row. */
  deliveryIdPrefix: string;
};

/**
 * Inserts the pay-ins with their claims, events and deliveries, all or none, and answers the deliveries
 * made (id and event). Rows travel as one JSON parameter, so the statement's text, and its prepared plan,
 * is the same for any number of them. An address already recorded is refused by the primary key of
 * deposit_addresses, and a pay-in whose address is not recorded as claimed by it by the foreign key
 * payins_address_claimed: one address never serves two pay-ins.
 */
export async function insertClaimedPayins(
  db: Db,
  rows: ClaimedPayinInsert[],
): Promise<Array<{ id: string; event_id: string }>> {
  if (rows.length === 0) return [];
  return await db.query<{ id: string; event_id: string }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS r(
         "id" text, "merchantId" text, "isSandbox" boolean, "amount" numeric, "amountExpected" numeric,
         "networkFee" numeric, "address" text, "addressHex" text, "accountIndex" int, "derivationIndex" int,
         "externalRef" text, "metadata" jsonb, "successUrl" text, "cancelUrl" text, "expiresAt" timestamptz,
         "watchUntil" timestamptz, "now" timestamptz, "eventId" text, "eventDataJson" text,
         "deliveryBody" text, "deliveryIdPrefix" text)
     ), claim AS (
       INSERT INTO deposit_addresses (address, address_hex, is_sandbox, account_index, derivation_index,
         payin_id, claimed_at, watch_until)
       SELECT "address", "addressHex", "isSandbox", "accountIndex", "derivationIndex", "id", "now",
              "watchUntil"
         FROM input
     ), created AS (
       INSERT INTO payins (id, merchant_id, is_sandbox, payment_method, status, currency, chain, amount,
         amount_expected, network_fee, address, external_ref, metadata, success_url, cancel_url, expires_at,
         created_at, updated_at)
       SELECT "id", "merchantId", "isSandbox", 'USDT_TRC20', 'AWAITING_PAYMENT', 'USDT_TRC20', 'TRON',
              "amount", "amountExpected", "networkFee", "address", "externalRef", "metadata", "successUrl",
              "cancelUrl", "expiresAt", "now", "now"
         FROM input
       RETURNING id
     ), ev AS (
       INSERT INTO events (id, merchant_id, is_sandbox, is_test, type, data, created_at)
       SELECT i."eventId", i."merchantId", i."isSandbox", false, 'payin.created', i."eventDataJson"::jsonb,
              i."now"
         FROM input i JOIN created c ON c.id = i."id"
       RETURNING id, merchant_id, is_sandbox
     )
     INSERT INTO webhook_deliveries (id, event_id, endpoint_id, merchant_id, is_sandbox, event_type, body,
       next_attempt_at, created_at, updated_at)
     SELECT i."deliveryIdPrefix" || substr(md5(gen_random_uuid()::text), 1, 16), ev.id, w.id, w.merchant_id,
            w.is_sandbox, 'payin.created', i."deliveryBody", i."now", i."now", i."now"
       FROM ev
       JOIN input i ON i."eventId" = ev.id
       JOIN webhook_endpoints w ON w.merchant_id = ev.merchant_id AND w.is_sandbox = ev.is_sandbox
      WHERE w.status = 'ACTIVE' AND 'payin.created' = ANY (w.events)
     RETURNING id, event_id`,
    [JSON.stringify(rows)],
  );
}
