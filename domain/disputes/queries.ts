// Reading disputes: a merchant's own (another merchant's id or the other mode's is NOT_FOUND), and the
// operator's list across merchants.
import * as disputesDb from "../../db/disputes.ts";
import type { Caller } from "../keys/caller.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isWellFormedId } from "../ids.ts";
import { openStorage } from "../../rails/storage/mod.ts";
import { type DisputeView, disputeView } from "./view.ts";

type Owner = Pick<Caller, "merchantId" | "isSandbox">;

export async function getDispute(deps: Pick<Deps, "db">, owner: Owner, id: string) {
  const row = isWellFormedId("dsp", id) ? await disputesDb.findDisputeOf(deps.db, owner, id) : undefined;
  if (!row) throw new AppError("NOT_FOUND", "No such dispute");
  return row;
}

export async function getDisputeView(deps: Pick<Deps, "db">, owner: Owner, id: string): Promise<DisputeView> {
  const row = await getDispute(deps, owner, id);
  return disputeView(row, await disputesDb.listDisputeFiles(deps.db, [row.id]));
}

export async function listDisputes(
  deps: Pick<Deps, "db">,
  owner: Owner,
  q: { page: number; limit: number; status?: string; transactionId?: string },
): Promise<{ items: DisputeView[]; total: number }> {
  const { rows, total } = await disputesDb.listDisputesOf(deps.db, owner, { ...q, payinId: q.transactionId });
  const files = await disputesDb.listDisputeFiles(deps.db, rows.map((r) => r.id));
  return { items: rows.map((r) => disputeView(r, files)), total };
}

/** The operator's view: every merchant, newest first. */
export async function listDisputesForOperator(
  deps: Pick<Deps, "db">,
  q: { status?: string; merchantId?: string; limit: number },
): Promise<Array<DisputeView & { merchantId: string }>> {
  const rows = await disputesDb.listAllDisputes(deps.db, q);
  const files = await disputesDb.listDisputeFiles(deps.db, rows.map((r) => r.id));
  return rows.map((r) => ({ ...disputeView(r, files), merchantId: r.merchant_id }));
}

export async function findDisputeForOperator(deps: Pick<Deps, "db">, id: string) {
  const row = isWellFormedId("dsp", id) ? await disputesDb.findDispute(deps.db, id) : undefined;
  if (!row) throw new AppError("NOT_FOUND", "No such dispute");
  return {
    ...disputeView(row, await disputesDb.listDisputeFiles(deps.db, [row.id])),
    merchantId: row.merchant_id,
  };
}

/** One evidence file's bytes for an operator (NOT_FOUND unless it belongs to that dispute). */
export async function readDisputeFile(deps: Pick<Deps, "db" | "config">, id: string, fileId: string) {
  const file = isWellFormedId("dsp", id) && isWellFormedId("dsf", fileId)
    ? (await disputesDb.listDisputeFiles(deps.db, [id])).find((f) => f.id === fileId)
    : undefined;
  const stored = file ? await openStorage(deps.config.storage, deps.db).get(file.object_key) : null;
  if (!file || !stored) throw new AppError("NOT_FOUND", "No such evidence file");
  return { bytes: stored.bytes, contentType: file.content_type, fileName: file.file_name };
}
