// SQL for the gateway's own signed TRON transactions: stored before their first broadcast, matched to
// blocks by the scanner, superseded only when their expiration passed without them on chain.
import type { Db } from "./mod.ts";

export type OutgoingRow = {
  tx_id: string;
  outbound_id: string;
  signed_tx: string;
  expiration: Date;
  created_at: Date;
  last_broadcast_at: Date | null;
  broadcast_count: number;
  /** The node's last refusal code; null when never refused. */
  last_refusal_code: string | null;
  /** Refusals for an unknown reference block (TAPOS_ERROR), which do not count towards failing. */
  tapos_refusals: number;
  block_number: string | null;
  result: string | null;
  superseded: boolean;
};

/** The one live (not superseded) transaction of an outbound item, if it was signed. */
export async function liveOutgoing(db: Db, outboundId: string): Promise<OutgoingRow | undefined> {
  return (await db.query<OutgoingRow>(
    `SELECT * FROM chain_outgoing WHERE outbound_id = $1 AND NOT superseded`,
    [outboundId],
  ))[0];
}

export async function insertOutgoing(
  db: Db,
  o: { txId: string; outboundId: string; signedTx: string; expiration: Date; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO chain_outgoing (tx_id, outbound_id, signed_tx, expiration, created_at) VALUES ($1, $2, $3, $4, $5)`,
    [o.txId, o.outboundId, o.signedTx, o.expiration, o.now],
  );
}

/** Counts a node's answer to a broadcast; `refusal` is its error code when it refused the transaction. */
export async function noteBroadcast(db: Db, txId: string, now: Date, refusal?: string): Promise<void> {
  await db.query(
    `UPDATE chain_outgoing SET last_broadcast_at = $2, broadcast_count = broadcast_count + 1,
            last_refusal_code = COALESCE($3::text, last_refusal_code),
            tapos_refusals = tapos_refusals + CASE WHEN $3::text = $4::text THEN 1 ELSE 0 END
      WHERE tx_id = $1`,
    [txId, now, refusal ?? null, TAPOS_ERROR],
  );
}

/** java-tron's code (Wallet.broadcastTransaction, TaposException) when the reference block is unknown. */
export const TAPOS_ERROR = "TAPOS_ERROR";

/** An item's transactions refused with TAPOS_ERROR and already replaced (superseded). */
export async function taposReplacements(db: Db, outboundId: string): Promise<number> {
  const rows = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM chain_outgoing WHERE outbound_id = $1 AND superseded AND tapos_refusals > 0`,
    [outboundId],
  );
  return Number(rows[0].n);
}

export async function supersede(db: Db, txId: string): Promise<void> {
  await db.query(`UPDATE chain_outgoing SET superseded = true WHERE tx_id = $1 AND block_number IS NULL`, [
    txId,
  ]);
}

/** The scanner's one statement per block: which of our transactions this block holds, and their result. */
export async function markIncluded(
  db: Db,
  included: Array<{ txId: string; result: string; blockNumber: number }>,
): Promise<number> {
  if (included.length === 0) return 0;
  const rows = await db.query(
    `UPDATE chain_outgoing o SET block_number = i.block_number, result = i.result
       FROM unnest($1::text[], $2::text[], $3::bigint[]) AS i(tx_id, result, block_number)
      WHERE o.tx_id = i.tx_id AND NOT o.superseded RETURNING o.tx_id`,
    [included.map((i) => i.txId), included.map((i) => i.result), included.map((i) => i.blockNumber)],
  );
  return rows.length;
}

/** A reorg took these blocks away: their transactions are back to "sent, not seen". */
export async function unmarkAbove(db: Db, forkPoint: number): Promise<number> {
  const rows = await db.query(
    `UPDATE chain_outgoing SET block_number = NULL, result = NULL WHERE block_number > $1 RETURNING tx_id`,
    [forkPoint],
  );
  return rows.length;
}

/** Outbound items whose live transaction sits at or below `matureAtOrBelow`. */
export async function outgoingMatured(
  db: Db,
  matureAtOrBelow: number,
): Promise<Array<{ outbound_id: string; tx_id: string; result: string | null }>> {
  return await db.query(
    `SELECT o.outbound_id, o.tx_id, o.result FROM chain_outgoing o
       JOIN outbound_transfers t ON t.id = o.outbound_id
      WHERE NOT o.superseded AND o.block_number IS NOT NULL AND o.block_number <= $1 AND t.status = 'BROADCAST'`,
    [matureAtOrBelow],
  );
}

/**
 * Serializes signing from one mode's hot wallet across processes until the transaction ends: what it
 * holds and what signed transactions will take from it are judged together with the new signature.
 */
export async function lockHotWallet(db: Db, isSandbox: boolean): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock(hashtext('hot-wallet:' || $1))", [
    isSandbox ? "test" : "live",
  ]);
}

/**
 * USDT (decimal string) that signed transactions of items still in flight will take from the hot wallet
 * and that no block holds yet: the node's balance does not show them. One in a block the scanner has
 * not marked yet is counted although the node already took it (safe: it only makes an item wait).
 */
export async function unminedOutgoingUsdt(db: Db, isSandbox: boolean): Promise<string> {
  const rows = await db.query<{ total: string }>(
    `SELECT COALESCE(sum(t.net_amount), 0)::text AS total FROM chain_outgoing o
       JOIN outbound_transfers t ON t.id = o.outbound_id
      WHERE NOT o.superseded AND o.block_number IS NULL AND t.is_sandbox = $1 AND t.currency = 'USDT_TRC20'
        AND t.status IN ('PROCESSING', 'APPROVED', 'BROADCAST')`,
    [isSandbox],
  );
  return rows[0].total;
}
