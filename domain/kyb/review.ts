// A merchant's business verification: it fills in its business details and uploads documents (DRAFT),
// submits them (SUBMITTED), and an operator approves or rejects with a note. Rejected, the merchant may
// correct and submit again. merchants.kyb_status follows the decision: it is what the money paths read.
import * as db from "../../db/kyb.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import { audited } from "../audit/audited.ts";
import { type Actor, recordedReviewer } from "../operators/roles.ts";
import { keyCacheOf } from "../keys/key_cache.ts";
import { storageOf } from "../paylinks/images.ts";
import { emitEvent } from "../webhooks/events.ts";
import { findMerchant, updateMerchant } from "../../db/merchants.ts";
import { checkDocument, cleanFileName, type DocumentKind, MAX_DOCUMENTS } from "./documents.ts";
import { kybView } from "./view.ts";

type KybDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "keyCache">;
type Status = db.KybReviewStatus;

/** The review's state machine: every move not listed is INVALID_STATE. */
const MOVES: Record<Status, readonly Status[]> = {
  DRAFT: ["SUBMITTED"],
  SUBMITTED: ["APPROVED", "REJECTED"],
  REJECTED: ["DRAFT", "SUBMITTED"],
  APPROVED: [],
};

export function assertKybMove(from: Status, to: Status): void {
  if (!MOVES[from].includes(to)) {
    throw new AppError("INVALID_STATE", `The KYB review is ${from}; it cannot become ${to}`, {
      reason: `KYB_${from}`,
    });
  }
}

/** Details and documents may change only while nothing waits for an operator (DRAFT, or after a rejection). */
function assertEditable(row: db.KybReviewRow): void {
  if (row.status !== "DRAFT") assertKybMove(row.status, "DRAFT");
}

export type BusinessDetails = {
  legalName: string;
  registrationNumber: string;
  country: string;
  address: string;
  representativeName: string;
  contactEmail: string;
  tradingName?: string;
  website?: string;
  description?: string;
};

const REQUIRED: Array<keyof BusinessDetails> = [
  "legalName",
  "registrationNumber",
  "country",
  "address",
  "representativeName",
  "contactEmail",
];

export async function getKyb(deps: Pick<Deps, "db">, merchantId: string) {
  const review = await db.findReview(deps.db, merchantId);
  if (!review && !await findMerchant(deps.db, merchantId)) throw new AppError("MERCHANT_NOT_FOUND");
  return kybView(
    review ?? {
      merchant_id: merchantId,
      status: "DRAFT",
      business: {},
      submitted_at: null,
      decided_at: null,
      decided_by: null,
      decision_note: null,
      updated_at: new Date(0),
    },
    await db.listDocuments(deps.db, merchantId),
    await db.listThreads(deps.db, merchantId),
  );
}

export async function saveBusinessDetails(deps: KybDeps, merchantId: string, details: BusinessDetails) {
  await deps.db.tx(async (tx) => {
    const row = await db.lockReview(tx, merchantId, deps.clock.now());
    assertEditable(row);
    await db.updateReview(tx, merchantId, {
      status: "DRAFT",
      business: details,
      updated_at: deps.clock.now(),
    });
  });
  return await getKyb(deps, merchantId);
}

export async function uploadDocument(
  deps: KybDeps,
  merchantId: string,
  input: { kind: DocumentKind; fileName?: string; bytes: Uint8Array },
) {
  const checked = await checkDocument(input.bytes, deps.config.kybMaxDocumentBytes);
  const id = newId("kyd", deps.clock.now().getTime());
  await deps.db.tx(async (tx) => {
    const row = await db.lockReview(tx, merchantId, deps.clock.now());
    assertEditable(row);
    if ((await db.listDocuments(tx, merchantId)).length >= MAX_DOCUMENTS) {
      throw new AppError("VALIDATION_ERROR", `A review holds at most ${MAX_DOCUMENTS} documents`, {
        details: [{ field: "file", reason: `at most ${MAX_DOCUMENTS} documents` }],
      });
    }
    // Content-addressed: storing the same bytes again is harmless, so a rollback leaves nothing wrong.
    await storageOf({ ...deps, db: tx }).put(checked.key, checked.bytes, checked.contentType);
    await db.insertDocument(tx, {
      id,
      merchant_id: merchantId,
      kind: input.kind,
      file_name: cleanFileName(input.fileName),
      content_type: checked.contentType,
      object_key: checked.key,
      size_bytes: checked.bytes.length,
      uploaded_at: deps.clock.now(),
    });
    await db.updateReview(tx, merchantId, { status: "DRAFT", updated_at: deps.clock.now() });
  });
  return (await getKyb(deps, merchantId)).documents.find((d) => d.id === id)!;
}

/** DRAFT or REJECTED -> SUBMITTED, once every required detail and at least one document are there. */
export async function submitKyb(deps: KybDeps, merchantId: string) {
  await deps.db.tx(async (tx) => {
    const row = await db.lockReview(tx, merchantId, deps.clock.now());
    assertKybMove(row.status, "SUBMITTED");
    const missing = REQUIRED.filter((f) => typeof row.business[f] !== "string" || !row.business[f]);
    const problems = missing.map((field) => ({
      field: `business.${field}`,
      reason: "required before submitting",
    }));
    if ((await db.listDocuments(tx, merchantId)).length === 0) {
      problems.push({ field: "documents", reason: "upload at least one document before submitting" });
    }
    if (problems.length > 0) {
      throw new AppError("INVALID_STATE", "The KYB review is incomplete", { details: problems });
    }
    const now = deps.clock.now();
    await db.updateReview(tx, merchantId, {
      status: "SUBMITTED",
      submitted_at: now,
      decided_at: null,
      decided_by: null,
      decision_note: null,
      updated_at: now,
    });
  });
  return await getKyb(deps, merchantId);
}

/** An operator's decision on a SUBMITTED review: audited, with `kyb.approved` or `kyb.rejected`. */
export async function decideKyb(
  deps: KybDeps,
  actor: Actor,
  input: { merchantId: string; decision: "APPROVED" | "REJECTED"; note?: string; reviewer?: string },
) {
  if (!await findMerchant(deps.db, input.merchantId)) throw new AppError("MERCHANT_NOT_FOUND");
  const note = input.note?.trim() || null;
  if (input.decision === "REJECTED" && !note) {
    throw new AppError("REASON_NOTE_REQUIRED", "Say why the verification is rejected (note)");
  }
  const reviewer = recordedReviewer(actor, input.reviewer);
  const action = input.decision === "APPROVED" ? "kyb.approve" : "kyb.reject";
  // The note goes in the record's own note column too (as refunds, disputes and batches), not only in `after`.
  const what = { action, itemType: "merchant", itemId: input.merchantId, note };
  await audited(deps, actor, what, async (tx) => {
    const now = deps.clock.now();
    const row = await db.lockReview(tx, input.merchantId, now);
    assertKybMove(row.status, input.decision);
    await db.updateReview(tx, input.merchantId, {
      status: input.decision,
      decided_at: now,
      decided_by: reviewer,
      decision_note: note,
      updated_at: now,
    });
    await updateMerchant(tx, input.merchantId, { kybStatus: input.decision });
    tx.afterCommit(() => keyCacheOf(deps).forgetMerchant(input.merchantId));
    await emitEvent({ ...deps, db: tx }, {
      merchantId: input.merchantId,
      isSandbox: false,
      type: input.decision === "APPROVED" ? "kyb.approved" : "kyb.rejected",
      data: {
        merchantId: input.merchantId,
        kybStatus: input.decision,
        ...(input.decision === "REJECTED" ? { reason: note } : {}),
        decidedAt: now.toISOString(),
      },
    });
    return { result: null, before: { status: row.status }, after: { status: input.decision, note } };
  });
  return await getKyb(deps, input.merchantId);
}

/** Reviews for the operator console, waiting ones first. */
export async function listKybReviews(deps: Pick<Deps, "db">, status: Status | null, limit = 100) {
  const rows = await db.listReviews(deps.db, status, limit);
  return rows.map((r) => ({
    merchantId: r.merchant_id,
    merchantName: r.merchant_name,
    status: r.status,
    submittedAt: r.submitted_at?.toISOString() ?? null,
    decidedAt: r.decided_at?.toISOString() ?? null,
    documents: r.documents,
    openThreads: r.open_threads,
  }));
}

/** A document's bytes for the operator (or its owner); NOT_FOUND for another merchant's id. */
export async function readKybDocument(deps: Pick<Deps, "db" | "config">, merchantId: string, id: string) {
  const row = await db.findDocument(deps.db, merchantId, id);
  const found = row ? await storageOf(deps).get(row.object_key) : null;
  if (!row || !found) throw new AppError("NOT_FOUND", "No such document");
  return { fileName: row.file_name, contentType: row.content_type, bytes: found.bytes };
}
