// SQL for the versioned merchant agreement and its signatures (migration 044).
import type { Db } from "./mod.ts";

export type AgreementRow = {
  version: number;
  body: string;
  sha256: string;
  published_at: Date;
  published_by: string;
};
export type SignatureRow = {
  merchant_id: string;
  version: number;
  sha256: string;
  signed_at: Date;
  signed_from: string;
  signed_by: string;
};

/** The newest version; `lock` takes a share lock a publication (an exclusive table lock) waits for. */
export async function currentAgreement(db: Db, lock = false): Promise<AgreementRow> {
  return (await db.query<AgreementRow>(
    `SELECT * FROM merchant_agreements ORDER BY version DESC LIMIT 1${lock ? " FOR SHARE" : ""}`,
  ))[0];
}

/** Serializes publications with each other and with signatures (which take FOR SHARE on the newest row). */
export async function lockAgreements(db: Db): Promise<void> {
  await db.query("LOCK TABLE merchant_agreements IN EXCLUSIVE MODE");
}

export async function insertAgreement(db: Db, row: AgreementRow): Promise<void> {
  await db.query(
    `INSERT INTO merchant_agreements (version, body, sha256, published_at, published_by) VALUES ($1, $2, $3, $4, $5)`,
    [row.version, row.body, row.sha256, row.published_at, row.published_by],
  );
}

/** Starts the re-sign window of every merchant that signed an older version (an earlier window is kept). */
export async function requestResign(
  db: Db,
  version: number,
  deadline: Date,
): Promise<Array<{ id: string; agreement_resign_by: Date }>> {
  return await db.query(
    `UPDATE merchants SET agreement_resign_by = COALESCE(agreement_resign_by, $2), updated_at = now()
      WHERE agreement_version IS NOT NULL AND agreement_version < $1
      RETURNING id, agreement_resign_by`,
    [version, deadline],
  );
}

/** Records a signature (once per merchant and version); true when it is new. */
export async function insertSignature(db: Db, row: SignatureRow): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO agreement_signatures (merchant_id, version, sha256, signed_at, signed_from, signed_by)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (merchant_id, version) DO NOTHING RETURNING version`,
    [row.merchant_id, row.version, row.sha256, row.signed_at, row.signed_from, row.signed_by],
  );
  return rows.length === 1;
}

/** The merchant's row locked, with what it had signed before. */
export async function lockMerchantAgreement(
  db: Db,
  merchantId: string,
): Promise<{ agreement_version: number | null; agreement_resign_by: Date | null } | undefined> {
  return (await db.query<{ agreement_version: number | null; agreement_resign_by: Date | null }>(
    "SELECT agreement_version, agreement_resign_by FROM merchants WHERE id = $1 FOR UPDATE",
    [merchantId],
  ))[0];
}

export async function markSigned(db: Db, merchantId: string, version: number): Promise<void> {
  await db.query(
    `UPDATE merchants SET agreement_version = $2, agreement_resign_by = NULL, updated_at = now() WHERE id = $1`,
    [merchantId, version],
  );
}

export async function signaturesOf(db: Db, merchantId: string): Promise<SignatureRow[]> {
  return await db.query<SignatureRow>(
    "SELECT * FROM agreement_signatures WHERE merchant_id = $1 ORDER BY version DESC",
    [merchantId],
  );
}
