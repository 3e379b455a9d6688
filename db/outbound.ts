// SQL for payouts and withdrawals (outbound_transfers), operator decisions and signed chain transactions.
import { type Db, PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode } from "./mod.ts";

export type OutboundRow = {
  id: string;
  kind: "PAYOUT" | "WITHDRAWAL" | "REFUND";
  merchant_id: string;
  is_sandbox: boolean;
  status: string;
  currency: string;
  chain: string;
  amount: string;
  fee: string;
  debited: string;
  net_amount: string;
  destination_address: string;
  whitelist_entry_id: string | null;
  external_ref: string | null;
  metadata: Record<string, unknown>;
  requires_manual_approval: boolean;
  tx_hash: string | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
  approved_at: Date | null;
  broadcast_at: Date | null;
  confirmed_at: Date | null;
  failed_at: Date | null;
  cancelled_at: Date | null;
  /** The wallet the money left: TRC20 (USDT), MOMO or CARD (XOF). */
  wallet_rail: "TRC20" | "MOMO" | "CARD";
  fiat_destination_id: string | null;
  fiat_channel: "MOMO" | "BANK" | null;
  provider_ref: string | null;
  /** Why an accepted item is not on its way yet (say the hot wallet is short), and since when. */
  waiting_reason: string | null;
  waiting_since: Date | null;
};

export type NewOutbound = {
  id: string;
  kind: "PAYOUT" | "WITHDRAWAL" | "REFUND";
  merchantId: string;
  isSandbox: boolean;
  status: string;
  amount: string;
  fee: string;
  debited: string;
  netAmount: string;
  destinationAddress: string;
  whitelistEntryId: string | null;
  externalRef: string | null;
  metadata: Record<string, unknown>;
  requiresManualApproval: boolean;
  now: Date;
};

export async function insertOutbound(db: Db, o: NewOutbound): Promise<OutboundRow> {
  return (await db.query<OutboundRow>(
    `INSERT INTO outbound_transfers (id, kind, merchant_id, is_sandbox, status, currency, chain, amount, fee, debited,
       net_amount, destination_address, whitelist_entry_id, external_ref, metadata, requires_manual_approval,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'USDT_TRC20', 'TRON', $6, $7, $8, $9, $10, $11, $12, $13::text::jsonb, $14, $15, $15)
     RETURNING *`,
    [
      o.id,
      o.kind,
      o.merchantId,
      o.isSandbox,
      o.status,
      o.amount,
      o.fee,
      o.debited,
      o.netAmount,
      o.destinationAddress,
      o.whitelistEntryId,
      o.externalRef,
      JSON.stringify(o.metadata),
      o.requiresManualApproval,
      o.now,
    ],
  ))[0];
}

/** The insert broke the (merchant, mode, kind, externalRef) unique index: the reference is taken. */
export function isDuplicateExternalRef(err: unknown): boolean {
  return pgErrorCode(err) === PG_UNIQUE_VIOLATION && pgConstraint(err) === "outbound_external_ref";
}

export async function findOutbound(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean; kind: "PAYOUT" | "WITHDRAWAL" },
  id: string,
): Promise<OutboundRow | undefined> {
  return (await db.query<OutboundRow>(
    `SELECT * FROM outbound_transfers WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3 AND kind = $4`,
    [id, scope.merchantId, scope.isSandbox, scope.kind],
  ))[0];
}

/** The row, locked until the transaction ends: every state move reads its row this way first. */
export async function lockOutbound(db: Db, id: string): Promise<OutboundRow | undefined> {
  return (await db.query<OutboundRow>(`SELECT * FROM outbound_transfers WHERE id = $1 FOR UPDATE`, [id]))[0];
}

export type OutboundPatch = Partial<
  Pick<
    OutboundRow,
    | "tx_hash"
    | "failure_reason"
    | "approved_at"
    | "broadcast_at"
    | "confirmed_at"
    | "failed_at"
    | "cancelled_at"
    | "provider_ref"
  >
>;

const PATCHABLE = [
  "tx_hash",
  "failure_reason",
  "approved_at",
  "broadcast_at",
  "confirmed_at",
  "failed_at",
  "cancelled_at",
  "provider_ref",
] as const;

/** Moves from the state the caller saw; undefined when another move got there first. */
export async function moveOutbound(
  db: Db,
  id: string,
  from: string,
  to: string,
  patch: OutboundPatch,
  now: Date,
): Promise<OutboundRow | undefined> {
  const params: unknown[] = [id, from, to, now];
  const sets = PATCHABLE.filter((k) => k in patch).map((k) => {
    params.push(patch[k]);
    return `${k} = $${params.length}`;
  });
  return (await db.query<OutboundRow>(
    `UPDATE outbound_transfers SET status = $3, updated_at = $4${sets.map((s) => `, ${s}`).join("")}
      WHERE id = $1 AND status = $2 RETURNING *`,
    params,
  ))[0];
}

export async function listOutbound(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean; kind: "PAYOUT" | "WITHDRAWAL" },
  q: { status?: string; limit: number; offset: number },
): Promise<{ rows: OutboundRow[]; total: number }> {
  const args = [scope.merchantId, scope.isSandbox, scope.kind, q.status ?? null];
  const where = `merchant_id = $1 AND is_sandbox = $2 AND kind = $3 AND ($4::text IS NULL OR status = $4)`;
  const [rows, count] = await Promise.all([
    db.query<OutboundRow>(
      `SELECT * FROM outbound_transfers WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`,
      [...args, q.limit, q.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbound_transfers WHERE ${where}`, args),
  ]);
  return { rows, total: count[0].n };
}

/** What waits for an operator, oldest first, across merchants and modes. */
export async function listAwaitingReview(db: Db, limit: number): Promise<OutboundRow[]> {
  return await db.query<OutboundRow>(
    `SELECT * FROM outbound_transfers WHERE status IN ('PENDING', 'PENDING_REVIEW')
      ORDER BY created_at, id LIMIT $1`,
    [limit],
  );
}

export async function findOutboundById(db: Db, id: string): Promise<OutboundRow | undefined> {
  return (await db.query<OutboundRow>(`SELECT * FROM outbound_transfers WHERE id = $1`, [id]))[0];
}

export async function insertReviewDecision(
  db: Db,
  d: {
    outboundId: string;
    decision: "FIRST_APPROVAL" | "APPROVE" | "REJECT" | "CANCEL";
    operator: string;
    note: string | null;
    now: Date;
    /** Who decided: "token", "cli" or an operator's id (four eyes compares these). */
    actor?: string;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO review_decisions (outbound_id, decision, operator, note, created_at, actor)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [d.outboundId, d.decision, d.operator, d.note, d.now, d.actor ?? null],
  );
}

/** The first approvals given to items, by item: who (actor) and under which name. */
export async function firstApprovals(
  db: Db,
  outboundIds: string[],
): Promise<Array<{ outbound_id: string; actor: string | null; operator: string }>> {
  return await db.query(
    `SELECT outbound_id, actor, operator FROM review_decisions
      WHERE outbound_id = ANY($1::text[]) AND decision = 'FIRST_APPROVAL' ORDER BY id`,
    [outboundIds],
  );
}

export type ReviewDecisionRow = { decision: string; operator: string; note: string | null; created_at: Date };

export async function listReviewDecisions(db: Db, outboundId: string): Promise<ReviewDecisionRow[]> {
  return await db.query<ReviewDecisionRow>(
    `SELECT decision, operator, note, created_at FROM review_decisions WHERE outbound_id = $1 ORDER BY id`,
    [outboundId],
  );
}

/** Items the broadcaster must look at: ready to send, or sent and not yet deep enough. */
export async function listInFlight(db: Db, limit: number): Promise<Array<{ id: string }>> {
  return await db.query<{ id: string }>(
    `SELECT id FROM outbound_transfers WHERE status IN ('PROCESSING', 'APPROVED', 'BROADCAST')
        AND currency = 'USDT_TRC20'
      ORDER BY updated_at LIMIT $1`,
    [limit],
  );
}

/**
 * Credits to the merchant's USDT wallet that are not spendable yet: settled pay-ins with a transfer in a
 * block above the solidified one (money out may only spend credits whose block is solidified).
 */
export async function unsolidifiedCredits(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  solidBlock: number,
): Promise<string> {
  const rows = await db.query<{ pending: string }>(
    `SELECT COALESCE(sum(p.net_amount), 0)::text AS pending FROM payins p
      WHERE p.merchant_id = $1 AND p.is_sandbox = $2 AND p.payment_method = 'USDT_TRC20'
        AND p.status IN ('CONFIRMED', 'UNDERPAID', 'OVERPAID')
        AND EXISTS (SELECT 1 FROM chain_transfers t
                     WHERE t.payin_id = p.id AND t.status = 'CREDITED' AND t.block_number > $3)`,
    [scope.merchantId, scope.isSandbox, solidBlock],
  );
  return rows[0].pending;
}

export type NewFiatWithdrawal = Omit<NewOutbound, "kind" | "whitelistEntryId"> & {
  walletRail: "MOMO" | "CARD";
  fiatDestinationId: string;
  fiatChannel: "MOMO" | "BANK";
};

/** An XOF withdrawal: same table and states as USDT ones, paid through a disbursement provider. */
export async function insertFiatWithdrawal(db: Db, o: NewFiatWithdrawal): Promise<OutboundRow> {
  return (await db.query<OutboundRow>(
    `INSERT INTO outbound_transfers (id, kind, merchant_id, is_sandbox, status, currency, chain, amount, fee, debited,
       net_amount, destination_address, external_ref, metadata, requires_manual_approval, created_at, updated_at,
       wallet_rail, fiat_destination_id, fiat_channel)
     VALUES ($1, 'WITHDRAWAL', $2, $3, $4, 'XOF', $5, $6, $7, $8, $9, $10, $11, $12::text::jsonb, $13, $14, $14,
       $15, $16, $5)
     RETURNING *`,
    [
      o.id,
      o.merchantId,
      o.isSandbox,
      o.status,
      o.fiatChannel,
      o.amount,
      o.fee,
      o.debited,
      o.netAmount,
      o.destinationAddress,
      o.externalRef,
      JSON.stringify(o.metadata),
      o.requiresManualApproval,
      o.now,
      o.walletRail,
      o.fiatDestinationId,
    ],
  ))[0];
}

/** Whether a fiat destination still has a withdrawal on its way (accepted, not final). */
export async function hasUnfinishedFiatWithdrawal(db: Db, fiatDestinationId: string): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM outbound_transfers WHERE fiat_destination_id = $1
        AND status IN ('PENDING_REVIEW', 'APPROVED', 'BROADCAST') LIMIT 1`,
    [fiatDestinationId],
  );
  return rows.length > 0;
}

/** Records why an item waits; the first time it started waiting is kept. */
export async function markWaiting(db: Db, id: string, reason: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE outbound_transfers SET waiting_reason = $2, waiting_since = COALESCE(waiting_since, $3)
      WHERE id = $1 AND waiting_reason IS DISTINCT FROM $2`,
    [id, reason, now],
  );
}

export async function clearWaiting(db: Db, id: string): Promise<void> {
  await db.query(
    `UPDATE outbound_transfers SET waiting_reason = NULL, waiting_since = NULL
      WHERE id = $1 AND waiting_reason IS NOT NULL`,
    [id],
  );
}

export type WaitingItem = Pick<
  OutboundRow,
  "id" | "kind" | "merchant_id" | "status" | "net_amount" | "currency" | "waiting_reason" | "waiting_since"
>;

/** Live items waiting (oldest first), for the treasury view and the alarm. */
export async function listWaiting(db: Db, limit: number): Promise<WaitingItem[]> {
  return await db.query<WaitingItem>(
    `SELECT id, kind, merchant_id, status, net_amount, currency, waiting_reason, waiting_since
       FROM outbound_transfers WHERE waiting_reason IS NOT NULL AND NOT is_sandbox
        AND status IN ('PROCESSING', 'APPROVED')
      ORDER BY waiting_since LIMIT $1`,
    [limit],
  );
}

/** A BROADCAST item's new transaction (its old one expired off chain): its hash, and it waits no more. */
export async function setResignedHash(db: Db, id: string, txHash: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE outbound_transfers SET tx_hash = $2, updated_at = $3, waiting_reason = NULL, waiting_since = NULL
      WHERE id = $1`,
    [id, txHash, now],
  );
}
