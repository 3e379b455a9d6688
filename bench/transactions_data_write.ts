// The generated history's rows written into the real source tables, one statement per table per batch
// (jsonb_to_recordset), so the transactions projection is filled by its triggers as in production.
import type { Db } from "../db/mod.ts";

export type Batch = {
  payins: Record<string, unknown>[];
  outbound: Record<string, unknown>[];
  conversions: Record<string, unknown>[];
  batches: Record<string, unknown>[];
  items: Record<string, unknown>[];
};

export const emptyBatch = (): Batch => ({
  payins: [],
  outbound: [],
  conversions: [],
  batches: [],
  items: [],
});

export async function writeBatch(db: Db, merchantId: string, isSandbox: boolean, b: Batch): Promise<void> {
  const json = (rows: unknown[]) => JSON.stringify(rows);
  if (b.payins.length) {
    await db.query(
      `INSERT INTO payins (id, merchant_id, is_sandbox, payment_method, status, currency, chain, amount,
         amount_expected, amount_received, service_fee, net_amount, external_ref, metadata, customer_name,
         customer_email, customer_phone, expires_at, created_at, updated_at)
       SELECT id, $1, $2, payment_method, status, currency, chain, amount::numeric, amount::numeric,
              amount_received::numeric, service_fee::numeric, net_amount::numeric, external_ref, metadata,
              customer_name, customer_email, customer_phone, at + interval '30 minutes', at, at
         FROM jsonb_to_recordset($3::text::jsonb) AS r(id text, payment_method text, status text, currency text,
              chain text, amount text, amount_received text, service_fee text, net_amount text,
              external_ref text, metadata jsonb, customer_name text, customer_email text, customer_phone text,
              at timestamptz)`,
      [merchantId, isSandbox, json(b.payins)],
    );
  }
  if (b.outbound.length) {
    await db.query(
      `INSERT INTO outbound_transfers (id, kind, merchant_id, is_sandbox, status, currency, chain, amount, fee,
         debited, net_amount, destination_address, external_ref, metadata, wallet_rail, fiat_channel,
         created_at, updated_at)
       SELECT id, kind, $1, $2, status, currency, chain, amount::numeric, fee::numeric, debited::numeric,
              net_amount::numeric, destination_address, external_ref, metadata, wallet_rail, fiat_channel, at, at
         FROM jsonb_to_recordset($3::text::jsonb) AS r(id text, kind text, status text, currency text, chain text,
              amount text, fee text, debited text, net_amount text, destination_address text, external_ref text,
              metadata jsonb, wallet_rail text, fiat_channel text, at timestamptz)`,
      [merchantId, isSandbox, json(b.outbound)],
    );
  }
  if (b.conversions.length) {
    await db.query(
      `INSERT INTO conversions (id, merchant_id, is_sandbox, status, from_wallet_id, to_wallet_id, from_currency,
         from_rail, to_currency, to_rail, from_amount, rate, rate_as_of, rate_source, to_amount_gross,
         fee_percent, fee, to_amount_net, created_at, confirmed_at)
       SELECT id, $1, $2, status, from_wallet_id, to_wallet_id, from_currency, from_rail, to_currency, to_rail,
              from_amount::numeric, rate::numeric, at, 'generated', to_amount_gross::numeric, 1, fee::numeric,
              to_amount_net::numeric, at, CASE WHEN status = 'CONFIRMED' THEN at END
         FROM jsonb_to_recordset($3::text::jsonb) AS r(id text, status text, from_wallet_id text,
              to_wallet_id text, from_currency text, from_rail text, to_currency text, to_rail text,
              from_amount text, rate text, to_amount_gross text, fee text, to_amount_net text, at timestamptz)`,
      [merchantId, isSandbox, json(b.conversions)],
    );
  }
  if (b.batches.length) {
    await db.query(
      `INSERT INTO bulk_batches (id, merchant_id, is_sandbox, rail, currency, status, created_at, updated_at,
         validated_at, executed_at, attempt)
       SELECT id, $1, $2, rail, currency, status, at, at, at, at, 1
         FROM jsonb_to_recordset($3::text::jsonb) AS r(id text, rail text, currency text, status text, at timestamptz)`,
      [merchantId, isSandbox, json(b.batches)],
    );
  }
  if (b.items.length) {
    await db.query(
      `INSERT INTO bulk_items (id, batch_id, line, wallet_address, amount, fee, recipient_name, reference, status,
         attempt, created_at, updated_at)
       SELECT id, batch_id, line, wallet_address, amount::numeric, fee::numeric, recipient_name, reference, status,
              1, at, at
         FROM jsonb_to_recordset($1::text::jsonb) AS r(id text, batch_id text, line int, wallet_address text,
              amount text, fee text, recipient_name text, reference text, status text, at timestamptz)`,
      [json(b.items)],
    );
  }
}
