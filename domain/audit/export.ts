// A period of the audit trail as CSV, in chain order, streamed a page at a time (memory stays flat
// whatever the period holds). The hashes are included, so the export can be checked against the chain.
import { stringify } from "csv-stringify/sync";
import type { Db } from "../../db/mod.ts";
import { neutralizeCell } from "../shop/orders.ts";
import { AUDIT_EXPORT_PAGE, auditPeriodPage, type AuditRecord } from "./trail.ts";

const COLUMNS = [
  "seq",
  "at",
  "actorKind",
  "actorId",
  "actor",
  "role",
  "address",
  "action",
  "itemType",
  "itemId",
  "note",
  "before",
  "after",
  "prevHash",
  "hash",
] as const;

function row(r: AuditRecord): string[] {
  const json = (v: unknown) => v === null ? "" : JSON.stringify(v);
  return [
    String(r.seq),
    r.at,
    r.actor.kind,
    r.actor.id,
    neutralizeCell(r.actor.label),
    r.actor.role,
    r.actor.address,
    r.action,
    r.itemType ?? "",
    r.itemId ?? "",
    neutralizeCell(r.note),
    json(r.before),
    json(r.after),
    r.prevHash,
    r.hash,
  ];
}

/** An empty or reversed period is a header alone; any length streams at flat memory. */
export function exportAuditCsv(
  deps: { db: Db },
  period: { from: Date; to: Date },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let afterSeq = 0;
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const page = await auditPeriodPage(deps, { ...period, afterSeq });
      const text = stringify(page.map(row), { header: !headerSent, columns: [...COLUMNS] });
      headerSent = true;
      if (text) controller.enqueue(encoder.encode(text));
      if (page.length < AUDIT_EXPORT_PAGE) return controller.close();
      afterSeq = page[page.length - 1].seq;
    },
  });
}
