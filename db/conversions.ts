// SQL of wallet-to-wallet conversions (migration 017).
import type { Db } from "./mod.ts";

export type ConversionRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  status: "CONFIRMED" | "FAILED";
  from_wallet_id: string;
  to_wallet_id: string;
  from_currency: string;
  from_rail: string;
  to_currency: string;
  to_rail: string;
  from_amount: string;
  rate: string;
  rate_as_of: Date;
  rate_source: string;
  to_amount_gross: string;
  fee_percent: string;
  fee: string;
  to_amount_net: string;
  journal_id: string | null;
  failure_reason: string | null;
  created_at: Date;
  confirmed_at: Date | null;
};

export type NewConversion = Omit<ConversionRow, "created_at" | "confirmed_at" | "failure_reason"> & {
  now: Date;
};

const COLUMNS = `id, merchant_id, is_sandbox, status, from_wallet_id, to_wallet_id, from_currency, from_rail,
  to_currency, to_rail, from_amount::text AS from_amount, rate::text AS rate, rate_as_of, rate_source,
  to_amount_gross::text AS to_amount_gross, fee_percent::text AS fee_percent, fee::text AS fee,
  to_amount_net::text AS to_amount_net, journal_id, failure_reason, created_at, confirmed_at`;

export async function insertConversion(db: Db, c: NewConversion): Promise<ConversionRow> {
  return (await db.query<ConversionRow>(
    `INSERT INTO conversions (id, merchant_id, is_sandbox, status, from_wallet_id, to_wallet_id, from_currency,
       from_rail, to_currency, to_rail, from_amount, rate, rate_as_of, rate_source, to_amount_gross,
       fee_percent, fee, to_amount_net, journal_id, created_at, confirmed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
       CASE WHEN $4 = 'CONFIRMED' THEN $20::timestamptz END)
     RETURNING ${COLUMNS}`,
    [
      c.id,
      c.merchant_id,
      c.is_sandbox,
      c.status,
      c.from_wallet_id,
      c.to_wallet_id,
      c.from_currency,
      c.from_rail,
      c.to_currency,
      c.to_rail,
      c.from_amount,
      c.rate,
      c.rate_as_of,
      c.rate_source,
      c.to_amount_gross,
      c.fee_percent,
      c.fee,
      c.to_amount_net,
      c.journal_id,
      c.now,
    ],
  ))[0];
}

export async function listConversions(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  q: { limit: number; offset: number },
): Promise<{ rows: ConversionRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db.query<ConversionRow>(
      `SELECT ${COLUMNS} FROM conversions WHERE merchant_id = $1 AND is_sandbox = $2
        ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [scope.merchantId, scope.isSandbox, q.limit, q.offset],
    ),
    db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM conversions WHERE merchant_id = $1 AND is_sandbox = $2",
      [scope.merchantId, scope.isSandbox],
    ),
  ]);
  return { rows, total: count[0].n };
}

/** The platform's FX accounts with their derived balances (the exposure from conversions), per mode. */
export async function fxExposure(
  db: Db,
  isSandbox: boolean,
): Promise<Array<{ currency: string; rail: string; balance: string }>> {
  return await db.query(
    `SELECT currency, rail, balance::text AS balance FROM account_balances
      WHERE merchant_id IS NULL AND kind = 'FX' AND is_sandbox = $1 ORDER BY currency, rail`,
    [isSandbox],
  );
}

/** A wallet of the merchant in the mode, by id; another merchant's or mode's wallet is not found. */
export async function findOwnWallet(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  walletId: string,
): Promise<{ id: string; currency: string; rail: string; balance: string } | undefined> {
  return (await db.query<{ id: string; currency: string; rail: string; balance: string }>(
    `SELECT id, currency, rail, balance::text AS balance FROM accounts
      WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3 AND kind = 'WALLET'`,
    [walletId, scope.merchantId, scope.isSandbox],
  ))[0];
}
