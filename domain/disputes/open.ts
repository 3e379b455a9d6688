// Opening a dispute: from the card acquirer's signed chargeback notification, or by an operator (a mobile
// money or USDT complaint). In one transaction: the dispute row (one per case, ever: a repeated
// notification finds the first), the hold through the ledger helper, and `dispute.opened`.
import { DISPUTE_DEFAULTS } from "../../config.ts";
import * as disputesDb from "../../db/disputes.ts";
import type { DisputeRow } from "../../db/disputes.ts";
import type { Db } from "../../db/mod.ts";
import { lockPayin, type PayinRow } from "../../db/payins.ts";
import { refundedOrHeld } from "../../db/refunds.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import { CURRENCY_DECIMALS, Decimal, formatAmount } from "../money.ts";
import { emitEvent } from "../webhooks/events.ts";
import { takeOwed } from "./hold.ts";
import { disputeEventData } from "./view.ts";
import { addWorkingHours } from "./working_hours.ts";

export type OpenDeps = Pick<Deps, "db" | "clock" | "queue" | "config">;

export type OpenInput = {
  payinId: string;
  source: "PROVIDER" | "OPERATOR";
  caseRef: string;
  reason: string;
  cardOrigin: "LOCAL" | "INTERNATIONAL";
  /** What is disputed; undefined: everything the customer paid that no other dispute claims. */
  amount?: string;
  openedBy: string;
};

/** Pay-ins a customer actually paid: only those can be disputed. */
const PAID = new Set(["CONFIRMED", "OVERPAID", "UNDERPAID"]);
const RAIL_OF = { CARD: "CARD", MOBILE_MONEY: "MOMO", USDT_TRC20: "TRC20" } as const;

function deadline(deps: Pick<Deps, "config">, origin: OpenInput["cardOrigin"], now: Date): Date {
  const c = deps.config.disputes ?? DISPUTE_DEFAULTS;
  return addWorkingHours(now, origin === "LOCAL" ? c.evidenceHoursLocal : c.evidenceHoursInternational);
}

/**
 * The amount disputed, checked against what the pay-in received less what other disputes claim and what
 * refunds (not rejected, cancelled or failed) return: the same pay-in lock serializes both paths.
 */
async function disputedAmount(tx: Db, payin: PayinRow, asked: string | undefined): Promise<Decimal> {
  const left = new Decimal(payin.amount_received)
    .minus(await disputesDb.claimedOnPayin(tx, payin.id))
    .minus(await refundedOrHeld(tx, payin.id));
  const amount = asked === undefined ? left : new Decimal(asked);
  if (amount.lte(0) || left.lte(0)) {
    throw new AppError("INVALID_STATE", "Everything this pay-in received is already disputed or refunded");
  }
  if (amount.gt(left)) {
    throw new AppError(
      "INVALID_AMOUNT",
      `At most ${formatAmount(left, payin.currency)} of this pay-in can be disputed`,
    );
  }
  if (amount.decimalPlaces() > CURRENCY_DECIMALS[payin.currency]) {
    throw new AppError("INVALID_AMOUNT", `Too many decimals for ${payin.currency}`);
  }
  return amount;
}

/**
 * Opens the dispute, or answers the one already opened for this case (`created: false`, nothing moved).
 * The pay-in is locked first, so two disputes of one pay-in never claim the same money.
 */
export async function openDispute(
  deps: OpenDeps,
  input: OpenInput,
  check: (payin: PayinRow) => void = () => {},
): Promise<{ dispute: DisputeRow; created: boolean }> {
  const now = deps.clock.now();
  return await deps.db.tx(async (tx) => {
    const known = await disputesDb.findDisputeByCase(tx, input.source, input.caseRef);
    if (known) return { dispute: known, created: false };
    const payin = await lockPayin(tx, input.payinId);
    if (!payin) throw new AppError("NOT_FOUND", "No pay-in with this id");
    // A copy of the same notification may have opened it while this one waited for the pay-in's lock:
    // it is a repeat, not a second dispute claiming what is left.
    const opened = await disputesDb.findDisputeByCase(tx, input.source, input.caseRef);
    if (opened) return { dispute: opened, created: false };
    check(payin);
    if (!PAID.has(payin.status)) {
      throw new AppError(
        "INVALID_TRANSACTION_STATUS",
        `Pay-in is ${payin.status}; only a paid one can be disputed`,
      );
    }
    const amount = await disputedAmount(tx, payin, input.amount);
    const inserted = await disputesDb.insertDispute(tx, {
      id: newId("dsp", now.getTime()),
      merchantId: payin.merchant_id,
      isSandbox: payin.is_sandbox,
      payinId: payin.id,
      source: input.source,
      caseRef: input.caseRef,
      reason: input.reason,
      cardOrigin: input.cardOrigin,
      currency: payin.currency,
      rail: RAIL_OF[payin.payment_method],
      amount: amount.toFixed(),
      dueAt: deadline(deps, input.cardOrigin, now),
      openedBy: input.openedBy,
      now,
    });
    // A concurrent copy of the same notification got in first (this one waited on the unique index).
    if (!inserted) {
      return {
        dispute: (await disputesDb.findDisputeByCase(tx, input.source, input.caseRef))!,
        created: false,
      };
    }
    // All of it is owed at first; takeOwed holds what the wallet has and records the rest as shortfall.
    const owing =
      (await disputesDb.moveDispute(tx, inserted.id, "OPEN", { shortfall: amount.toFixed() }, now))!;
    const dispute = await takeOwed(tx, owing, now);
    await emitEvent({ ...deps, db: tx }, {
      merchantId: dispute.merchant_id,
      isSandbox: dispute.is_sandbox,
      type: "dispute.opened",
      data: disputeEventData(dispute, now),
    });
    return { dispute, created: true };
  });
}
