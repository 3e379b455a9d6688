// POST /v1/payments/:id/refunds: a merchant asks to give a confirmed pay-in's money back. The pay-in is
// locked, so concurrent requests are judged one after another against what is left; the amount leaves the
// merchant's wallet for IN_FLIGHT in the same transaction as the refund row and `refund.created`.
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import { claimedOnPayin } from "../../db/disputes.ts";
import { findMerchantPayin, lockPayin, type PayinRow } from "../../db/payins.ts";
import { insertRefund, refundAutoApproveBelow, refundedOrHeld, type RefundRow } from "../../db/refunds.ts";
import type { Caller } from "../keys/caller.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import { postJournal } from "../ledger.ts";
import { CURRENCY_DECIMALS, Decimal, formatAmount, hasAtMostDecimals } from "../money.ts";
import { emitEvent } from "../webhooks/events.ts";
import { refundingCardProvider } from "./card_provider.ts";
import { transitionRefund } from "./states.ts";
import { customerPagePatch } from "./usdt_link.ts";
import { refundEventData } from "./view.ts";

type CreateDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "fiat">;

export type RefundRequest = {
  payinId: string;
  /** Absent: all that is left to refund. */
  amount?: string;
  reason?: string;
  /** A paylink order's items go back to stock when the refund completes. */
  restock?: boolean;
  idempotencyKey?: string;
};

export const DEFAULT_REFUND_WINDOW_DAYS = 180;
const REFUNDABLE_STATUSES = new Set(["CONFIRMED", "OVERPAID"]);
const WALLET_RAIL = { CARD: "CARD", MOBILE_MONEY: "MOMO", USDT_TRC20: "TRC20" } as const;

/**
 * Whether the pay-in's own rail can carry money back: a card capture with the acquirer's reference, a
 * mobile money payment with the paying number, and any USDT pay-in (the customer gives the address on the
 * hosted refund page once it is approved: domain/refunds/usdt.ts).
 */
export function assertRailCanRefund(deps: Pick<Deps, "fiat">, payin: PayinRow): void {
  const ok = payin.payment_method === "CARD"
    ? Boolean(payin.provider_ref && refundingCardProvider(deps, payin.is_sandbox))
    : payin.payment_method === "MOBILE_MONEY"
    ? Boolean(payin.customer_phone && payin.operator_code)
    : payin.payment_method === "USDT_TRC20";
  if (!ok) {
    throw new AppError(
      "REFUND_RAIL_NOT_AVAILABLE",
      "This pay-in's acquirer has no refund call, or it has no reference or paying number to refund to",
    );
  }
}

function parseAmount(value: string, payin: PayinRow): Decimal {
  const decimals = CURRENCY_DECIMALS[payin.currency];
  if (!/^\d{1,18}(\.\d+)?$/.test(value) || !hasAtMostDecimals(value, decimals)) {
    throw new AppError(
      "INVALID_AMOUNT",
      decimals === 0 ? "A refund in XOF is a whole number of francs" : "At most 6 decimals",
    );
  }
  const amount = new Decimal(value);
  if (amount.lte(0)) throw new AppError("INVALID_AMOUNT", "A refund amount is more than zero");
  return amount;
}

/**
 * NOT_FOUND unless the pay-in is the caller's, in the key's mode: checked before the Idempotency-Key, so an
 * unknown or foreign id answers the same whatever the headers.
 */
export async function assertOwnPayin(deps: Pick<Deps, "db">, caller: Caller, payinId: string): Promise<void> {
  if (!(await findMerchantPayin(deps.db, caller.merchantId, caller.isSandbox, payinId))) {
    throw new AppError("NOT_FOUND", "No pay-in with this id");
  }
}

/** Creates the refund and its reservation on `deps.db` (the idempotent request's transaction). */
export async function requestRefund(
  deps: CreateDeps,
  caller: Caller,
  input: RefundRequest,
): Promise<RefundRow> {
  const payin = await lockPayin(deps.db, input.payinId);
  // Another merchant's pay-in, or one of the other mode, does not exist for this key.
  if (!payin || payin.merchant_id !== caller.merchantId || payin.is_sandbox !== caller.isSandbox) {
    throw new AppError("NOT_FOUND", "No pay-in with this id");
  }
  if (!REFUNDABLE_STATUSES.has(payin.status)) {
    throw new AppError(
      "INVALID_TRANSACTION_STATUS",
      `Pay-in is ${payin.status}; only CONFIRMED or OVERPAID pay-ins can be refunded`,
    );
  }
  const now = deps.clock.now();
  const days = deps.config.refundWindowDays ?? DEFAULT_REFUND_WINDOW_DAYS;
  const since = payin.confirmed_at ?? payin.updated_at;
  if (now.getTime() - since.getTime() > days * 86_400_000) {
    throw new AppError("REFUND_WINDOW_EXPIRED", `Pay-ins can be refunded for ${days} days after payment`);
  }
  assertRailCanRefund(deps, payin);
  // Disputes not resolved for the merchant claim their part too: the pay-in is locked by both paths.
  const left = new Decimal(payin.amount_received)
    .minus(await refundedOrHeld(deps.db, payin.id))
    .minus(await claimedOnPayin(deps.db, payin.id));
  const amount = input.amount === undefined ? left : parseAmount(input.amount, payin);
  if (left.lte(0) || amount.gt(left)) {
    throw new AppError(
      "REFUND_EXCEEDS_AMOUNT",
      `At most ${formatAmount(Decimal.max(left, 0), payin.currency)} ${payin.currency} is left to refund`,
    );
  }
  const walletRail = WALLET_RAIL[payin.payment_method];
  const wallet = await findWallet(deps.db, payin.merchant_id, payin.is_sandbox, payin.currency, walletRail);
  const inFlight = await findSystemAccount(deps.db, "IN_FLIGHT", payin.is_sandbox, walletRail);
  if (!wallet) throw new AppError("INSUFFICIENT_BALANCE", "No wallet holds this pay-in's currency");
  const id = newId("rfd", now.getTime());
  let row: RefundRow | undefined;
  await postJournal(deps.db, {
    reference: `refund:${id}:reserve`,
    kind: "REFUND_RESERVE",
    merchantId: payin.merchant_id,
    isSandbox: payin.is_sandbox,
    postings: [
      { accountId: wallet.id, amount: amount.negated() },
      { accountId: inFlight.id, amount },
    ],
    metadata: { refundId: id, payinId: payin.id },
  }, async (tx) => {
    row = await insertRefund(tx, {
      id,
      merchantId: payin.merchant_id,
      isSandbox: payin.is_sandbox,
      payinId: payin.id,
      paymentMethod: payin.payment_method,
      currency: payin.currency,
      walletRail,
      amount: formatAmount(amount, payin.currency),
      reason: input.reason ?? null,
      restock: input.restock ?? false,
      idempotencyKey: input.idempotencyKey ?? null,
      now,
    });
    const txDeps = { ...deps, db: tx };
    await emitEvent(txDeps, {
      merchantId: row.merchant_id,
      isSandbox: row.is_sandbox,
      type: "refund.created",
      data: refundEventData(row, now),
    });
    row = await autoApproveIfBelow(txDeps, row);
  });
  return row!;
}

/** Below the merchant's threshold (set by an operator; none by default) a refund needs no review. */
async function autoApproveIfBelow(deps: CreateDeps, row: RefundRow): Promise<RefundRow> {
  const limit = (await refundAutoApproveBelow(deps.db, row.merchant_id))?.[row.currency] ?? null;
  if (limit === null || !new Decimal(row.amount).lt(limit)) return row;
  const moved = await transitionRefund(deps, row, "APPROVED", {
    approved_at: deps.clock.now(),
    auto_approved: true,
    reviewer: "auto",
    ...(await customerPagePatch(deps.config, row, deps.clock.now())),
  });
  deps.db.afterCommit(() => deps.queue.enqueue({ type: "refund.send", refundId: row.id }));
  return moved;
}
