// What a merchant sees of a batch and its items (GET, every route's answer) and the CSV report.
import * as store from "../../db/bulk.ts";
import type { Deps } from "../deps.ts";
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);
import { Decimal, formatAmount } from "../money.ts";
import { csvOf } from "./files.ts";

export function batchView(batch: store.BatchRow, counts: Record<string, number>) {
  const currency = batch.currency;
  return {
    id: batch.id,
    label: batch.label,
    rail: batch.rail,
    currency,
    status: batch.status,
    itemCount: batch.item_count,
    totalAmount: formatAmount(batch.total_amount, currency),
    totalFee: formatAmount(batch.total_fee, currency),
    totalDebited: formatAmount(new Decimal(batch.total_amount).plus(batch.total_fee), currency),
    attempt: batch.attempt,
    counts: {
      pending: counts.PENDING ?? 0,
      queued: counts.QUEUED ?? 0,
      processing: counts.PROCESSING ?? 0,
      succeeded: counts.SUCCEEDED ?? 0,
      failed: counts.FAILED ?? 0,
      cancelled: counts.CANCELLED ?? 0,
    },
    createdAt: iso(batch.created_at),
    updatedAt: iso(batch.updated_at),
    validatedAt: iso(batch.validated_at),
    executedAt: iso(batch.executed_at),
    completedAt: iso(batch.completed_at),
    cancelledAt: iso(batch.cancelled_at),
    reviewReason: batch.review_reason,
    reviewedAt: iso(batch.reviewed_at),
    reviewNote: batch.review_note,
  };
}

export function itemView(
  batch: store.BatchRow,
  item: store.ItemRow,
  payment?: { status: string; tx_hash: string | null },
) {
  return {
    id: item.id,
    position: item.line,
    walletAddress: item.wallet_address,
    operator: item.operator,
    amount: formatAmount(item.amount, batch.currency),
    fee: formatAmount(item.fee, batch.currency),
    recipientName: item.recipient_name,
    reference: item.reference,
    status: item.status,
    attempt: item.attempt,
    paymentId: item.payment_id,
    paymentStatus: payment?.status ?? null,
    txHash: payment?.tx_hash ?? item.tx_hash,
    failureReason: item.failure_reason,
  };
}

/** The batch and every item with its current payment (status and hash live from the payment row). */
export async function batchDetail(deps: Pick<Deps, "db">, batch: store.BatchRow, withItems = true) {
  const counts = await store.countByStatus(deps.db, batch.id);
  if (batch.status === "DRAFT") {
    // Totals are fixed at validation; a draft shows what its items add up to so far.
    const totals = await store.itemTotals(deps.db, batch.id, ["PENDING"]);
    batch = { ...batch, total_amount: totals.amount, total_fee: totals.fee };
  }
  const view = batchView(batch, counts);
  if (!withItems) return view;
  const [items, payments] = await Promise.all([
    store.listItems(deps.db, batch.id),
    store.paymentStates(deps.db, batch.id),
  ]);
  return { ...view, items: items.map((item) => itemView(batch, item, payments.get(item.id))) };
}

/** A cell a spreadsheet could take for a formula is written as text (leading apostrophe). */
function safeCell(value: string | number | null): string | number {
  if (value === null) return "";
  if (typeof value === "string" && /^[=@\t\r]|^[+-][^0-9]/.test(value)) return `'${value}`;
  return value;
}

/** GET /v1/bulk-payments/:id/export: one line per item with its outcome. */
export async function batchReport(deps: Pick<Deps, "db">, batch: store.BatchRow): Promise<string> {
  const detail = await batchDetail(deps, batch);
  const header = [
    "position",
    "walletAddress",
    "operator",
    "recipientName",
    "reference",
    "amount",
    "fee",
    "currency",
    "status",
    "attempt",
    "paymentId",
    "txHash",
    "failureReason",
  ];
  const rows = ("items" in detail ? detail.items : []).map((i) =>
    [
      i.position,
      i.walletAddress,
      i.operator,
      i.recipientName,
      i.reference,
      i.amount,
      i.fee,
      batch.currency,
      i.status,
      i.attempt,
      i.paymentId,
      i.txHash,
      i.failureReason,
    ].map(safeCell)
  );
  return csvOf([header, ...rows]);
}
