// The merchant's answer: evidence (text and files) before the deadline, or accepting the dispute.
// Files are judged by their bytes, never by their name or declared type: a PDF, PNG or JPEG signature,
// at most `maxFileBytes` each and MAX_FILES per dispute. They go behind the storage seam under a key no
// one can derive without the dispute's id and the bytes, ending `.dsp`: the public image route never
// serves those.
import { DISPUTE_DEFAULTS } from "../../config.ts";
import * as disputesDb from "../../db/disputes.ts";
import type { DisputeFileRow, DisputeRow } from "../../db/disputes.ts";
import type { Caller } from "../keys/caller.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import { sha256Hex, toHex } from "../crypto.ts";
import { openStorage } from "../../rails/storage/mod.ts";
import { settleDispute } from "./settle.ts";
import { assertDisputeMove } from "./states.ts";
import { getDispute } from "./queries.ts";

type Owner = Pick<Caller, "merchantId" | "isSandbox">;
type ActDeps = Pick<Deps, "db" | "clock" | "queue" | "config">;

export const MAX_FILES = 10;
export const MAX_EVIDENCE_TEXT = 20_000;

export type EvidenceFile = { name: string; bytes: Uint8Array };

const KINDS: Array<{ ext: "pdf" | "png" | "jpg"; type: string; magic: number[] }> = [
  { ext: "pdf", type: "application/pdf", magic: [0x25, 0x50, 0x44, 0x46, 0x2d] }, // %PDF-
  { ext: "png", type: "image/png", magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { ext: "jpg", type: "image/jpeg", magic: [0xff, 0xd8, 0xff] },
];

function kindOf(bytes: Uint8Array) {
  return KINDS.find((k) => k.magic.every((b, i) => bytes[i] === b));
}

function fileProblem(index: number, reason: string): AppError {
  return new AppError("VALIDATION_ERROR", `Evidence file ${index + 1}: ${reason}`, {
    details: [{ field: `files[${index}]`, reason }],
  });
}

/** A file name kept for display only: printable, short. */
function cleanName(name: string, ext: string): string {
  const printable = name.replace(/[^\p{L}\p{N} ._()-]/gu, "").trim().slice(0, 100);
  return printable || `evidence.${ext}`;
}

/**
 * Adds the merchant's evidence: the text (replacing an earlier one) and files (added; the same bytes twice
 * are one file). OPEN becomes UNDER_REVIEW; after the deadline nothing is taken.
 */
export async function submitEvidence(
  deps: ActDeps,
  owner: Owner,
  id: string,
  input: { text?: string; files: EvidenceFile[] },
): Promise<{ dispute: DisputeRow; files: DisputeFileRow[] }> {
  const max = (deps.config.disputes ?? DISPUTE_DEFAULTS).maxFileBytes;
  const first = await getDispute(deps, owner, id);
  assertDisputeMove(first.status, "evidence");
  if (input.text === undefined && input.files.length === 0) {
    throw new AppError("VALIDATION_ERROR", "Send `text`, files, or both", {
      details: [{ field: "text", reason: "evidence needs text or at least one file" }],
    });
  }
  const checked = input.files.map((f, i) => {
    if (f.bytes.length === 0) throw fileProblem(i, "the file is empty");
    if (f.bytes.length > max) throw fileProblem(i, `larger than ${max} bytes`);
    const kind = kindOf(f.bytes);
    if (!kind) throw fileProblem(i, "not a PDF, PNG or JPEG file (judged by its bytes)");
    return { ...f, kind };
  });
  const stored: Array<{ key: string; name: string; type: string; size: number }> = [];
  for (const f of checked) {
    const digest = toHex(await crypto.subtle.digest("SHA-256", f.bytes as Uint8Array<ArrayBuffer>));
    const key = `${await sha256Hex(`dispute:${first.id}:${digest}`)}.dsp`;
    await openStorage(deps.config.storage, deps.db).put(key, f.bytes, f.kind.type);
    stored.push({ key, name: cleanName(f.name, f.kind.ext), type: f.kind.type, size: f.bytes.length });
  }
  const now = deps.clock.now();
  return await deps.db.tx(async (tx) => {
    const d = await disputesDb.lockDispute(tx, first.id);
    if (!d) throw new AppError("NOT_FOUND", "No such dispute");
    const to = assertDisputeMove(d.status, "evidence");
    if (now > d.evidence_due_at) {
      throw new AppError("INVALID_TRANSACTION_STATUS", "The deadline for evidence has passed", {
        reason: "DISPUTE_EVIDENCE_DEADLINE_PASSED",
      });
    }
    const known = await disputesDb.listDisputeFiles(tx, [d.id]);
    const fresh = stored.filter((s) => !known.some((k) => k.object_key === s.key));
    if (known.length + new Set(fresh.map((f) => f.key)).size > MAX_FILES) {
      throw new AppError("VALIDATION_ERROR", `A dispute takes at most ${MAX_FILES} evidence files`, {
        details: [{ field: "files", reason: `at most ${MAX_FILES} per dispute` }],
      });
    }
    for (const s of fresh) {
      await disputesDb.insertDisputeFile(tx, {
        id: newId("dsf", now.getTime()),
        dispute_id: d.id,
        object_key: s.key,
        content_type: s.type,
        size_bytes: s.size,
        file_name: s.name,
        created_at: now,
      });
    }
    const moved = await disputesDb.moveDispute(tx, d.id, d.status, {
      status: to,
      evidence_text: input.text ?? d.evidence_text,
      evidence_submitted_at: now,
    }, now);
    return { dispute: moved!, files: await disputesDb.listDisputeFiles(tx, [d.id]) };
  });
}

/** The merchant gives in: the dispute is REJECTED at once, the held amount debited. */
export async function acceptDispute(deps: ActDeps, owner: Owner, id: string): Promise<DisputeRow> {
  const first = await getDispute(deps, owner, id);
  return await deps.db.tx(async (tx) => {
    const d = (await disputesDb.lockDispute(tx, first.id))!;
    return await settleDispute(deps, tx, d, "accept", {
      outcome: "ACCEPTED",
      decidedBy: "merchant",
      note: null,
    });
  });
}
