// Accepting a payout or a withdrawal: amount rules, screening, whitelist, then ONE transaction that
// reserves the money (wallet -> IN_FLIGHT), checks that only solidified credits are spent, records the
// item and its events. Nothing is reserved or sent when any check fails.
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import { lastBlock } from "../../db/chain.ts";
import type { Db } from "../../db/mod.ts";
import {
  insertOutbound,
  isDuplicateExternalRef,
  type OutboundRow,
  unsolidifiedCredits,
} from "../../db/outbound.ts";
import { isTronAddress } from "../../rails/tron/address.ts";
import { screenDestination } from "./aml.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError, AWAITING_SOLIDIFICATION } from "../errors.ts";
import { effectiveFees } from "../fees.ts";
import { newId } from "../ids.ts";
import { postJournal } from "../ledger.ts";
import { Decimal, DECIMAL_STRING, formatAmount, hasAtMostDecimals } from "../money.ts";
import { resolvePayoutDestination, resolveWithdrawalDestination } from "../whitelist/mod.ts";
import { emitAcceptedEvents } from "./transition.ts";
import { assertLiveAllowed } from "../merchants/live_gate.ts";
import { assertWithinTransactionMax, consumePlanLimits } from "../limits/plan.ts";

export const MINIMUM_OUT = new Decimal(5);
/** Above this (USD terms; USDT counts 1:1) a payout waits in PENDING for an operator. */
export const MANUAL_APPROVAL_ABOVE = new Decimal(50_000);
/** A credit is spendable once its block is this many blocks behind the head (solidified). */
export const SOLIDIFIED_DEPTH = 19;

type OutDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log">;

export function parseOutAmount(amount: string): Decimal {
  if (!DECIMAL_STRING.test(amount) || !hasAtMostDecimals(amount, 6)) {
    throw new AppError("INVALID_AMOUNT", "amount must be a decimal string with at most 6 decimals", {
      details: [{ field: "amount", reason: "decimal string, at most 6 decimals" }],
    });
  }
  const value = new Decimal(amount);
  if (value.lessThan(MINIMUM_OUT)) {
    throw new AppError("AMOUNT_TOO_SMALL", `The minimum is ${MINIMUM_OUT.toFixed(2)} USDT`);
  }
  return value;
}

/** Credits in the merchant's USDT wallet whose block is not solidified yet: not spendable. */
export async function unspendableUsdt(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
): Promise<Decimal> {
  if (scope.isSandbox) return new Decimal(0); // sandbox credits never come from a chain
  const followed = await lastBlock(db);
  const solid = followed ? Number(followed.number) - SOLIDIFIED_DEPTH : -1;
  return new Decimal(await unsolidifiedCredits(db, scope, solid));
}

/** Spendable USDT: the wallet less credits whose block is not yet solidified. */
export async function spendableUsdt(
  db: Db,
  scope: { merchantId: string; isSandbox: boolean },
  balance: Decimal.Value,
): Promise<Decimal> {
  return Decimal.max(new Decimal(balance).minus(await unspendableUsdt(db, scope)), 0);
}

async function usdtWallet(db: Db, scope: { merchantId: string; isSandbox: boolean }) {
  const wallet = await findWallet(db, scope.merchantId, scope.isSandbox, "USDT_TRC20", "TRC20");
  if (!wallet) throw new AppError("WALLET_NOT_FOUND", "The merchant has no USDT_TRC20/TRC20 wallet");
  return wallet;
}

/**
 * Inserts the item; a taken externalRef is the merchant's 409, whose transaction (and reservation) then
 * rolls back. The unique index decides, so concurrent requests with one reference record it once.
 */
async function recordOutbound(db: Db, item: Parameters<typeof insertOutbound>[1]): Promise<OutboundRow> {
  try {
    return await insertOutbound(db, item);
  } catch (err) {
    if (!isDuplicateExternalRef(err)) throw err;
    throw new AppError(
      "DUPLICATE_EXTERNAL_REF",
      `externalRef ${item.externalRef} was already used by this merchant`,
    );
  }
}

export type Accepted = Omit<Parameters<typeof insertOutbound>[1], "id" | "now" | "merchantId" | "isSandbox">;

/**
 * Reserves `debited` and records the item in one transaction. The wallet row's lock serializes a
 * merchant's acceptances, so concurrent requests can never spend the same money twice.
 */
async function reserveAndRecord(deps: OutDeps, caller: Caller, item: Accepted): Promise<OutboundRow> {
  const scope = { merchantId: caller.merchantId, isSandbox: caller.isSandbox };
  const id = newId(item.kind === "PAYOUT" ? "pout" : "wdr", deps.clock.now().getTime());
  let recorded: OutboundRow | undefined;
  await deps.db.tx(async (tx) => {
    const wallet = await usdtWallet(tx, scope);
    const inFlight = await findSystemAccount(tx, "IN_FLIGHT", caller.isSandbox, "TRC20");
    await postJournal(tx, {
      reference: `outbound:${id}:reserve`,
      kind: "OUTBOUND_RESERVE",
      merchantId: caller.merchantId,
      isSandbox: caller.isSandbox,
      postings: [
        { accountId: wallet.id, amount: new Decimal(item.debited).negated() },
        { accountId: inFlight.id, amount: item.debited },
      ],
      metadata: { outboundId: id, kind: item.kind },
    }, async (jtx) => {
      // The wallet row is locked by the posting: what is left must not include unsolidified credits.
      const left = new Decimal((await usdtWallet(jtx, scope)).balance);
      if (left.lessThan(await unspendableUsdt(jtx, scope))) {
        // Passing, not decided on the account: a retry under the same key may succeed once the credits
        // are 19 blocks deep, so this answer is not kept as the key's outcome (domain/idempotency.ts).
        throw new AppError(
          "INSUFFICIENT_BALANCE",
          "Part of the balance is not spendable yet (awaiting solidification); retry in a minute",
          { reason: AWAITING_SOLIDIFICATION },
        );
      }
      // The merchant's per-transaction maximum, then the plan's daily and monthly caps on USDT leaving,
      // taken with the reservation (undone with it).
      await assertWithinTransactionMax(
        { ...deps, db: jtx },
        caller.merchantId,
        "USDT_TRC20",
        item.amount,
        item.kind === "PAYOUT" ? "This payout" : "This withdrawal",
      );
      await consumePlanLimits(
        { ...deps, db: jtx },
        scope,
        ["moneyOutDailyUsdt", "moneyOutMonthlyUsdt"],
        item.amount,
      );
      recorded = await recordOutbound(jtx, { ...item, id, ...scope, now: deps.clock.now() });
      await emitAcceptedEvents({ ...deps, db: jtx }, recorded);
    });
    const accepted = recorded!;
    if (accepted.status === "PROCESSING" || accepted.status === "APPROVED") {
      tx.afterCommit(() => deps.queue.enqueue({ type: "outbound.send", outboundId: accepted.id }));
    }
  });
  deps.log.info("money state change", {
    kind: item.kind,
    id,
    merchantId: caller.merchantId,
    mode: caller.isSandbox ? "sandbox" : "live",
    to: recorded!.status,
    amount: item.amount,
  });
  return recorded!;
}

export type PayoutInput = {
  amount: string;
  destinationAddress: string;
  currency?: string;
  chain?: string;
  externalRef?: string;
  metadata?: Record<string, unknown>;
};

/**
 * Everything a payout must pass before money is touched: amount, whitelist, AML screening. It runs on
 * the request's own connection, so an `aml.flagged` survives the refusal that follows it.
 */
export async function preparePayout(deps: OutDeps, caller: Caller, input: PayoutInput): Promise<Accepted> {
  assertLiveAllowed(caller, deps.clock.now());
  const amount = parseOutAmount(input.amount);
  const scope = { merchantId: caller.merchantId, isSandbox: caller.isSandbox };
  const entry = await resolvePayoutDestination(deps, {
    ...scope,
    address: input.destinationAddress,
    via: "API_KEY",
  });
  await screenDestination(deps, { ...scope, address: entry.address, context: "PAYOUT", report: true });
  const fee = new Decimal(effectiveFees(caller.feeSchedule).payoutFlat);
  const manual = amount.greaterThan(MANUAL_APPROVAL_ABOVE);
  return {
    kind: "PAYOUT",
    status: manual ? "PENDING" : "PROCESSING",
    amount: formatAmount(amount, "USDT_TRC20"),
    fee: formatAmount(fee, "USDT_TRC20"),
    debited: formatAmount(amount.plus(fee), "USDT_TRC20"),
    netAmount: formatAmount(amount, "USDT_TRC20"),
    destinationAddress: entry.address,
    whitelistEntryId: entry.id,
    externalRef: input.externalRef ?? null,
    metadata: input.metadata ?? {},
    requiresManualApproval: manual,
  };
}

/** Reserves and records a prepared payout or withdrawal; pass the idempotency transaction as deps.db. */
export async function acceptOutbound(
  deps: OutDeps,
  caller: Caller,
  prepared: Accepted,
): Promise<OutboundRow> {
  return await reserveAndRecord(deps, caller, prepared);
}

/** POST /v1/payout/estimate: the fee and whether the spendable balance covers it; nothing is reserved. */
export async function estimatePayout(deps: OutDeps, caller: Caller, input: PayoutInput) {
  const amount = parseOutAmount(input.amount);
  const scope = { merchantId: caller.merchantId, isSandbox: caller.isSandbox };
  if (!isTronAddress(input.destinationAddress)) {
    throw new AppError("INVALID_ADDRESS", "TRON address malformed (T followed by 33 base58 characters)");
  }
  await screenDestination(deps, {
    ...scope,
    address: input.destinationAddress,
    context: "PAYOUT",
    report: false,
  });
  const fee = new Decimal(effectiveFees(caller.feeSchedule).payoutFlat);
  const wallet = await usdtWallet(deps.db, scope);
  const available = await spendableUsdt(deps.db, scope, wallet.balance);
  const total = amount.plus(fee);
  return {
    fee: formatAmount(fee, "USDT_TRC20"),
    totalDebited: formatAmount(total, "USDT_TRC20"),
    availableBalance: formatAmount(available, "USDT_TRC20"),
    sufficient: available.greaterThanOrEqualTo(total),
  };
}

/** The withdrawal's checks before money is touched (see preparePayout). */
export async function prepareWithdrawal(
  deps: OutDeps,
  caller: Caller,
  input: { amount: string; whitelistAddressId?: string },
): Promise<Accepted> {
  assertLiveAllowed(caller, deps.clock.now());
  const amount = parseOutAmount(input.amount);
  const scope = { merchantId: caller.merchantId, isSandbox: caller.isSandbox };
  const entry = await resolveWithdrawalDestination(deps, {
    ...scope,
    whitelistAddressId: input.whitelistAddressId,
    via: "API_KEY",
  });
  await screenDestination(deps, { ...scope, address: entry.address, context: "WITHDRAWAL", report: true });
  const fee = new Decimal(effectiveFees(caller.feeSchedule).withdrawalFlat);
  if (!amount.greaterThan(fee)) {
    throw new AppError("AMOUNT_TOO_SMALL", `The amount must exceed the ${fee.toFixed(2)} USDT fee`);
  }
  return {
    kind: "WITHDRAWAL",
    status: "PENDING_REVIEW",
    amount: formatAmount(amount, "USDT_TRC20"),
    fee: formatAmount(fee, "USDT_TRC20"),
    debited: formatAmount(amount, "USDT_TRC20"),
    netAmount: formatAmount(amount.minus(fee), "USDT_TRC20"),
    destinationAddress: entry.address,
    whitelistEntryId: entry.id,
    externalRef: null,
    metadata: {},
    requiresManualApproval: true,
  };
}
