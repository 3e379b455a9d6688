// SQL for what the scanner saw on chain: transfers to watched addresses, followed blocks, the cursor.
import type { Db } from "./mod.ts";
import type { PayinRow } from "./payins.ts";

export type ChainTransferRow = {
  tx_id: string;
  log_index: number;
  block_number: string;
  block_hash: string;
  from_address: string;
  to_address: string;
  amount: string;
  merchant_id: string;
  kind: "PAYIN" | "DEPOSIT" | "DIRECT";
  /** Null only for DIRECT: a top-up to a merchant's standing address. */
  payin_id: string | null;
  is_sandbox: boolean;
  status: "SEEN" | "CREDITED" | "ORPHANED";
  block_time: Date;
};

export async function insertTransferOnce(
  db: Db,
  t: {
    txId: string;
    logIndex: number;
    blockNumber: number;
    blockHash: string;
    blockTime: Date;
    from: string;
    to: string;
    amount: string;
    merchantId: string;
    kind: "PAYIN" | "DEPOSIT";
    payinId: string;
    isSandbox: boolean;
    now: Date;
  },
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO chain_transfers (tx_id, log_index, block_number, block_hash, block_time, from_address, to_address,
       amount, merchant_id, kind, payin_id, is_sandbox, seen_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (tx_id, log_index) DO NOTHING RETURNING tx_id`,
    [
      t.txId,
      t.logIndex,
      t.blockNumber,
      t.blockHash,
      t.blockTime,
      t.from,
      t.to,
      t.amount,
      t.merchantId,
      t.kind,
      t.payinId,
      t.isSandbox,
      t.now,
    ],
  );
  return rows.length === 1;
}

/**
 * What the scanner judges a transfer with: the pay-in behind a watched address (locked), its state,
 * deadline and network fee, and the address's watch window. Only these columns: a catch-up batch locks
 * thousands of pay-ins, and every column more is parsed thousands of times.
 */
export type WatchedPayin =
  & Pick<PayinRow, "id" | "merchant_id" | "is_sandbox" | "status" | "network_fee" | "expires_at">
  & { watched_hex: string; watched_until: Date };

/**
 * The pay-ins behind any of `addressesHex`, locked FOR UPDATE in id order (one statement per block, and a
 * fixed lock order), each with the address it is watched on and until when.
 */
export async function lockWatchedPayins(db: Db, addressesHex: string[]): Promise<WatchedPayin[]> {
  if (addressesHex.length === 0) return [];
  return await db.query<WatchedPayin>(
    // Driven by the array (a nested loop over two unique indexes), whatever the tables' statistics say.
    `SELECT p.id, p.merchant_id, p.is_sandbox, p.status, p.network_fee, p.expires_at,
            d.address_hex AS watched_hex, d.watch_until AS watched_until
       FROM unnest($1::text[]) AS a(hex)
       JOIN deposit_addresses d ON d.address_hex = a.hex
       JOIN payins p ON p.id = d.payin_id
      ORDER BY p.id FOR UPDATE OF p`,
    [addressesHex],
  );
}

export type NewTransfer = {
  txId: string;
  logIndex: number;
  from: string;
  to: string;
  amount: string;
  merchantId: string;
  kind: "PAYIN" | "DEPOSIT" | "DIRECT";
  /** Null for a direct deposit to a merchant's standing address. */
  payinId: string | null;
  isSandbox: boolean;
  /** The block the transfer is in. */
  block: { number: number; hash: string; time: Date };
};

/**
 * Inserts transfers (of one block or several) in one statement, each at most once ever (txID + log index):
 * answers the keys ("txid:log") of those new here, so a block scanned again after a crash counts nothing twice.
 */
export async function insertTransfers(db: Db, transfers: NewTransfer[], now: Date): Promise<Set<string>> {
  if (transfers.length === 0) return new Set();
  // A transfer orphaned by a reorg and included again by the new branch (the usual case: the same
  // transaction lands in the replacing block) is seen anew, in its new block; any other repeat is ignored.
  // One JSON parameter rather than a dozen typed arrays: the same on PGlite and postgres.js.
  const rows = await db.query<{ tx_id: string; log_index: number }>(
    `INSERT INTO chain_transfers (tx_id, log_index, block_number, block_hash, block_time, from_address,
       to_address, amount, merchant_id, kind, payin_id, is_sandbox, seen_at)
     SELECT t."txId", t."logIndex", t."blockNumber", t."blockHash", t."blockTime", t."from", t."to", t.amount,
            t."merchantId", t.kind, t."payinId", t."isSandbox", $2
       FROM jsonb_to_recordset($1::text::jsonb) AS t("txId" text, "logIndex" integer, "blockNumber" bigint,
            "blockHash" text, "blockTime" timestamptz, "from" text, "to" text, amount numeric,
            "merchantId" text, kind text, "payinId" text, "isSandbox" boolean)
     ON CONFLICT (tx_id, log_index) DO UPDATE SET block_number = EXCLUDED.block_number,
       block_hash = EXCLUDED.block_hash, block_time = EXCLUDED.block_time, kind = EXCLUDED.kind,
       payin_id = EXCLUDED.payin_id, status = 'SEEN', seen_at = EXCLUDED.seen_at
       WHERE chain_transfers.status = 'ORPHANED'
     RETURNING tx_id, log_index`,
    [
      JSON.stringify(transfers.map(({ block, ...t }) => ({
        ...t,
        blockNumber: block.number,
        blockHash: block.hash,
        blockTime: block.time.toISOString(),
      }))),
      now,
    ],
  );
  return new Set(rows.map((r) => `${r.tx_id}:${r.log_index}`));
}

export type ReceivedTotal = { payin_id: string; received: string; first_tx: string };

/** What each pay-in has received so far: the sum of its live transfers, and the first of them. */
export async function receivedTotals(db: Db, payinIds: string[]): Promise<Map<string, ReceivedTotal>> {
  if (payinIds.length === 0) return new Map();
  const rows = await db.query<ReceivedTotal>(
    `SELECT payin_id, sum(amount)::text AS received,
            (array_agg(tx_id ORDER BY block_number, tx_id, log_index))[1] AS first_tx
       FROM chain_transfers
      WHERE payin_id = ANY($1::text[]) AND kind = 'PAYIN' AND status <> 'ORPHANED'
      GROUP BY payin_id`,
    [payinIds],
  );
  return new Map(rows.map((r) => [r.payin_id, r]));
}

/** Sets amounts received (and the tx hash when there is none yet) of many pay-ins in one statement. */
export async function setReceived(db: Db, totals: ReceivedTotal[], now: Date): Promise<void> {
  if (totals.length === 0) return;
  await db.query(
    `UPDATE payins p SET amount_received = m.received::numeric, tx_hash = COALESCE(p.tx_hash, m.first_tx),
            updated_at = $4
       FROM unnest($1::text[], $2::text[], $3::text[]) AS m(id, received, first_tx)
      WHERE p.id = ANY($1::text[]) AND p.id = m.id`,
    [totals.map((t) => t.payin_id), totals.map((t) => t.received), totals.map((t) => t.first_tx), now],
  );
}

/** The live (not orphaned) transfers counting toward a pay-in, oldest first. */
export async function payinTransfers(db: Db, payinId: string): Promise<ChainTransferRow[]> {
  return await db.query<ChainTransferRow>(
    `SELECT * FROM chain_transfers WHERE payin_id = $1 AND kind = 'PAYIN' AND status <> 'ORPHANED'
      ORDER BY block_number, tx_id, log_index`,
    [payinId],
  );
}

/** What late transfers to a pay-in's address (kind DEPOSIT) were already credited, in total. */
export async function creditedLateTotal(db: Db, payinId: string): Promise<string> {
  const [row] = await db.query<{ total: string | null }>(
    `SELECT sum(amount)::text AS total FROM chain_transfers
      WHERE payin_id = $1 AND kind = 'DEPOSIT' AND status = 'CREDITED'`,
    [payinId],
  );
  return row?.total ?? "0";
}

/** Up to `limit` pay-ins whose every open transfer is at least `minConfirmations` deep at `head`, oldest first. */
export async function payinsReadyToSettle(
  db: Db,
  head: number,
  minConfirmations: number,
  limit: number,
): Promise<string[]> {
  const rows = await db.query<{ payin_id: string }>(
    `SELECT payin_id FROM chain_transfers WHERE kind = 'PAYIN' AND status = 'SEEN'
      GROUP BY payin_id HAVING max(block_number) <= $1 ORDER BY max(block_number), payin_id LIMIT $2`,
    [head - minConfirmations + 1, limit],
  );
  return rows.map((r) => r.payin_id);
}

export async function depositsReadyToCredit(
  db: Db,
  head: number,
  minConfirmations: number,
  limit: number,
): Promise<Array<{ tx_id: string; log_index: number }>> {
  return await db.query(
    `SELECT tx_id, log_index FROM chain_transfers WHERE kind IN ('DEPOSIT', 'DIRECT') AND status = 'SEEN' AND block_number <= $1
      ORDER BY block_number LIMIT $2`,
    [head - minConfirmations + 1, limit],
  );
}

export async function lockTransfer(
  db: Db,
  txId: string,
  logIndex: number,
): Promise<ChainTransferRow | undefined> {
  return (await db.query<ChainTransferRow>(
    "SELECT * FROM chain_transfers WHERE tx_id = $1 AND log_index = $2 FOR UPDATE",
    [txId, logIndex],
  ))[0];
}

export async function markCredited(db: Db, keys: Array<{ tx_id: string; log_index: number }>, now: Date) {
  for (const k of keys) {
    await db.query(
      "UPDATE chain_transfers SET status = 'CREDITED', credited_at = $3 WHERE tx_id = $1 AND log_index = $2",
      [k.tx_id, k.log_index, now],
    );
  }
}

/** Orphans the open transfers above the fork point; answers them so their pay-ins can be recomputed. */
export async function orphanTransfersAbove(db: Db, forkPoint: number): Promise<ChainTransferRow[]> {
  return await db.query<ChainTransferRow>(
    `UPDATE chain_transfers SET status = 'ORPHANED' WHERE block_number > $1 AND status = 'SEEN' RETURNING *`,
    [forkPoint],
  );
}

export async function creditedTransfersAbove(db: Db, forkPoint: number): Promise<ChainTransferRow[]> {
  return await db.query<ChainTransferRow>(
    "SELECT * FROM chain_transfers WHERE block_number > $1 AND status = 'CREDITED'",
    [forkPoint],
  );
}

export type ChainBlockRow = { number: string; hash: string; parent_hash: string };

export async function lastBlock(db: Db): Promise<ChainBlockRow | undefined> {
  return (await db.query<ChainBlockRow>(
    "SELECT number, hash, parent_hash FROM chain_blocks ORDER BY number DESC LIMIT 1",
  ))[0];
}

export async function blockAt(db: Db, number: number): Promise<ChainBlockRow | undefined> {
  return (await db.query<ChainBlockRow>(
    "SELECT number, hash, parent_hash FROM chain_blocks WHERE number = $1",
    [number],
  ))[0];
}

/**
 * Records followed blocks (consecutive, oldest first), forgets those more than `keep` below the last and
 * moves the cursor, in one statement (the last of the blocks' transaction).
 */
export async function commitBlocks(
  db: Db,
  network: string,
  blocks: Array<{ number: number; hash: string; parentHash: string; time: Date }>,
  keep: number,
  headSeen: number,
  now: Date,
): Promise<void> {
  await db.query(
    // Blocks the gap audit has not checked yet are kept (when it runs: db/chain_audit.ts).
    `WITH old AS (DELETE FROM chain_blocks WHERE number < $5 AND number <= COALESCE(
            (SELECT audited_through FROM chain_audit WHERE network = $6), number)),
          cursor AS (UPDATE chain_cursor SET head_seen = $7, updated_at = $8 WHERE network = $6)
     INSERT INTO chain_blocks (number, hash, parent_hash, block_time)
     SELECT n, h, p, t::timestamptz FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS b(n, h, p, t)
     ON CONFLICT (number) DO NOTHING`,
    [
      blocks.map((b) => b.number),
      blocks.map((b) => b.hash),
      blocks.map((b) => b.parentHash),
      // ISO strings: postgres.js does not send an array of Dates as timestamptz[].
      blocks.map((b) => b.time.toISOString()),
      blocks[blocks.length - 1].number - keep,
      network,
      headSeen,
      now,
    ],
  );
}

export async function deleteBlocksAbove(db: Db, forkPoint: number): Promise<void> {
  await db.query("DELETE FROM chain_blocks WHERE number > $1", [forkPoint]);
}

/**
 * lockCursor and then lastBlock, sent together (one round trip): the second statement runs after the
 * first has taken the lock, so it sees the last block committed by whoever held the lock before. Undefined
 * while another process holds the lock; `last` undefined when no block was followed yet.
 */
export async function lockCursorAndLastBlock(
  db: Db,
  network: string,
): Promise<{ last: ChainBlockRow | undefined } | undefined> {
  const [locked, last] = await settleAll([lockCursorOnce(db, network), lastBlock(db)] as const);
  if (locked.length) return { last };
  // The cursor row does not exist yet (the very first scan): create it, then read again after the lock.
  if (!(await lockCursor(db, network))) return undefined;
  return { last: await lastBlock(db) };
}

function lockCursorOnce(db: Db, network: string) {
  return db.query<{ head_seen: string }>(
    "SELECT head_seen FROM chain_cursor WHERE network = $1 FOR UPDATE SKIP LOCKED",
    [network],
  );
}

/**
 * Promise.all for statements sent together on one transaction (pipelined by the driver, one round trip),
 * but returning only once every one has settled, so no statement of a failed group is still running when
 * the transaction rolls back. The error thrown is the first statement's own, not the "current transaction
 * is aborted" (25P02) of those sent after it.
 */
export async function settleAll<T extends readonly unknown[]>(
  promises: { [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed.length) {
    const own = failed.find((r) => (r.reason as { code?: unknown })?.code !== "25P02") ?? failed[0];
    throw own.reason;
  }
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * The scanner's mutex across processes: the cursor row, locked for the length of one block's work.
 * Undefined while another process holds it. The row is created the first time only.
 */
export async function lockCursor(db: Db, network: string): Promise<{ head_seen: string } | undefined> {
  const lock = () => lockCursorOnce(db, network);
  const rows = await lock();
  if (rows.length) return rows[0];
  await db.query("INSERT INTO chain_cursor (network) VALUES ($1) ON CONFLICT (network) DO NOTHING", [
    network,
  ]);
  return (await lock())[0];
}
