// One payout or withdrawal as an operator reads it before deciding: the item, its merchant, the approvals
// it has and needs, every review decision and every audit record about it.
import type { Deps } from "../deps.ts";
import { type AuditRecord, itemAudit } from "../audit/trail.ts";
import { getMerchant } from "../merchants/mod.ts";
import { type Approvals, approvalsOf } from "../money_out/four_eyes.ts";
import { findReviewItem, reviewHistory } from "../money_out/review.ts";
import type { OutboundRow, ReviewDecisionRow } from "../../db/outbound.ts";
import type { MerchantRow } from "../../db/merchants.ts";

export type ItemStory = {
  row: OutboundRow;
  merchant: MerchantRow;
  approvals: Approvals;
  decisions: ReviewDecisionRow[];
  audit: AuditRecord[];
};

export async function itemStory(deps: Pick<Deps, "db" | "config">, id: string): Promise<ItemStory> {
  const row = await findReviewItem(deps, id);
  const [merchant, approvals, decisions, audit] = await Promise.all([
    getMerchant(deps, row.merchant_id),
    approvalsOf(deps, [row]),
    reviewHistory(deps, id),
    itemAudit(deps, id),
  ]);
  return { row, merchant, approvals: approvals.get(id)!, decisions, audit };
}
