// The dispute-sweep job (every minute, and safe when two processes run it at once):
//   1. an OPEN dispute past its evidence deadline is REJECTED (DEADLINE_MISSED) and its hold debited;
//   2. a dispute that still owes money takes what the wallet now holds (its next credits).
// Each dispute is handled in its own transaction under its row lock, re-reading its state: a second
// process waits for the first and then finds nothing left to do (the move's table refuses, or nothing is
// owed), and every journal has a unique reference besides.
import * as disputesDb from "../../db/disputes.ts";
import type { Deps } from "../deps.ts";
import { takeOwed } from "./hold.ts";
import { settleDispute } from "./settle.ts";

const BATCH = 200;

export async function sweepDisputes(
  deps: Pick<Deps, "db" | "clock" | "queue" | "log">,
): Promise<{ expired: number; collected: number }> {
  let expired = 0;
  let collected = 0;
  const now = deps.clock.now();
  for (const { id } of await disputesDb.listOverdue(deps.db, now, BATCH)) {
    const done = await deps.db.tx(async (tx) => {
      const d = await disputesDb.lockDispute(tx, id);
      if (!d || d.status !== "OPEN" || d.evidence_due_at > now) return false;
      await settleDispute(deps, tx, d, "expire", {
        outcome: "DEADLINE_MISSED",
        decidedBy: "deadline",
        note: null,
      });
      return true;
    });
    if (done) expired++;
  }
  for (const { id } of await disputesDb.listOwing(deps.db, BATCH)) {
    const took = await deps.db.tx(async (tx) => {
      const d = await disputesDb.lockDispute(tx, id);
      if (!d) return false;
      const after = await takeOwed(tx, d, deps.clock.now());
      return after.shortfall !== d.shortfall;
    });
    if (took) collected++;
  }
  if (expired + collected > 0) deps.log.info("disputes swept", { expired, collected });
  return { expired, collected };
}
