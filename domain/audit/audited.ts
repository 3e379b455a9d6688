// An operator action and its audit record in one transaction: `run` does the action on the transaction
// handle and says what the item was before and is after; the record is appended last (it takes the
// chain's lock, held to the commit). If the action throws, nothing is recorded and nothing changes.
import type { Db } from "../../db/mod.ts";
import type { Clock } from "../clock.ts";
import type { Actor } from "../operators/roles.ts";
import { appendAudit, type AuditEntry } from "./trail.ts";

export type Audited<T> = { result: T; before?: unknown; after?: unknown; itemId?: string };

export async function audited<T>(
  deps: { db: Db; clock: Clock },
  actor: Actor,
  entry: Omit<AuditEntry, "before" | "after">,
  run: (tx: Db) => Promise<Audited<T>>,
): Promise<T> {
  return await deps.db.tx(async (tx) => {
    const done = await run(tx);
    await appendAudit({ db: tx, clock: deps.clock }, actor, {
      ...entry,
      itemId: done.itemId ?? entry.itemId,
      before: done.before ?? null,
      after: done.after ?? null,
    });
    return done.result;
  });
}
