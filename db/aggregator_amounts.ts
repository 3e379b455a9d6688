// What a live aggregator reported about a settled pay-in or disbursement (migration 050): asked, paid,
// its fee when reported, settled. Written once per subject, in the transaction that records the outcome.
import type { Db } from "./mod.ts";

export type AggregatorAmountsRow = {
  subject_kind: "PAYIN" | "DISBURSEMENT";
  subject_id: string;
  provider: string;
  currency: string;
  amount_asked: string;
  amount_paid: string | null;
  fee: string | null;
  amount_settled: string | null;
  recorded_at: Date;
};

export type NewAggregatorAmounts = {
  kind: "PAYIN" | "DISBURSEMENT";
  id: string;
  provider: string;
  currency: string;
  asked: string;
  paid?: string | null;
  fee?: string | null;
  settled?: string | null;
  now: Date;
};

/** Records the aggregator's numbers unless some were recorded already (the first final answer is kept). */
export async function recordAggregatorAmounts(db: Db, a: NewAggregatorAmounts): Promise<void> {
  await db.query(
    `INSERT INTO aggregator_amounts (subject_kind, subject_id, provider, currency, amount_asked, amount_paid,
        fee, amount_settled, recorded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (subject_kind, subject_id) DO NOTHING`,
    [a.kind, a.id, a.provider, a.currency, a.asked, a.paid ?? null, a.fee ?? null, a.settled ?? null, a.now],
  );
}

export async function findAggregatorAmounts(
  db: Db,
  kind: "PAYIN" | "DISBURSEMENT",
  ids: string[],
): Promise<Map<string, AggregatorAmountsRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<AggregatorAmountsRow>(
    "SELECT * FROM aggregator_amounts WHERE subject_kind = $1 AND subject_id = ANY($2::text[])",
    [kind, ids],
  );
  return new Map(rows.map((r) => [r.subject_id, r]));
}

/**
 * The aggregator's figures of history rows: pay-ins by their id, withdrawals and bulk items by the owner
 * of the disbursement that paid them (a bulk item retried has one settled disbursement at most).
 */
export async function aggregatorAmountsOfRows(
  db: Db,
  payinIds: string[],
  ownerIds: string[],
): Promise<Map<string, AggregatorAmountsRow>> {
  const out = await findAggregatorAmounts(db, "PAYIN", payinIds);
  if (ownerIds.length > 0) {
    const rows = await db.query<AggregatorAmountsRow & { owner_id: string }>(
      `SELECT a.*, d.owner_id FROM aggregator_amounts a JOIN fiat_disbursements d ON d.id = a.subject_id
        WHERE a.subject_kind = 'DISBURSEMENT' AND d.owner_id = ANY($1::text[])`,
      [ownerIds],
    );
    for (const r of rows) out.set(r.owner_id, r);
  }
  return out;
}
