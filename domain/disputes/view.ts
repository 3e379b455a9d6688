// What a merchant reads of a dispute (GET /v1/disputes, webhooks' `data`) and its evidence files.
import type { DisputeFileRow, DisputeRow } from "../../db/disputes.ts";
import { formatAmount } from "../money.ts";

export type DisputeFileView = {
  id: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  createdAt: string;
};

export type DisputeView = {
  id: string;
  transactionId: string;
  status: string;
  source: "PROVIDER" | "OPERATOR";
  caseRef: string;
  reason: string;
  cardOrigin: "LOCAL" | "INTERNATIONAL";
  amount: string;
  currency: "USDT_TRC20" | "XOF";
  heldAmount: string;
  shortfall: string;
  evidenceDueAt: string;
  evidence: { text: string | null; submittedAt: string | null; files: DisputeFileView[] };
  outcome: string | null;
  decisionNote: string | null;
  isSandbox: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
};

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function disputeFileView(f: DisputeFileRow): DisputeFileView {
  return {
    id: f.id,
    fileName: f.file_name,
    contentType: f.content_type,
    sizeBytes: f.size_bytes,
    createdAt: f.created_at.toISOString(),
  };
}

export function disputeView(r: DisputeRow, files: DisputeFileRow[] = []): DisputeView {
  return {
    id: r.id,
    transactionId: r.payin_id,
    status: r.status,
    source: r.source,
    caseRef: r.case_ref,
    reason: r.reason,
    cardOrigin: r.card_origin,
    amount: formatAmount(r.amount, r.currency),
    currency: r.currency,
    heldAmount: formatAmount(r.held, r.currency),
    shortfall: formatAmount(r.shortfall, r.currency),
    evidenceDueAt: r.evidence_due_at.toISOString(),
    evidence: {
      text: r.evidence_text,
      submittedAt: iso(r.evidence_submitted_at),
      files: files.filter((f) => f.dispute_id === r.id).map(disputeFileView),
    },
    outcome: r.outcome,
    decisionNote: r.decision_note,
    isSandbox: r.is_sandbox,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    closedAt: iso(r.closed_at),
  };
}

export type DisputeEvent = "dispute.opened" | "dispute.resolved" | "dispute.rejected" | "dispute.escalated";

/** The `data` of every dispute.* event (the catalogue's sample is built by the same function). */
export function disputeEventData(r: DisputeRow, occurredAt: Date): Record<string, unknown> {
  return {
    disputeId: r.id,
    transactionId: r.payin_id,
    status: r.status,
    reason: r.reason,
    amount: formatAmount(r.amount, r.currency),
    currency: r.currency,
    heldAmount: formatAmount(r.held, r.currency),
    shortfall: formatAmount(r.shortfall, r.currency),
    evidenceDueAt: r.evidence_due_at.toISOString(),
    outcome: r.outcome,
    occurredAt: occurredAt.toISOString(),
  };
}

const STATUS_OF: Record<DisputeEvent, string> = {
  "dispute.opened": "OPEN",
  "dispute.resolved": "RESOLVED",
  "dispute.rejected": "REJECTED",
  "dispute.escalated": "ESCALATED",
};

/** A dispute as it stands when `type` is sent, for POST /v1/webhooks/test. */
export function sampleDisputeEventData(type: DisputeEvent, now: Date): Record<string, unknown> {
  const status = STATUS_OF[type];
  const row: DisputeRow = {
    id: "dsp_test_0001",
    merchant_id: "mch_test_0001",
    is_sandbox: false,
    payin_id: "pay_test_0001",
    status,
    source: "PROVIDER",
    case_ref: "cb_test_0001",
    reason: "NOT_RECEIVED",
    card_origin: "LOCAL",
    currency: "XOF",
    rail: "CARD",
    amount: "10000",
    held: status === "OPEN" || status === "ESCALATED" ? "10000" : "0",
    shortfall: "0",
    hold_steps: 1,
    evidence_due_at: now,
    evidence_text: null,
    evidence_submitted_at: null,
    outcome: status === "RESOLVED" ? "MERCHANT_WON" : status === "REJECTED" ? "OPERATOR_REJECTED" : null,
    decided_by: null,
    decision_note: null,
    opened_by: "provider",
    escalated_at: null,
    closed_at: null,
    created_at: now,
    updated_at: now,
  };
  return disputeEventData(row, now);
}
