// Every minute: disputes past their evidence deadline are lost (DEADLINE_MISSED), and disputes still
// owed money take it from the wallet's new credits. Safe for two processes at once: domain/disputes/sweep.ts.
import type { Deps } from "../domain/deps.ts";
import { sweepDisputes } from "../domain/disputes/sweep.ts";

export async function handleDisputeSweep(deps: Deps): Promise<void> {
  await sweepDisputes(deps);
}
