// The controls a batch passes before its money moves, beyond each item's own checks at import: who may
// send XOF (the scope of XOF withdrawals), the per-item limits (again at validate and execute, whatever
// was stored before), and which mobile money recipients an operator must look at first.
import * as store from "../../db/bulk.ts";
import type { Db } from "../../db/mod.ts";
import { assertScope } from "../keys/api_keys.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { Decimal, formatAmount } from "../money.ts";
import { MANUAL_APPROVAL_ABOVE } from "../money_out/request.ts";
import { MOMO_MAXIMUM } from "./items.ts";
import { consumePlanLimits, MONEY_OUT_COUNTERS, planLimitsOf } from "../limits/plan.ts";

/** The most one item may pay, per rail (the same bounds the import checks each item against). */
export const ITEM_MAXIMUM = { USDT_TRC20: MANUAL_APPROVAL_ABOVE, MOBILE_MONEY: MOMO_MAXIMUM } as const;

/** Lines named in one answer; a batch holds up to 1,000. */
const LINES_SHOWN = 100;

/**
 * Mobile money sends XOF to numbers, as an XOF withdrawal does: executing or retrying such a batch needs
 * `withdrawals_write` on top of the route's `payouts_write` (FORBIDDEN, cause INSUFFICIENT_SCOPE).
 */
export function assertMaySend(caller: Caller, batch: store.BatchRow): void {
  if (batch.rail === "MOBILE_MONEY") assertScope(caller, "withdrawals_write", true);
}

/**
 * Every limit on what the batch's items pay, at validate, execute and retry: the rail's per-item maximum
 * (AMOUNT_TOO_LARGE naming the lines), then the merchant's per-transaction maximum (MERCHANT_LIMIT_EXCEEDED
 * naming the lines). The plan's money-out caps are taken at execute with the batch's debit
 * (consumeBatchCaps), after the wallet is locked, as payouts take them.
 */
export async function assertWithinLimits(
  deps: Pick<Deps, "db" | "config">,
  batch: store.BatchRow,
  items: store.ItemRow[],
): Promise<void> {
  assertItemsWithinRail(batch, items);
  const limits = await planLimitsOf(deps, batch.merchant_id);
  const max = limits[batch.currency === "XOF" ? "transactionMaxXof" : "transactionMaxUsdt"];
  const over = items.filter((i) => new Decimal(i.amount).greaterThan(max));
  if (over.length > 0) {
    const limit = `${max} ${batch.currency === "XOF" ? "XOF" : "USDT"}`;
    throw new AppError(
      "MERCHANT_LIMIT_EXCEEDED",
      `${over.length} item(s) above this merchant's per-transaction maximum of ${limit}, from line ${
        over[0].line
      }`,
      {
        details: over.slice(0, LINES_SHOWN).map((i) => ({
          field: `items.${i.line}.amount`,
          line: i.line,
          reason: `line ${i.line}: at most ${limit} per transaction for this merchant`,
        })),
      },
    );
  }
}

/**
 * The plan's daily and monthly money-out caps, taken by a batch at execute for the sum of its items'
 * amounts (fees apart, as a payout counts its amount): call inside the debit's journal, after the wallet is
 * locked. A retry takes nothing more (its items were counted at execute).
 */
export async function consumeBatchCaps(
  deps: Pick<Deps, "db" | "clock" | "config">,
  batch: store.BatchRow,
  amount: string,
): Promise<void> {
  const scope = { merchantId: batch.merchant_id, isSandbox: batch.is_sandbox };
  await consumePlanLimits(deps, scope, MONEY_OUT_COUNTERS[batch.currency], amount);
}

function assertItemsWithinRail(batch: store.BatchRow, items: store.ItemRow[]): void {
  const max = ITEM_MAXIMUM[batch.rail];
  const over = items.filter((i) => max.lessThan(i.amount));
  if (over.length > 0) {
    const limit = `${formatAmount(max, batch.currency)} ${batch.currency}`;
    throw new AppError(
      "AMOUNT_TOO_LARGE",
      `${over.length} item(s) above the ${limit} per-item maximum, from line ${over[0].line}`,
      {
        details: over.slice(0, LINES_SHOWN).map((i) => ({
          field: `items.${i.line}.amount`,
          line: i.line,
          reason: `line ${i.line}: at most ${limit} per item`,
        })),
      },
    );
  }
}

export type ReviewNeed = { line: number; phone: string; reason: string };

/**
 * Mobile money items whose number is not one of the merchant's MOMO fiat destinations (same mode) past
 * its cooldown: each is why the batch must wait for an operator. USDT items are whitelisted already.
 */
export async function recipientsToReview(
  deps: { db: Db; clock: Deps["clock"] },
  batch: store.BatchRow,
  items: store.ItemRow[],
): Promise<ReviewNeed[]> {
  if (batch.rail !== "MOBILE_MONEY") return [];
  const scope = { merchantId: batch.merchant_id, isSandbox: batch.is_sandbox };
  const phones = [...new Set(items.map((i) => i.wallet_address))];
  const registered = await store.momoDestinations(deps.db, scope, phones);
  const now = deps.clock.now();
  return items.flatMap((i) => {
    const usableAt = registered.get(i.wallet_address);
    if (usableAt === undefined) {
      return [{ line: i.line, phone: i.wallet_address, reason: "not a registered fiat destination" }];
    }
    if (usableAt > now) {
      return [{
        line: i.line,
        phone: i.wallet_address,
        reason: `fiat destination in its cooldown until ${usableAt.toISOString()}`,
      }];
    }
    return [];
  });
}

/** The reason an operator and the merchant read: how many lines, then the first ones. */
export function reviewReason(needs: ReviewNeed[]): string {
  const shown = needs.slice(0, 20).map((n) => `line ${n.line} ${n.phone}: ${n.reason}`).join("; ");
  const more = needs.length > 20 ? `; and ${needs.length - 20} more` : "";
  return `${needs.length} recipient(s) not cleared for direct payment: ${shown}${more}`;
}
