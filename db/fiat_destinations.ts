// SQL of fiat_destinations: a merchant's mobile money numbers and bank accounts for XOF withdrawals.
import type { Db } from "./mod.ts";

export type FiatDestinationRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  kind: "MOMO" | "BANK";
  label: string | null;
  is_primary: boolean;
  momo_operator: string | null;
  momo_phone: string | null;
  bank_name: string | null;
  bank_account_name: string | null;
  bank_iban: string | null;
  bank_account_number: string | null;
  bank_code: string | null;
  created_at: Date;
  updated_at: Date;
  available_at: Date;
  deleted_at: Date | null;
};

export type FiatDetails = {
  momo_operator: string | null;
  momo_phone: string | null;
  bank_name: string | null;
  bank_account_name: string | null;
  bank_iban: string | null;
  bank_account_number: string | null;
  bank_code: string | null;
};

const DETAILS = [
  "momo_operator",
  "momo_phone",
  "bank_name",
  "bank_account_name",
  "bank_iban",
  "bank_account_number",
  "bank_code",
] as const;

type Scope = { merchantId: string; isSandbox: boolean };

/** Serializes one merchant's destination changes in one mode (primary flag, first registration). */
export async function lockMerchantDestinations(db: Db, scope: Scope): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 16))`, [
    `fiat_destinations:${scope.merchantId}:${scope.isSandbox}`,
  ]);
}

export async function insertFiatDestination(
  db: Db,
  d: Scope & {
    id: string;
    kind: string;
    label: string | null;
    isPrimary: boolean;
    details: FiatDetails;
    now: Date;
    availableAt: Date;
  },
): Promise<FiatDestinationRow> {
  return (await db.query<FiatDestinationRow>(
    `INSERT INTO fiat_destinations (id, merchant_id, is_sandbox, kind, label, is_primary, ${
      DETAILS.join(", ")
    },
       created_at, updated_at, available_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $15) RETURNING *`,
    [
      d.id,
      d.merchantId,
      d.isSandbox,
      d.kind,
      d.label,
      d.isPrimary,
      ...DETAILS.map((k) => d.details[k]),
      d.now,
      d.availableAt,
    ],
  ))[0];
}

export async function findFiatDestination(
  db: Db,
  scope: Scope,
  id: string,
): Promise<FiatDestinationRow | undefined> {
  return (await db.query<FiatDestinationRow>(
    `SELECT * FROM fiat_destinations WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3 AND deleted_at IS NULL`,
    [id, scope.merchantId, scope.isSandbox],
  ))[0];
}

export async function findPrimaryFiatDestination(
  db: Db,
  scope: Scope,
): Promise<FiatDestinationRow | undefined> {
  return (await db.query<FiatDestinationRow>(
    `SELECT * FROM fiat_destinations WHERE merchant_id = $1 AND is_sandbox = $2 AND is_primary AND deleted_at IS NULL`,
    [scope.merchantId, scope.isSandbox],
  ))[0];
}

export async function countFiatDestinations(db: Db, scope: Scope): Promise<number> {
  return (await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM fiat_destinations WHERE merchant_id = $1 AND is_sandbox = $2 AND deleted_at IS NULL`,
    [scope.merchantId, scope.isSandbox],
  ))[0].n;
}

export async function listFiatDestinations(
  db: Db,
  scope: Scope,
  q: { kind?: string; limit: number; offset: number },
): Promise<{ rows: FiatDestinationRow[]; total: number }> {
  const args = [scope.merchantId, scope.isSandbox, q.kind ?? null];
  const where =
    `merchant_id = $1 AND is_sandbox = $2 AND deleted_at IS NULL AND ($3::text IS NULL OR kind = $3)`;
  const [rows, count] = await Promise.all([
    db.query<FiatDestinationRow>(
      `SELECT * FROM fiat_destinations WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
      [...args, q.limit, q.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM fiat_destinations WHERE ${where}`, args),
  ]);
  return { rows, total: count[0].n };
}

export async function clearPrimary(db: Db, scope: Scope, now: Date): Promise<void> {
  await db.query(
    `UPDATE fiat_destinations SET is_primary = false, updated_at = $3
      WHERE merchant_id = $1 AND is_sandbox = $2 AND is_primary AND deleted_at IS NULL`,
    [scope.merchantId, scope.isSandbox, now],
  );
}

export async function updateFiatDestination(
  db: Db,
  id: string,
  patch: Partial<
    FiatDetails & { label: string | null; is_primary: boolean; available_at: Date; deleted_at: Date }
  >,
  now: Date,
): Promise<FiatDestinationRow> {
  const keys = [...DETAILS, "label", "is_primary", "available_at", "deleted_at"] as const;
  const params: unknown[] = [id, now];
  const sets = keys.filter((k) => k in patch).map((k) => {
    params.push(patch[k]);
    return `${k} = $${params.length}`;
  });
  return (await db.query<FiatDestinationRow>(
    `UPDATE fiat_destinations SET updated_at = $2${
      sets.map((s) => `, ${s}`).join("")
    } WHERE id = $1 RETURNING *`,
    params,
  ))[0];
}

/** The oldest remaining destination: it becomes primary when the primary is deleted. */
export async function oldestFiatDestination(db: Db, scope: Scope): Promise<FiatDestinationRow | undefined> {
  return (await db.query<FiatDestinationRow>(
    `SELECT * FROM fiat_destinations WHERE merchant_id = $1 AND is_sandbox = $2 AND deleted_at IS NULL
      ORDER BY created_at, id LIMIT 1`,
    [scope.merchantId, scope.isSandbox],
  ))[0];
}
