// SQL of fiat_disbursements: XOF sent out through a provider, one row per attempt at paying someone.
import type { Db } from "./mod.ts";

export type DisbursementStatus =
  | "QUEUED"
  | "SENDING"
  | "PENDING"
  | "AWAITING_OPERATOR"
  | "SUCCEEDED"
  | "FAILED";

export type DisbursementRow = {
  id: string;
  reference: string;
  owner_kind: "WITHDRAWAL" | "BULK_ITEM" | "REFUND";
  owner_id: string;
  merchant_id: string;
  is_sandbox: boolean;
  channel: "MOMO" | "BANK";
  amount: string;
  destination: Record<string, unknown>;
  status: DisbursementStatus;
  provider: string | null;
  provider_ref: string | null;
  failure_reason: string | null;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
  finished_at: Date | null;
};

export async function insertDisbursement(
  db: Db,
  d: {
    id: string;
    reference: string;
    ownerKind: string;
    ownerId: string;
    merchantId: string;
    isSandbox: boolean;
    channel: string;
    amount: string;
    destination: Record<string, unknown>;
    status: DisbursementStatus;
    now: Date;
  },
): Promise<DisbursementRow> {
  return (await db.query<DisbursementRow>(
    `INSERT INTO fiat_disbursements (id, reference, owner_kind, owner_id, merchant_id, is_sandbox, channel, amount,
       destination, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::jsonb, $10, $11, $11) RETURNING *`,
    [
      d.id,
      d.reference,
      d.ownerKind,
      d.ownerId,
      d.merchantId,
      d.isSandbox,
      d.channel,
      d.amount,
      JSON.stringify(d.destination),
      d.status,
      d.now,
    ],
  ))[0];
}

export async function findDisbursement(db: Db, id: string): Promise<DisbursementRow | undefined> {
  return (await db.query<DisbursementRow>(`SELECT * FROM fiat_disbursements WHERE id = $1`, [id]))[0];
}

export async function findDisbursementByReference(
  db: Db,
  reference: string,
): Promise<DisbursementRow | undefined> {
  return (await db.query<DisbursementRow>(`SELECT * FROM fiat_disbursements WHERE reference = $1`, [
    reference,
  ]))[0];
}

export async function lockDisbursement(db: Db, id: string): Promise<DisbursementRow | undefined> {
  return (await db.query<DisbursementRow>(`SELECT * FROM fiat_disbursements WHERE id = $1 FOR UPDATE`, [id]))[
    0
  ];
}

export async function latestDisbursementOf(
  db: Db,
  owner: { kind: string; id: string },
): Promise<DisbursementRow | undefined> {
  return (await db.query<DisbursementRow>(
    `SELECT * FROM fiat_disbursements WHERE owner_kind = $1 AND owner_id = $2 ORDER BY created_at DESC, id DESC LIMIT 1`,
    [owner.kind, owner.id],
  ))[0];
}

export async function updateDisbursement(
  db: Db,
  id: string,
  patch: Partial<
    Pick<
      DisbursementRow,
      "status" | "provider" | "provider_ref" | "failure_reason" | "attempts" | "sent_at" | "finished_at"
    >
  >,
  now: Date,
): Promise<DisbursementRow> {
  const keys = [
    "status",
    "provider",
    "provider_ref",
    "failure_reason",
    "attempts",
    "sent_at",
    "finished_at",
  ] as const;
  const params: unknown[] = [id, now];
  const sets = keys.filter((k) => k in patch).map((k) => {
    params.push(patch[k]);
    return `${k} = $${params.length}`;
  });
  return (await db.query<DisbursementRow>(
    `UPDATE fiat_disbursements SET updated_at = $2${
      sets.map((s) => `, ${s}`).join("")
    } WHERE id = $1 RETURNING *`,
    params,
  ))[0];
}

/** Disbursements not final whose last move is older than `before` (lost messages, crashes, late answers). */
export async function listOpenDisbursements(
  db: Db,
  before: Date,
  limit: number,
): Promise<Array<{ id: string }>> {
  return await db.query<{ id: string }>(
    `SELECT id FROM fiat_disbursements WHERE status IN ('QUEUED', 'SENDING', 'PENDING') AND updated_at <= $1
      ORDER BY updated_at LIMIT $2`,
    [before, limit],
  );
}
