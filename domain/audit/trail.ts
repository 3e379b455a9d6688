// The audit trail: who (an operator or the token), with which role, when, from which address, did what
// to which item, with which note, and the item before and after. Each record is appended in the
// action's own transaction, so an action and its record commit together or not at all. Records are
// hash-chained: `hash` = SHA-256 of the record's canonical JSON, which carries the previous record's
// hash, so changing, removing or reordering any record breaks every hash after it (`verifyAuditChain`).
import * as store from "../../db/audit.ts";
import type { Db } from "../../db/mod.ts";
import { canonicalJson } from "../canonical_json.ts";
import type { Clock } from "../clock.ts";
import { sha256Hex } from "../crypto.ts";
import type { Actor } from "../operators/roles.ts";

export const GENESIS_HASH = "0".repeat(64);

export type AuditEntry = {
  /** What was done, as `area.verb`: `payout.approve`, `merchant.update`, `operator.sign_in`... */
  action: string;
  itemType?: string;
  itemId?: string | null;
  note?: string | null;
  before?: unknown;
  after?: unknown;
};

export type AuditRecord = {
  seq: number;
  at: string;
  actor: { kind: "token" | "operator" | "cli"; id: string; label: string; role: string; address: string };
  action: string;
  itemType: string | null;
  itemId: string | null;
  note: string | null;
  before: unknown;
  after: unknown;
  prevHash: string;
  hash: string;
};

/** JSON as jsonb gives it back (undefined properties dropped, dates as text), so hashes survive a read. */
function storable(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value) ?? "null");
}

/** The text a record's hash is taken over: every field but the hash itself, canonical. */
function hashedText(r: Omit<AuditRecord, "hash">): string {
  return canonicalJson({ v: 1, ...r });
}

export function recordOf(row: store.AuditRow): AuditRecord {
  return {
    seq: Number(row.seq),
    at: row.at.toISOString(),
    actor: {
      kind: row.actor_kind,
      id: row.actor_id,
      label: row.actor_label,
      role: row.role,
      address: row.client_address,
    },
    action: row.action,
    itemType: row.item_type,
    itemId: row.item_id,
    note: row.note,
    before: row.before ?? null,
    after: row.after ?? null,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/**
 * Appends one record in the transaction `tx` (opened here when `db` is not one). The chain's head is read
 * under a transaction advisory lock, so concurrent appends queue and the chain stays one line; the lock
 * is held to the commit, so call this last in a transaction.
 */
export async function appendAudit(
  deps: { db: Db; clock: Clock },
  actor: Actor,
  entry: AuditEntry,
): Promise<AuditRecord> {
  return await deps.db.tx(async (tx) => {
    const head = await store.lockChainHead(tx);
    const unhashed: Omit<AuditRecord, "hash"> = {
      seq: head ? Number(head.seq) + 1 : 1,
      at: deps.clock.now().toISOString(),
      actor: { kind: actor.kind, id: actor.id, label: actor.label, role: actor.role, address: actor.address },
      action: entry.action,
      itemType: entry.itemType ?? null,
      itemId: entry.itemId ?? null,
      note: entry.note ?? null,
      before: storable(entry.before),
      after: storable(entry.after),
      prevHash: head?.hash ?? GENESIS_HASH,
    };
    const record = { ...unhashed, hash: await sha256Hex(hashedText(unhashed)) };
    await store.insertAuditRow(tx, {
      seq: record.seq,
      at: new Date(record.at),
      actor_kind: actor.kind,
      actor_id: actor.id,
      actor_label: actor.label,
      role: actor.role,
      client_address: actor.address,
      action: record.action,
      item_type: record.itemType,
      item_id: record.itemId,
      note: record.note,
      before: record.before,
      after: record.after,
      prev_hash: record.prevHash,
      hash: record.hash,
    });
    return record;
  });
}

export type ChainCheck =
  | { ok: true; records: number; head: string }
  | { ok: false; records: number; brokenAt: number; reason: string };

const VERIFY_PAGE = 500;

/**
 * Walks the whole chain in order: sequence numbers without gaps from 1, each record's `prevHash` equal to
 * the hash before it, and each hash recomputed from the record's columns. The first break is reported.
 */
export async function verifyAuditChain(deps: { db: Db }): Promise<ChainCheck> {
  let previous = GENESIS_HASH;
  let expectedSeq = 1;
  let after = "0";
  for (;;) {
    const page = await store.auditPage(deps.db, after, VERIFY_PAGE);
    for (const row of page) {
      const record = recordOf(row);
      const broken = (reason: string): ChainCheck => ({
        ok: false,
        records: expectedSeq - 1,
        brokenAt: record.seq,
        reason,
      });
      if (record.seq !== expectedSeq) return broken(`record ${expectedSeq} is missing`);
      if (record.prevHash !== previous) return broken("its previous hash is not the hash before it");
      const { hash, ...unhashed } = record;
      if (await sha256Hex(hashedText(unhashed)) !== hash) {
        return broken("its content does not match its hash");
      }
      previous = hash;
      expectedSeq++;
    }
    if (page.length < VERIFY_PAGE) return { ok: true, records: expectedSeq - 1, head: previous };
    after = page[page.length - 1].seq;
  }
}

/** An item's records, oldest first (at most 500). */
export async function itemAudit(deps: { db: Db }, itemId: string): Promise<AuditRecord[]> {
  return (await store.auditOfItem(deps.db, itemId, 500)).map(recordOf);
}

export const AUDIT_EXPORT_PAGE = 500;

/** The records of [from, to), a page at a time in chain order (the CSV export reads through this). */
export async function auditPeriodPage(
  deps: { db: Db },
  p: { from: Date; to: Date; afterSeq: number },
): Promise<AuditRecord[]> {
  return (await store.auditOfPeriod(deps.db, {
    from: p.from,
    to: p.to,
    afterSeq: String(p.afterSeq),
    limit: AUDIT_EXPORT_PAGE,
  })).map(recordOf);
}
