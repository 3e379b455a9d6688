// What merchants see of a refund: the API record (GET /v1/refunds/:id) and the webhook events' data.
import type { RefundRow } from "../../db/refunds.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function refundView(row: RefundRow) {
  return {
    refundId: row.id,
    transactionId: row.payin_id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    paymentMethod: row.payment_method,
    reason: row.reason,
    restock: row.restock,
    autoApproved: row.auto_approved,
    reviewNote: row.review_note,
    providerRef: row.provider_ref,
    failureReason: row.failure_reason,
    isSandbox: row.is_sandbox,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    approvedAt: iso(row.approved_at),
    completedAt: iso(row.completed_at),
    failedAt: iso(row.failed_at),
    rejectedAt: iso(row.rejected_at),
    cancelledAt: iso(row.cancelled_at),
    // USDT: the signed page where the customer gives an address (null until approved), and that address.
    customerPageUrl: row.customer_page_url ?? null,
    customerPageExpiresAt: iso(row.customer_page_expires_at ?? null),
    destinationAddress: row.destination_address ?? null,
  };
}

export type RefundView = ReturnType<typeof refundView>;

/** The `data` of every refund.* event (its shape is documented in api/refunds/event_schemas.ts). */
export function refundEventData(row: RefundRow, at: Date): Record<string, unknown> {
  return {
    refundId: row.id,
    transactionId: row.payin_id,
    amount: row.amount,
    currency: row.currency,
    paymentMethod: row.payment_method,
    status: row.status,
    reason: row.reason,
    note: row.review_note,
    failureReason: row.failure_reason,
    occurredAt: at.toISOString(),
  };
}
