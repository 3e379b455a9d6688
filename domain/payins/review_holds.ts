// A pay-in paid while its merchant is suspended or closed (created before, paid after) is never lost: it
// is settled and credited exactly as any other, through the ledger helper, and in the same transaction it
// is recorded as held for review. The merchant cannot move that money meanwhile (every key of a merchant
// that is not ACTIVE is refused, so no payout, withdrawal or conversion can start); the operator reads
// the list at GET /admin/api/payin-holds and marks each one reviewed when it has decided what to do.
import type { MerchantRow } from "../../db/merchants.ts";
import type { Db } from "../../db/mod.ts";
import type { PayinRow } from "../../db/payins.ts";
import * as holdsDb from "../../db/payin_review_holds.ts";
import { appendAudit } from "../audit/trail.ts";
import type { Deps } from "../deps.ts";
import { type Actor, recordedReviewer } from "../operators/roles.ts";
import { AppError } from "../errors.ts";
import { formatAmount } from "../money.ts";
import { takesPayments } from "../merchants/availability.ts";

/**
 * Called by both settlements (USDT and fiat) inside their transaction, once money was credited: records
 * the hold when the merchant is not ACTIVE. Answers whether the pay-in is held.
 */
export async function holdIfMerchantInactive(
  deps: Pick<Deps, "clock" | "log"> & { db: Db },
  payin: Pick<PayinRow, "id" | "merchant_id" | "is_sandbox">,
  merchant: Pick<MerchantRow, "status"> | undefined,
): Promise<boolean> {
  if (!merchant || takesPayments(merchant)) return false;
  const recorded = await holdsDb.insertReviewHold(deps.db, {
    payinId: payin.id,
    merchantId: payin.merchant_id,
    isSandbox: payin.is_sandbox,
    merchantStatus: merchant.status,
    reason: `MERCHANT_${merchant.status}`,
    now: deps.clock.now(),
  });
  if (recorded) {
    deps.log.warn("pay-in paid to a merchant that takes no payments: credited and held for review", {
      payinId: payin.id,
      merchantId: payin.merchant_id,
      merchantStatus: merchant.status,
    });
  }
  return true;
}

export type ReviewHoldView = {
  transactionId: string;
  merchantId: string;
  mode: "live" | "sandbox";
  merchantStatus: string;
  reason: string;
  status: string;
  paymentMethod: string;
  currency: string;
  amountReceived: string;
  netAmount: string;
  heldAt: string;
  reviewedAt: string | null;
  reviewedBy: string | null;
  reviewNote: string | null;
};

function view(r: holdsDb.ReviewHoldRow): ReviewHoldView {
  const currency = r.currency as "USDT_TRC20" | "XOF";
  return {
    transactionId: r.payin_id,
    merchantId: r.merchant_id,
    mode: r.is_sandbox ? "sandbox" : "live",
    merchantStatus: r.merchant_status,
    reason: r.reason,
    status: r.status,
    paymentMethod: r.payment_method,
    currency,
    amountReceived: formatAmount(r.amount_received, currency),
    netAmount: formatAmount(r.net_amount, currency),
    heldAt: r.created_at.toISOString(),
    reviewedAt: r.reviewed_at?.toISOString() ?? null,
    reviewedBy: r.reviewed_by,
    reviewNote: r.review_note,
  };
}

export async function listReviewHolds(
  deps: Pick<Deps, "db">,
  filter: { merchantId?: string; open?: boolean; limit: number },
): Promise<ReviewHoldView[]> {
  return (await holdsDb.listReviewHolds(deps.db, filter)).map(view);
}

/**
 * The operator's decision is recorded once, with its audit record; reviewing twice is INVALID_STATE, an
 * unknown id NOT_FOUND.
 */
export async function reviewHold(
  deps: Pick<Deps, "db" | "clock">,
  payinId: string,
  input: { reviewer?: string; note?: string | null; actor: Actor },
): Promise<ReviewHoldView> {
  const now = deps.clock.now();
  return await deps.db.tx(async (tx) => {
    if (!await holdsDb.findReviewHold(tx, payinId)) {
      throw new AppError("NOT_FOUND", "No pay-in held for review with this id");
    }
    const reviewer = recordedReviewer(input.actor, input.reviewer);
    const done = await holdsDb.markReviewed(tx, {
      payinId,
      reviewer,
      note: input.note ?? null,
      now,
    });
    const row = await holdsDb.findReviewHold(tx, payinId);
    if (!row) throw new AppError("NOT_FOUND", "No pay-in held for review with this id");
    if (!done) throw new AppError("INVALID_STATE", "This pay-in was already reviewed");
    await appendAudit({ db: tx, clock: deps.clock }, input.actor, {
      action: "payin_hold.review",
      itemType: "PAYIN",
      itemId: payinId,
      note: input.note ?? null,
      before: { reviewed: false },
      after: { reviewed: true, reviewer },
    });
    return view(row);
  });
}
