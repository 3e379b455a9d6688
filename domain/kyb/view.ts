// What the merchant and the operator see of a KYB review.
import type { KybDocumentRow, KybMessageRow, KybReviewRow, KybThreadRow } from "../../db/kyb.ts";

export function documentView(d: KybDocumentRow) {
  return {
    id: d.id,
    kind: d.kind,
    fileName: d.file_name,
    contentType: d.content_type,
    sizeBytes: d.size_bytes,
    uploadedAt: d.uploaded_at.toISOString(),
  };
}

export function threadView(t: KybThreadRow & { messages: KybMessageRow[] }) {
  return {
    id: t.id,
    status: t.status,
    createdAt: t.created_at.toISOString(),
    closedAt: t.closed_at?.toISOString() ?? null,
    messages: t.messages.map((m) => ({
      id: m.id,
      author: m.author,
      authorName: m.author_name,
      body: m.body,
      createdAt: m.created_at.toISOString(),
    })),
  };
}

export function kybView(
  r: KybReviewRow,
  documents: KybDocumentRow[],
  threads: Array<KybThreadRow & { messages: KybMessageRow[] }>,
) {
  return {
    merchantId: r.merchant_id,
    status: r.status,
    business: r.business,
    submittedAt: r.submitted_at?.toISOString() ?? null,
    decidedAt: r.decided_at?.toISOString() ?? null,
    decisionNote: r.decision_note,
    documents: documents.map(documentView),
    threads: threads.map(threadView),
  };
}
