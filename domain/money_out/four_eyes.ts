// Four eyes: approving a payout or withdrawal of more than the configured amount (FOUR_EYES_ABOVE_USDT,
// FOUR_EYES_ABOVE_XOF) takes two different reviewers. The first approval is recorded and the item keeps
// waiting; the second, by someone else, sends it on. "Someone" is who is signed in (an operator's id), or
// "token" for ADMIN_TOKEN however its calls name their reviewer: one credential is one person.
import { firstApprovals, type OutboundRow } from "../../db/outbound.ts";
import type { Db } from "../../db/mod.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { Decimal } from "../money.ts";

export type Approvals = { needed: 1 | 2; given: number; by: string[] };

export function approvalsNeeded(config: Pick<Deps["config"], "operators">, row: OutboundRow): 1 | 2 {
  const limits = config.operators.fourEyesAbove;
  const threshold = row.currency === "XOF" ? limits.XOF : limits.USDT_TRC20;
  return new Decimal(row.amount).greaterThan(threshold) ? 2 : 1;
}

/** Where each item stands: approvals needed, first approvals given (while it waits) and by whom. */
export async function approvalsOf(
  deps: { db: Db; config: Pick<Deps["config"], "operators"> },
  rows: OutboundRow[],
): Promise<Map<string, Approvals>> {
  const given = await firstApprovals(deps.db, rows.map((r) => r.id));
  return new Map(rows.map((row) => {
    const mine = given.filter((g) => g.outbound_id === row.id);
    return [row.id, {
      needed: approvalsNeeded(deps.config, row),
      given: mine.length,
      by: mine.map((g) => g.operator),
    }];
  }));
}

export type ApprovalStep = "first" | "final";

/**
 * Under the item's lock: whether `actorId`'s approval is the first of two (recorded, the item waits) or the
 * one that sends the item on. The first approver cannot give the second: 403 FORBIDDEN, cause
 * SAME_APPROVER.
 */
export async function approvalStep(
  deps: { db: Db; config: Pick<Deps["config"], "operators"> },
  row: OutboundRow,
  actorId: string,
): Promise<ApprovalStep> {
  if (approvalsNeeded(deps.config, row) === 1) return "final";
  const given = await firstApprovals(deps.db, [row.id]);
  if (given.length === 0) return "first";
  if (given.some((g) => g.actor === actorId)) {
    throw new AppError(
      "FORBIDDEN",
      "You gave this item's first approval: a second, different reviewer must approve it",
      { reason: "SAME_APPROVER" },
    );
  }
  return "final";
}
