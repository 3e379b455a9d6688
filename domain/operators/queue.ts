// The operator's morning: what waits for a reviewer (withdrawals in review, payouts above the approval
// amount, bulk batches held, pay-ins held), and what waits for the hot wallet past the alarm's threshold.
import { countQueue } from "../../db/operator_search.ts";
import { countOpenDisputes } from "../../db/disputes.ts";
import type { OutboundRow } from "../../db/outbound.ts";
import type { Deps } from "../deps.ts";
import { type Approvals, approvalsOf } from "../money_out/four_eyes.ts";
import { listReviewQueue } from "../money_out/review.ts";
import { countRefundReviewQueue } from "../refunds/queries.ts";
import { countHeldStatuses } from "../providers/held_statuses.ts";

export type Queue = {
  counts: {
    withdrawalsInReview: number;
    payoutsAwaitingApproval: number;
    waitingToSend: number;
    bulkInReview: number;
    payinHoldsOpen: number;
    refundsAwaitingApproval: number;
    /** Disputes not yet decided (OPEN, UNDER_REVIEW, ESCALATED): GET /admin/api/disputes. */
    disputesOpen: number;
    kybInReview: number;
    providerStatusesHeld: number;
  };
  items: Array<{ row: OutboundRow; approvals: Approvals }>;
};

export async function operatorQueue(
  deps: Pick<Deps, "db" | "clock" | "config">,
  limit = 100,
): Promise<Queue> {
  const alarmMs = deps.config.outboundWaitAlarmSeconds * 1000;
  const c = await countQueue(deps.db, new Date(deps.clock.now().getTime() - alarmMs));
  const rows = await listReviewQueue(deps, limit);
  const approvals = await approvalsOf(deps, rows);
  return {
    counts: {
      withdrawalsInReview: c.withdrawals_in_review,
      payoutsAwaitingApproval: c.payouts_awaiting_approval,
      waitingToSend: c.waiting_to_send,
      bulkInReview: c.bulk_in_review,
      payinHoldsOpen: c.payin_holds_open,
      refundsAwaitingApproval: await countRefundReviewQueue(deps),
      disputesOpen: await countOpenDisputes(deps.db),
      kybInReview: c.kyb_in_review,
      providerStatusesHeld: [...(await countHeldStatuses(deps)).values()].reduce((a, b) => a + b, 0),
    },
    items: rows.map((row) => ({ row, approvals: approvals.get(row.id)! })),
  };
}
