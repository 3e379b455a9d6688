// SQL of the balance statement: a merchant's wallet movements in one currency over a period, read from
// the ledger's journals and entries, and the opening balance, all in one snapshot (the caller's
// REPEATABLE READ transaction). Uses journals_merchant_time (migration 029) and entries_account_time (037).
import type { Db } from "./mod.ts";

export type WalletMovementRow = {
  journal_id: string;
  reference: string;
  kind: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  /** created_at in microseconds since the epoch, exact: a page's keyset. */
  at_us: string;
  wallet_id: string;
  rail: string;
  /** The wallet's net movement in this journal (entries summed). */
  amount: string;
  /** What the journal posted to the platform's FEES accounts in the statement's currency. */
  fees: string;
  /** What the journal took from (negative) or gave to the WORLD accounts in this currency. */
  world: string;
};

export type StatementTotalsRow = {
  wallets: Array<{ id: string; rail: string; balance: string }>;
  /** Which side of `from` was summed: the entries before it (the opening), or since it (balance - opening). */
  side: "before" | "since";
  side_sum: string;
  /** The wallets' entries booked in [from, to). */
  in_period: string;
};

/** A keyset time: microseconds since the epoch (a JS Date would lose the journals' microseconds). */
const AT = "('epoch'::timestamptz + $7::bigint * interval '1 microsecond')";
const MOVES = (after: boolean) =>
  `SELECT j.id AS journal_id, j.reference, j.kind, j.metadata, j.created_at,
       (extract(epoch FROM j.created_at) * 1000000)::bigint::text AS at_us,
       e.account_id AS wallet_id, a.rail, sum(e.amount)::text AS amount,
       COALESCE((SELECT sum(f.amount) FROM entries f JOIN accounts fa ON fa.id = f.account_id
                  WHERE f.journal_id = j.id AND fa.kind = 'FEES' AND f.currency = $3), 0)::text AS fees,
       COALESCE((SELECT sum(f.amount) FROM entries f JOIN accounts fa ON fa.id = f.account_id
                  WHERE f.journal_id = j.id AND fa.kind = 'WORLD' AND f.currency = $3), 0)::text AS world
  FROM journals j
  JOIN entries e ON e.journal_id = j.id
  JOIN accounts a ON a.id = e.account_id
 WHERE j.merchant_id = $1 AND j.is_sandbox = $2 AND j.created_at >= $4 AND j.created_at < $5
   ${after ? `AND j.created_at >= ${AT} AND (j.created_at, j.id, e.account_id) > (${AT}, $8, $9)` : ""}
   AND a.kind = 'WALLET' AND a.merchant_id = $1 AND a.is_sandbox = $2 AND a.currency = $3
 GROUP BY j.id, e.account_id, a.rail
 ORDER BY j.created_at, j.id, e.account_id
 LIMIT $6`;

/** Where a page of movements ended: its last row's journal time, journal and wallet. */
export type MovementKeyset = { atUs: string; journalId: string; walletId: string };

/** The period's movements of the currency's wallets, oldest first, after `after`; at most `limit` rows. */
export async function walletMovements(
  db: Db,
  q: {
    merchantId: string;
    isSandbox: boolean;
    currency: string;
    from: Date;
    to: Date;
    limit: number;
    after?: MovementKeyset;
  },
): Promise<WalletMovementRow[]> {
  const params: unknown[] = [q.merchantId, q.isSandbox, q.currency, q.from, q.to, q.limit];
  if (q.after) params.push(q.after.atUs, q.after.journalId, q.after.walletId);
  return await db.query<WalletMovementRow>(MOVES(q.after !== undefined), params);
}

/**
 * The wallets' balances at `from` (opening) and at `to`, read from the ledger's entries by their time
 * (entries_account_time, migration 037: index-only range sums, no journal joined). The opening balance
 * is summed over the shorter side of `from`, judged by time: the entries before it when `from` is nearer
 * the wallets' first entry than now, else the cached balance less the entries since `from` (the ledger
 * keeps both equal in each journal's statement). The balance at `to` is the opening plus the period's
 * entries, read apart from the journals the lines come from, so the lines are checked against it.
 */
export async function statementTotals(
  db: Db,
  q: { merchantId: string; isSandbox: boolean; currency: string; from: Date; to: Date },
): Promise<StatementTotalsRow> {
  const head = (await db.query<
    { wallets: StatementTotalsRow["wallets"]; sum_before_from: boolean; in_period: string }
  >(
    `WITH w AS (
       SELECT id, rail, balance FROM accounts
        WHERE merchant_id = $1 AND is_sandbox = $2 AND kind = 'WALLET' AND currency = $3
     ), first AS (
       SELECT min((SELECT e.created_at FROM entries e WHERE e.account_id = w.id ORDER BY e.created_at LIMIT 1))
              AS at FROM w
     )
     SELECT COALESCE((SELECT jsonb_agg(jsonb_build_object('id', id, 'rail', rail, 'balance', balance::text)
                                       ORDER BY rail DESC) FROM w), '[]'::jsonb) AS wallets,
            COALESCE($4::timestamptz - (SELECT at FROM first) <= now() - $4::timestamptz, true) AS sum_before_from,
            COALESCE((SELECT sum(e.amount) FROM entries e
                       WHERE e.account_id IN (SELECT id FROM w) AND e.created_at >= $4 AND e.created_at < $5), 0)::text
              AS in_period`,
    [q.merchantId, q.isSandbox, q.currency, q.from, q.to],
  ))[0];
  const ids = JSON.stringify(head.wallets.map((w) => w.id));
  const side = head.sum_before_from ? "e.created_at < $2" : "e.created_at >= $2";
  const [{ s }] = await db.query<{ s: string }>(
    `SELECT COALESCE(sum(e.amount), 0)::text AS s FROM entries e
      WHERE e.account_id IN (SELECT jsonb_array_elements_text($1::text::jsonb)) AND ${side}`,
    [ids, q.from],
  );
  return {
    wallets: head.wallets,
    side: head.sum_before_from ? "before" : "since",
    side_sum: s,
    in_period: head.in_period,
  };
}

/** Sum of every entry of the currency's wallets ever booked: the ledger's own balance, from its entries. */
export async function walletEntriesSum(
  db: Db,
  q: { merchantId: string; isSandbox: boolean; currency: string },
): Promise<string> {
  const rows = await db.query<{ s: string }>(
    `SELECT COALESCE(sum(e.amount), 0)::text AS s FROM entries e JOIN accounts a ON a.id = e.account_id
      WHERE a.merchant_id = $1 AND a.is_sandbox = $2 AND a.kind = 'WALLET' AND a.currency = $3`,
    [q.merchantId, q.isSandbox, q.currency],
  );
  return rows[0].s;
}

export type OutboundDetail = {
  id: string;
  kind: string;
  status: string;
  amount: string;
  fee: string;
  debited: string;
  net_amount: string;
  tx_hash: string | null;
  external_ref: string | null;
  bulk_item_id: string | null;
};

/** The payouts and withdrawals named by reserve and release journals, by id. */
export async function outboundDetails(db: Db, ids: string[]): Promise<Map<string, OutboundDetail>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<OutboundDetail>(
    `SELECT id, kind, status, amount::text, fee::text, debited::text, net_amount::text, tx_hash, external_ref,
            bulk_item_id
       FROM outbound_transfers WHERE id IN (SELECT jsonb_array_elements_text($1::text::jsonb))`,
    [JSON.stringify(ids)],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export type PayinDetail = {
  id: string;
  payment_method: string;
  network_fee: string;
  service_fee: string;
  external_ref: string | null;
  status: string;
};

export async function payinDetails(db: Db, ids: string[]): Promise<Map<string, PayinDetail>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<PayinDetail>(
    `SELECT id, payment_method, network_fee::text, service_fee::text, external_ref, status
       FROM payins WHERE id IN (SELECT jsonb_array_elements_text($1::text::jsonb))`,
    [JSON.stringify(ids)],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export type BulkItemDetail = { id: string; batch_id: string; line: number; amount: string; fee: string };

/** The items of the batches named, in line order: what a batch's debit paid for. */
export async function bulkItemsOf(db: Db, batchIds: string[]): Promise<Map<string, BulkItemDetail[]>> {
  const byBatch = new Map<string, BulkItemDetail[]>();
  if (batchIds.length === 0) return byBatch;
  const rows = await db.query<BulkItemDetail>(
    `SELECT id, batch_id, line, amount::text, fee::text FROM bulk_items
      WHERE batch_id IN (SELECT jsonb_array_elements_text($1::text::jsonb)) AND status <> 'INVALID'
      ORDER BY batch_id, line`,
    [JSON.stringify(batchIds)],
  );
  for (const r of rows) byBatch.set(r.batch_id, [...(byBatch.get(r.batch_id) ?? []), r]);
  return byBatch;
}
