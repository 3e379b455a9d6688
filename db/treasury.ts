// SQL behind the treasury view: what the ledger says merchants are owed in USDT, and what the recorded
// chain transfers say still sits on deposit addresses.
import type { Db } from "./mod.ts";

/** Live USDT owed to merchants: their wallets plus what accepted payouts and withdrawals still hold. */
export async function usdtOwedToMerchants(db: Db): Promise<{ wallets: string; reserved: string }> {
  const rows = await db.query<{ wallets: string; reserved: string }>(
    `SELECT
       (SELECT COALESCE(sum(balance), 0) FROM accounts
         WHERE kind = 'WALLET' AND currency = 'USDT_TRC20' AND NOT is_sandbox)::text AS wallets,
       -- Reserved money still on our addresses: not sent yet, or sent and not yet in a block.
       (SELECT COALESCE(sum(t.debited), 0) FROM outbound_transfers t
         WHERE NOT t.is_sandbox AND (t.status IN ('PENDING', 'PROCESSING', 'PENDING_REVIEW', 'APPROVED')
           OR (t.status = 'BROADCAST' AND NOT EXISTS (
                 SELECT 1 FROM chain_outgoing o WHERE o.outbound_id = t.id AND NOT o.superseded
                   AND o.block_number IS NOT NULL))))::text AS reserved`,
  );
  return rows[0];
}

/** USDT credited on live deposit addresses and not yet swept: how many addresses, and how much. */
export async function unsweptOnDepositAddresses(db: Db): Promise<{ addresses: number; usdt: string }> {
  const rows = await db.query<{ addresses: number; usdt: string }>(
    `SELECT count(*) FILTER (WHERE u.left_over > 0)::int AS addresses,
            COALESCE(sum(GREATEST(u.left_over, 0)), 0)::text AS usdt
       FROM (SELECT c.to_address, c.credited - COALESCE(s.swept, 0) AS left_over
               FROM (SELECT to_address, sum(amount) AS credited FROM chain_transfers
                      WHERE status = 'CREDITED' AND NOT is_sandbox GROUP BY to_address) c
               LEFT JOIN (SELECT address, sum(units) / 1000000 AS swept FROM sweeps WHERE status = 'DONE'
                           GROUP BY address) s ON s.address = c.to_address) u`,
  );
  return rows[0];
}
