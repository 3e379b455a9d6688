// The console's long lists, a page at a time by keyset: a page ends with a cursor naming its last row
// (its ordering time to the microsecond and its id), and the next page starts strictly after it. No
// OFFSET: a page costs the same however deep it is, and rows arriving meanwhile never shift a page.
import * as lists from "../../db/console_lists.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { type HeldStatusView, subjectOf, view as heldView } from "../providers/held_statuses.ts";
import { isWellFormedId } from "../ids.ts";
import { approvalsOf } from "../money_out/four_eyes.ts";
import { type AuditRecord, itemAudit } from "../audit/trail.ts";
import { getKyb } from "../kyb/review.ts";
import { getMerchant } from "../merchants/mod.ts";
import type { MerchantRow } from "../../db/merchants.ts";

export const CONSOLE_PAGE_SIZE = 50;

export type Page<T> = { rows: T[]; next: string | null };

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)~([a-z]{2,5}_[0-9a-z]{26})$/;

/** The cursor a page link carries; absent: the first page; anything malformed: VALIDATION_ERROR. */
export function readCursor(raw: string | undefined): lists.After {
  if (raw === undefined || raw === "") return null;
  const m = raw.length <= 80 ? CURSOR.exec(raw) : null;
  if (!m || Number.isNaN(Date.parse(m[1]))) {
    throw new AppError("VALIDATION_ERROR", "after: not a page cursor from this console", {
      details: [{ field: "after", reason: "a cursor from a next-page link" }],
    });
  }
  return { at: m[1], id: m[2] };
}

/** `limit + 1` rows asked: the extra one only says a next page exists. */
function pageOf<T extends lists.Keyed>(rows: T[], limit: number, id: (r: T) => string): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  return { rows: shown, next: rows.length > limit && last ? `${last.cursor_at}~${id(last)}` : null };
}

type ListDeps = Pick<Deps, "db">;

export async function reviewItemsPage(deps: Pick<Deps, "db" | "config">, after: lists.After, limit = 50) {
  const page = pageOf(await lists.awaitingReviewPage(deps.db, after, limit + 1), limit, (r) => r.id);
  const approvals = await approvalsOf(deps, page.rows);
  return { ...page, rows: page.rows.map((row) => ({ row, approvals: approvals.get(row.id)! })) };
}

function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function merchantsPage(
  deps: ListDeps,
  f: { q?: string; status?: string },
  after: lists.After,
  limit = CONSOLE_PAGE_SIZE,
) {
  const q = f.q?.trim() || null;
  const filter = { q, pattern: q ? likePattern(q) : null, status: f.status ?? null };
  const rows = await lists.merchantsPage(deps.db, filter, after, limit + 1);
  return { ...pageOf(rows, limit, (r) => r.id), total: await lists.countMerchants(deps.db, filter) };
}

export async function kybWaitingPage(deps: ListDeps, after: lists.After, limit = CONSOLE_PAGE_SIZE) {
  return pageOf(await lists.submittedKybPage(deps.db, after, limit + 1), limit, (r) => r.merchant_id);
}

export async function heldStatusesPage(
  deps: ListDeps,
  after: lists.After,
  limit = CONSOLE_PAGE_SIZE,
): Promise<Page<HeldStatusView>> {
  const page = pageOf(await lists.heldPage(deps.db, after, limit + 1), limit, (r) => r.subject_id);
  return { rows: page.rows.map(heldView), next: page.next };
}

/** One held status waiting for an operator (pay_ or fdis_ id); NOT_FOUND otherwise. */
export async function findHeldStatus(deps: ListDeps, id: string): Promise<HeldStatusView> {
  const ok = isWellFormedId("pay", id) || isWellFormedId("fdis", id);
  const row = ok ? await lists.findOpenHeldRow(deps.db, subjectOf(id).kind, id) : undefined;
  if (!row) throw new AppError("NOT_FOUND", "No status held for an operator with this id");
  return heldView(row);
}

export async function refundsPage(deps: ListDeps, after: lists.After, limit = CONSOLE_PAGE_SIZE) {
  return pageOf(await lists.refundsAwaitingPage(deps.db, after, limit + 1), limit, (r) => r.id);
}

export async function batchesPage(deps: ListDeps, after: lists.After, limit = CONSOLE_PAGE_SIZE) {
  return pageOf(await lists.batchesInReviewPage(deps.db, after, limit + 1), limit, (r) => r.id);
}

export type KybStory = {
  review: Awaited<ReturnType<typeof getKyb>>;
  merchant: MerchantRow;
  /** The review's decisions and its threads' steps, in the chain's order. */
  audit: AuditRecord[];
};

/** One merchant's KYB review as the console shows it; MERCHANT_NOT_FOUND for an unknown merchant. */
export async function kybStory(deps: ListDeps, merchantId: string): Promise<KybStory> {
  const merchant = await getMerchant(deps, merchantId);
  const review = await getKyb(deps, merchantId);
  const records = await Promise.all(
    [merchantId, ...review.threads.map((t) => t.id)].map((id) => itemAudit(deps, id)),
  );
  const audit = records.flat().filter((r) => r.action.startsWith("kyb.")).sort((a, b) => a.seq - b.seq);
  return { review, merchant, audit };
}

export type HeldStory = { held: HeldStatusView; audit: AuditRecord[] };

export async function heldStory(deps: ListDeps, id: string): Promise<HeldStory> {
  const held = await findHeldStatus(deps, id);
  return { held, audit: await itemAudit(deps, id) };
}
