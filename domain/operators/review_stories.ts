// A refund's, a dispute's or a held batch's story as an operator reads it before deciding: the record (as
// the /admin/api routes read it), its merchant, the approvals it needs and has, its audit records and the
// ledger entries of its journals (the references each domain writes: `refund:<id>:reserve|return|paid`,
// `dispute:<id>:step:<n>|release|debit`, `bulk:<id>:...`).
import type { Deps } from "../deps.ts";
import { type AuditRecord, itemAudit } from "../audit/trail.ts";
import { getMerchant } from "../merchants/mod.ts";
import { findRefundForOperator, refundApprovalsNeeded } from "../refunds/review.ts";
import { findDisputeForOperator } from "../disputes/queries.ts";
import { batchApprovalsNeeded, findBatchForOperator } from "../bulk/review.ts";
import { batchDetail } from "../bulk/view.ts";
import { findDispute } from "../../db/disputes.ts";
import type { RefundRow } from "../../db/refunds.ts";
import type { BatchRow } from "../../db/bulk.ts";
import type { MerchantRow } from "../../db/merchants.ts";
import { entriesOfJournals, type JournalEntryRow } from "../../db/operator_views.ts";

type StoryDeps = Pick<Deps, "db" | "config">;
type Common = { merchant: MerchantRow; audit: AuditRecord[]; entries: JournalEntryRow[] };

export type RefundStory = Common & { refund: RefundRow; approvals: { needed: 1 | 2; given: 0 | 1 } };

export async function refundStory(deps: StoryDeps, id: string): Promise<RefundStory> {
  const refund = await findRefundForOperator(deps, id);
  const journals = [`refund:${id}:reserve`, `refund:${id}:return`, `refund:${id}:paid`, `refund:${id}`];
  const [merchant, audit, entries] = await Promise.all([
    getMerchant(deps, refund.merchant_id),
    itemAudit(deps, id),
    entriesOfJournals(deps.db, journals),
  ]);
  const approvals = {
    needed: refundApprovalsNeeded(deps.config, refund),
    given: refund.first_approved_by ? 1 as const : 0 as const,
  };
  return { refund, approvals, merchant, audit, entries };
}

export type DisputeStory = Common & { dispute: Awaited<ReturnType<typeof findDisputeForOperator>> };

export async function disputeStory(deps: StoryDeps, id: string): Promise<DisputeStory> {
  const dispute = await findDisputeForOperator(deps, id);
  const steps = (await findDispute(deps.db, id))?.hold_steps ?? 0;
  const journals = [
    ...Array.from({ length: steps }, (_, i) => `dispute:${id}:step:${i + 1}`),
    `dispute:${id}:release`,
    `dispute:${id}:debit`,
  ];
  const [merchant, audit, entries] = await Promise.all([
    getMerchant(deps, dispute.merchantId),
    itemAudit(deps, id),
    entriesOfJournals(deps.db, journals),
  ]);
  return { dispute, merchant, audit, entries };
}

export type BatchStory = Common & {
  row: BatchRow;
  batch: Awaited<ReturnType<typeof batchDetail>>;
  approvalsNeeded: 1 | 2;
};

export async function batchStory(deps: StoryDeps, id: string): Promise<BatchStory> {
  const row = await findBatchForOperator(deps, id);
  const [merchant, audit, entries, batch] = await Promise.all([
    getMerchant(deps, row.merchant_id),
    itemAudit(deps, id),
    entriesOfJournals(deps.db, [`bulk:${id}:execute`, `bulk:${id}:release`]),
    batchDetail(deps, row, true),
  ]);
  return { row, batch, merchant, audit, entries, approvalsNeeded: batchApprovalsNeeded(deps.config, row) };
}
