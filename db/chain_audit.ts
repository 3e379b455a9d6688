// SQL for the gap audit: its watermark per network, and the followed blocks it checks and mends.
import type { Db } from "./mod.ts";

export type AuditState = { audited_through: string; holes_rescanned: string; mismatches: string };

export async function auditState(db: Db, network: string): Promise<AuditState | undefined> {
  const rows = await db.query<AuditState>(
    "SELECT audited_through, holes_rescanned, mismatches FROM chain_audit WHERE network = $1",
    [network],
  );
  return rows[0];
}

/** The lowest followed block: where the very first audit starts. */
export async function lowestBlock(db: Db): Promise<number | null> {
  const rows = await db.query<{ n: string | null }>("SELECT min(number) AS n FROM chain_blocks");
  return rows[0]?.n === null || rows[0]?.n === undefined ? null : Number(rows[0].n);
}

export async function blockHashes(db: Db, from: number, to: number): Promise<Map<number, string>> {
  const rows = await db.query<{ number: string; hash: string }>(
    "SELECT number, hash FROM chain_blocks WHERE number BETWEEN $1 AND $2",
    [from, to],
  );
  return new Map(rows.map((r) => [Number(r.number), r.hash]));
}

/** A block as the chain has it: inserted where the scanner left a hole, corrected where it differed. */
export async function putBlock(
  db: Db,
  b: { number: number; hash: string; parentHash: string; time: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO chain_blocks (number, hash, parent_hash, block_time) VALUES ($1, $2, $3, $4)
     ON CONFLICT (number) DO UPDATE SET hash = EXCLUDED.hash, parent_hash = EXCLUDED.parent_hash,
       block_time = EXCLUDED.block_time, scanned_at = now()`,
    [b.number, b.hash, b.parentHash, b.time],
  );
}

/** Moves the watermark forward only (two audits at once both end where the further one got). */
export async function advanceAudit(
  db: Db,
  network: string,
  through: number,
  found: { holes: number; mismatches: number },
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO chain_audit AS a (network, audited_through, holes_rescanned, mismatches, updated_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (network) DO UPDATE SET audited_through = GREATEST(a.audited_through, EXCLUDED.audited_through),
       holes_rescanned = a.holes_rescanned + EXCLUDED.holes_rescanned,
       mismatches = a.mismatches + EXCLUDED.mismatches, updated_at = EXCLUDED.updated_at`,
    [network, through, found.holes, found.mismatches, now],
  );
}
