// Reads of refunds for the merchant who asked them (GET /v1/refunds, GET /v1/refunds/:id) and the
// operator's queue and settings.
import {
  countRefundsAwaitingApproval,
  findRefund,
  listRefunds,
  listRefundsAwaitingApproval,
  refundAutoApproveBelow,
  type RefundFilter,
  type RefundRow,
  setRefundAutoApprove,
} from "../../db/refunds.ts";
import type { Caller } from "../keys/caller.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { audited } from "../audit/audited.ts";
import type { Actor } from "../operators/roles.ts";

export async function getRefund(deps: Pick<Deps, "db">, caller: Caller, id: string): Promise<RefundRow> {
  const row = await findRefund(deps.db, id);
  if (!row || row.merchant_id !== caller.merchantId || row.is_sandbox !== caller.isSandbox) {
    throw new AppError("NOT_FOUND", "No refund with this id");
  }
  return row;
}

export async function listRefundsOf(
  deps: Pick<Deps, "db">,
  caller: Caller,
  q: RefundFilter & { limit: number; offset: number },
): Promise<{ rows: RefundRow[]; total: number }> {
  return await listRefunds(deps.db, { merchantId: caller.merchantId, isSandbox: caller.isSandbox }, q);
}

export async function refundReviewQueue(deps: Pick<Deps, "db">, limit = 100): Promise<RefundRow[]> {
  return await listRefundsAwaitingApproval(deps.db, limit);
}

export async function countRefundReviewQueue(deps: Pick<Deps, "db">): Promise<number> {
  return await countRefundsAwaitingApproval(deps.db);
}

export type AutoApproveLimits = { XOF: string | null; USDT_TRC20: string | null };

export async function getRefundAutoApprove(
  deps: Pick<Deps, "db">,
  merchantId: string,
): Promise<AutoApproveLimits> {
  const limits = await refundAutoApproveBelow(deps.db, merchantId);
  if (!limits) throw new AppError("MERCHANT_NOT_FOUND", "No merchant with this id");
  return limits;
}

/** Sets (or with nulls, turns off) a merchant's auto-approval thresholds; MERCHANT_NOT_FOUND otherwise. */
export async function setRefundAutoApproveLimits(
  deps: Pick<Deps, "db" | "clock">,
  actor: Actor,
  merchantId: string,
  limits: AutoApproveLimits,
): Promise<AutoApproveLimits> {
  const entry = { action: "merchant.refund_auto_approve", itemType: "MERCHANT", itemId: merchantId };
  return await audited(deps, actor, entry, async (tx) => {
    const before = await refundAutoApproveBelow(tx, merchantId);
    if (!(await setRefundAutoApprove(tx, merchantId, limits))) {
      throw new AppError("MERCHANT_NOT_FOUND", "No merchant with this id");
    }
    return { result: limits, before, after: limits };
  });
}
