// SQL for sweeps: which deposit addresses hold credited USDT not yet swept, and each sweep's progress.
import type { Db } from "./mod.ts";

export type SweepRow = {
  id: string;
  address: string;
  account_index: number;
  derivation_index: number;
  units: string;
  method: "DELEGATE" | "TOPUP";
  steps: string[];
  step: number;
  status: "RUNNING" | "DONE" | "FAILED";
  step_tx_id: string | null;
  step_signed: string | null;
  step_expiration: Date | null;
  delegated_sun: string;
  /** TRX (sun) its STAKE step stakes. */
  stake_sun: string;
  trx_spent_sun: string;
  tx_ids: string[];
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
};

/**
 * Live deposit addresses whose credited, solidified USDT exceeds what finished sweeps took from them, and
 * that no sweep is working on: the candidates, largest first.
 */
export async function sweepCandidates(
  db: Db,
  q: { solidBlock: number; minUsdt: string; limit: number },
): Promise<Array<{ address: string; account_index: number; derivation_index: number; unswept: string }>> {
  return await db.query(
    `SELECT d.address, d.account_index, d.derivation_index, (c.credited - COALESCE(s.swept, 0))::text AS unswept
       FROM (SELECT to_address, sum(amount) AS credited FROM chain_transfers
              WHERE status = 'CREDITED' AND NOT is_sandbox AND block_number <= $1 GROUP BY to_address) c
       -- Pay-in addresses and merchants' standing (direct deposit) addresses alike.
       JOIN (SELECT address, account_index, derivation_index, is_sandbox FROM deposit_addresses
             UNION ALL
             SELECT address, account_index, derivation_index, is_sandbox FROM merchant_deposit_addresses) d
         ON d.address = c.to_address AND NOT d.is_sandbox
       LEFT JOIN (SELECT address, sum(units) / 1000000 AS swept FROM sweeps WHERE status = 'DONE'
                   GROUP BY address) s ON s.address = c.to_address
      WHERE c.credited - COALESCE(s.swept, 0) >= $2::numeric
        AND NOT EXISTS (SELECT 1 FROM sweeps r WHERE r.address = c.to_address AND r.status = 'RUNNING')
      ORDER BY c.credited - COALESCE(s.swept, 0) DESC LIMIT $3`,
    [q.solidBlock, q.minUsdt, q.limit],
  );
}

export async function insertSweep(
  db: Db,
  s: {
    id: string;
    address: string;
    accountIndex: number;
    derivationIndex: number;
    units: string;
    method: "DELEGATE" | "TOPUP";
    steps: string[];
    stakeSun: bigint;
    now: Date;
  },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO sweeps (id, address, account_index, derivation_index, units, method, steps, stake_sun, status,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::text[], $8, 'RUNNING', $9, $9) ON CONFLICT DO NOTHING RETURNING id`,
    [
      s.id,
      s.address,
      s.accountIndex,
      s.derivationIndex,
      s.units,
      s.method,
      s.steps,
      s.stakeSun.toString(),
      s.now,
    ],
  );
  return rows.length === 1;
}

export async function runningSweeps(db: Db, limit: number): Promise<SweepRow[]> {
  return await db.query<SweepRow>(
    `SELECT * FROM sweeps WHERE status = 'RUNNING' ORDER BY created_at LIMIT $1`,
    [limit],
  );
}

export async function findSweep(db: Db, id: string): Promise<SweepRow | undefined> {
  return (await db.query<SweepRow>(`SELECT * FROM sweeps WHERE id = $1`, [id]))[0];
}

/** Stores the current step's signed transaction, unless another process stored one first. */
export async function storeStepTx(
  db: Db,
  s: {
    id: string;
    step: number;
    txId: string;
    signed: string;
    expiration: Date;
    now: Date;
    delegatedSun?: bigint;
  },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE sweeps SET step_tx_id = $3, step_signed = $4, step_expiration = $5, updated_at = $6,
        delegated_sun = COALESCE($7::numeric, delegated_sun)
      WHERE id = $1 AND step = $2 AND status = 'RUNNING' AND step_tx_id IS NULL RETURNING id`,
    [s.id, s.step, s.txId, s.signed, s.expiration, s.now, s.delegatedSun?.toString() ?? null],
  );
  return rows.length === 1;
}

/** The step's transaction is in a block: count its fee, move to the next step (or finish). */
export async function completeStep(
  db: Db,
  s: { id: string; step: number; txId: string; feeSun: bigint; last: boolean; now: Date },
): Promise<SweepRow | undefined> {
  return (await db.query<SweepRow>(
    `UPDATE sweeps SET step = step + 1, step_tx_id = NULL, step_signed = NULL, step_expiration = NULL,
        trx_spent_sun = trx_spent_sun + $4, tx_ids = tx_ids || $3::text,
        status = CASE WHEN $5 THEN 'DONE' ELSE status END,
        finished_at = CASE WHEN $5 THEN $6::timestamptz ELSE finished_at END, updated_at = $6
      WHERE id = $1 AND step = $2 AND step_tx_id = $3 AND status = 'RUNNING' RETURNING *`,
    [s.id, s.step, s.txId, s.feeSun.toString(), s.last, s.now],
  ))[0];
}

/** The step's transaction expired without landing: forget it so the step is signed again. */
export async function dropStepTx(
  db: Db,
  s: { id: string; step: number; txId: string; now: Date },
): Promise<void> {
  await db.query(
    `UPDATE sweeps SET step_tx_id = NULL, step_signed = NULL, step_expiration = NULL, updated_at = $4
      WHERE id = $1 AND step = $2 AND step_tx_id = $3`,
    [s.id, s.step, s.txId, s.now],
  );
}

export async function failSweep(db: Db, s: { id: string; reason: string; feeSun: bigint; now: Date }) {
  return (await db.query<SweepRow>(
    `UPDATE sweeps SET status = 'FAILED', failure_reason = $2, trx_spent_sun = trx_spent_sun + $3,
        finished_at = $4, updated_at = $4 WHERE id = $1 AND status = 'RUNNING' RETURNING *`,
    [s.id, s.reason, s.feeSun.toString(), s.now],
  ))[0];
}

/**
 * Rewrites the steps not yet done of a sweep waiting at `step` with nothing signed (another process may
 * have replanned or signed first: then nothing changes). Answers the sweep as it now stands.
 */
export async function replanSweep(
  db: Db,
  s: { id: string; step: number; method: "DELEGATE" | "TOPUP"; steps: string[]; stakeSun: bigint; now: Date },
): Promise<SweepRow | undefined> {
  await db.query(
    `UPDATE sweeps SET method = $3, steps = $4::text[], stake_sun = $5, updated_at = $6
      WHERE id = $1 AND step = $2 AND status = 'RUNNING' AND step_tx_id IS NULL`,
    [s.id, s.step, s.method, s.steps, s.stakeSun.toString(), s.now],
  );
  return await findSweep(db, s.id);
}
