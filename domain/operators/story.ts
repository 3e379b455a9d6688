// One payout or withdrawal as an operator reads it before deciding: the item, its merchant, the approvals
// it has and needs, every review decision and audit record about it, its ledger entries (the journals
// `outbound:<id>:reserve|release|settle`), its signed chain transactions with their confirmations, and the
// webhook deliveries of its events.
import type { Deps } from "../deps.ts";
import { type AuditRecord, itemAudit } from "../audit/trail.ts";
import { getMerchant } from "../merchants/mod.ts";
import { type Approvals, approvalsOf } from "../money_out/four_eyes.ts";
import { findReviewItem, reviewHistory } from "../money_out/review.ts";
import type { OutboundRow, ReviewDecisionRow } from "../../db/outbound.ts";
import type { MerchantRow } from "../../db/merchants.ts";
import {
  chainTxsOfItem,
  deliveriesOfItem,
  entriesOfJournals,
  type ItemDeliveryRow,
  type JournalEntryRow,
} from "../../db/operator_views.ts";

/** At most this many deliveries are shown; an item has a handful of events per endpoint. */
const DELIVERIES_SHOWN = 50;

export type ChainReference = {
  txId: string;
  block: string | null;
  /** Blocks on top of it, its own counted, by the scanner's head; null while not in a block. */
  confirmations: number | null;
  result: string | null;
  superseded: boolean;
  broadcasts: number;
};

export type ItemStory = {
  row: OutboundRow;
  merchant: MerchantRow;
  approvals: Approvals;
  decisions: ReviewDecisionRow[];
  audit: AuditRecord[];
  entries: JournalEntryRow[];
  deliveries: ItemDeliveryRow[];
  chain: ChainReference[];
};

export async function itemStory(deps: Pick<Deps, "db" | "config">, id: string): Promise<ItemStory> {
  const row = await findReviewItem(deps, id);
  const journals = ["reserve", "release", "settle"].map((step) => `outbound:${id}:${step}`);
  const [merchant, approvals, decisions, audit, entries, deliveries, txs] = await Promise.all([
    getMerchant(deps, row.merchant_id),
    approvalsOf(deps, [row]),
    reviewHistory(deps, id),
    itemAudit(deps, id),
    entriesOfJournals(deps.db, journals),
    deliveriesOfItem(deps.db, row.merchant_id, row.is_sandbox, id, DELIVERIES_SHOWN),
    chainTxsOfItem(deps.db, id),
  ]);
  const chain = txs.map((t) => ({
    txId: t.tx_id,
    block: t.block_number,
    confirmations: t.block_number && t.head
      ? Math.max(0, Number(BigInt(t.head) - BigInt(t.block_number)) + 1)
      : null,
    result: t.result,
    superseded: t.superseded,
    broadcasts: t.broadcast_count,
  }));
  return { row, merchant, approvals: approvals.get(id)!, decisions, audit, entries, deliveries, chain };
}
