// XOF withdrawals: from the merchant's XOF/MOMO or XOF/CARD wallet to one of its fiat destinations.
// Accepted like USDT ones (reserved and recorded with the idempotency answer in one transaction, then
// PENDING_REVIEW); a mobile money one is approved by an operator and paid through the disbursement
// seam; a bank one is paid by an operator at the bank, who then reports the bank's reference
// (complete-fiat: the standard approve answers WITHDRAWAL_APPROVE_NOT_SUPPORTED_FOR_FIAT).
import { assertWithinTransactionMax, consumePlanLimits, MONEY_OUT_COUNTERS } from "../limits/plan.ts";
import { approvalStep } from "../money_out/four_eyes.ts";
import { auditDecision, type DecisionInput, resolveDecision } from "../money_out/review_audit.ts";
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import {
  insertFiatWithdrawal,
  insertReviewDecision,
  lockOutbound,
  type OutboundRow,
} from "../../db/outbound.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { fiatDestinationView, resolveFiatDestination } from "../fiat_destinations/mod.ts";
import { effectiveFees } from "../fees.ts";
import { newId } from "../ids.ts";
import { postJournal } from "../ledger.ts";
import { Decimal, formatAmount } from "../money.ts";
import { releaseOutbound, settleOutbound } from "../money_out/finish.ts";
import { emitAcceptedEvents, transitionOutbound } from "../money_out/transition.ts";
import {
  completeBankDisbursement,
  type DisbursementDestination,
  momoPayoutProvider,
  queueDisbursement,
  registerDisbursementFinisher,
} from "./disburse.ts";
import { assertLiveAllowed } from "../merchants/live_gate.ts";

/** The smallest XOF withdrawal (docs/decisions.md). */
export const MINIMUM_XOF_OUT = new Decimal(1000);

type OutDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log" | "fiat">;

export type FiatWithdrawalInput = {
  amount: string;
  currency: "XOF";
  rail: "MOMO" | "CARD";
  fiatDestinationId?: string;
};

export type PreparedFiatWithdrawal = {
  walletRail: "MOMO" | "CARD";
  amount: string;
  fee: string;
  netAmount: string;
  destinationId: string;
  channel: "MOMO" | "BANK";
  destinationAddress: string;
  destination: DisbursementDestination;
};

/**
 * Which withdrawal a POST /v1/withdrawals body asks for. USDT (the default) keeps its body unchanged;
 * XOF names its wallet by rail and optionally a fiat destination. Mixed fields: VALIDATION_ERROR.
 */
export function withdrawalTarget(body: {
  amount: string;
  whitelistAddressId?: string;
  currency?: "USDT_TRC20" | "XOF";
  rail?: "TRC20" | "MOMO" | "CARD";
  fiatDestinationId?: string;
}): FiatWithdrawalInput | { currency: "USDT_TRC20"; amount: string; whitelistAddressId?: string } {
  const wrong = (field: string, reason: string) =>
    new AppError("VALIDATION_ERROR", `${field}: ${reason}`, { details: [{ field, reason }] });
  if (body.currency === "XOF") {
    if (body.whitelistAddressId !== undefined) throw wrong("whitelistAddressId", "USDT withdrawals only");
    if (body.rail !== "MOMO" && body.rail !== "CARD") {
      throw wrong("rail", "an XOF withdrawal names its wallet: MOMO or CARD");
    }
    return {
      currency: "XOF",
      amount: body.amount,
      rail: body.rail,
      fiatDestinationId: body.fiatDestinationId,
    };
  }
  if (body.fiatDestinationId !== undefined) throw wrong("fiatDestinationId", "XOF withdrawals only");
  if (body.rail !== undefined && body.rail !== "TRC20") {
    throw wrong("rail", "the USDT wallet's rail is TRC20");
  }
  return { currency: "USDT_TRC20", amount: body.amount, whitelistAddressId: body.whitelistAddressId };
}

function parseXofOut(amount: string): Decimal {
  if (!/^[1-9]\d{0,14}$/.test(amount)) {
    throw new AppError("INVALID_AMOUNT", "An XOF amount is a whole number of francs", {
      details: [{ field: "amount", reason: "a positive whole number (XOF has no decimals)" }],
    });
  }
  const value = new Decimal(amount);
  if (value.lessThan(MINIMUM_XOF_OUT)) {
    throw new AppError("AMOUNT_TOO_SMALL", `The minimum XOF withdrawal is ${MINIMUM_XOF_OUT.toFixed(0)} XOF`);
  }
  return value;
}

/** Everything checked before money is touched: KYB, amount, fee, destination and its cooldown, provider. */
export async function prepareFiatWithdrawal(
  deps: OutDeps,
  caller: Caller,
  input: FiatWithdrawalInput,
): Promise<PreparedFiatWithdrawal> {
  assertLiveAllowed(caller, deps.clock.now());
  const amount = parseXofOut(input.amount);
  const fee = new Decimal(effectiveFees(caller.feeSchedule).xofWithdrawalFlat);
  if (!amount.greaterThan(fee)) {
    throw new AppError("AMOUNT_TOO_SMALL", `The amount must exceed the ${fee.toFixed(0)} XOF fee`);
  }
  const scope = { merchantId: caller.merchantId, isSandbox: caller.isSandbox };
  const dest = await resolveFiatDestination(deps, scope, input.fiatDestinationId);
  // Live without a mobile money disbursement provider: CONFIG_MISSING, as fiat pay-ins answer.
  if (dest.kind === "MOMO") momoPayoutProvider(deps, caller.isSandbox);
  const view = fiatDestinationView(dest);
  const destination: DisbursementDestination = dest.kind === "MOMO"
    ? {
      kind: "MOMO",
      momoOperator: view.momoOperator as "OPERATOR_A_BF",
      momoPhone: view.momoPhone!,
      label: view.label,
    }
    : {
      kind: "BANK",
      bankName: view.bankName!,
      bankAccountName: view.bankAccountName!,
      bankIban: view.bankIban,
      bankAccountNumber: view.bankAccountNumber,
      bankCode: view.bankCode,
      label: view.label,
    };
  return {
    walletRail: input.rail,
    amount: formatAmount(amount, "XOF"),
    fee: formatAmount(fee, "XOF"),
    netAmount: formatAmount(amount.minus(fee), "XOF"),
    destinationId: dest.id,
    channel: dest.kind,
    destinationAddress: dest.kind === "MOMO"
      ? dest.momo_phone!
      : (dest.bank_iban ?? dest.bank_account_number!),
    destination,
  };
}

/**
 * Reserves the amount (wallet -> IN_FLIGHT of its rail) and records the withdrawal in PENDING_REVIEW with
 * its event, in one transaction: pass the idempotency transaction as deps.db. Short: INSUFFICIENT_BALANCE.
 */
export async function acceptFiatWithdrawal(
  deps: Pick<Deps, "db" | "queue" | "clock" | "log" | "config">,
  caller: Caller,
  p: PreparedFiatWithdrawal,
): Promise<OutboundRow> {
  const scope = { merchantId: caller.merchantId, isSandbox: caller.isSandbox };
  const id = newId("wdr", deps.clock.now().getTime());
  let recorded: OutboundRow | undefined;
  await deps.db.tx(async (tx) => {
    const wallet = await findWallet(tx, scope.merchantId, scope.isSandbox, "XOF", p.walletRail);
    if (!wallet) throw new AppError("WALLET_NOT_FOUND", `The merchant has no XOF/${p.walletRail} wallet`);
    const inFlight = await findSystemAccount(tx, "IN_FLIGHT", scope.isSandbox, p.walletRail);
    await postJournal(tx, {
      reference: `outbound:${id}:reserve`,
      kind: "OUTBOUND_RESERVE",
      merchantId: scope.merchantId,
      isSandbox: scope.isSandbox,
      postings: [
        { accountId: wallet.id, amount: new Decimal(p.amount).negated() },
        { accountId: inFlight.id, amount: p.amount },
      ],
      metadata: { outboundId: id, kind: "WITHDRAWAL", currency: "XOF" },
    }, async (jtx) => {
      // The merchant's per-transaction maximum and the plan's XOF money-out caps, taken with the
      // reservation (undone with it), under the wallet's lock as USDT payouts take theirs.
      const limitDeps = { ...deps, db: jtx };
      await assertWithinTransactionMax(limitDeps, scope.merchantId, "XOF", p.amount, "This withdrawal");
      await consumePlanLimits(limitDeps, scope, MONEY_OUT_COUNTERS.XOF, p.amount);
      recorded = await insertFiatWithdrawal(jtx, {
        id,
        ...scope,
        status: "PENDING_REVIEW",
        amount: p.amount,
        fee: p.fee,
        debited: p.amount,
        netAmount: p.netAmount,
        destinationAddress: p.destinationAddress,
        externalRef: null,
        metadata: { destination: p.destination },
        requiresManualApproval: true,
        now: deps.clock.now(),
        walletRail: p.walletRail,
        fiatDestinationId: p.destinationId,
        fiatChannel: p.channel,
      });
      await emitAcceptedEvents({ ...deps, db: jtx }, recorded);
    });
  });
  deps.log.info("money state change", {
    kind: "WITHDRAWAL",
    id,
    merchantId: scope.merchantId,
    mode: scope.isSandbox ? "sandbox" : "live",
    to: "PENDING_REVIEW",
    amount: p.amount,
    currency: "XOF",
  });
  return recorded!;
}

function destinationOf(row: OutboundRow): DisbursementDestination {
  return (row.metadata as { destination: DisbursementDestination }).destination;
}

/**
 * The operator's approval of a mobile money withdrawal, inside approveOutbound's transaction (`tx`, the
 * row locked and moved to APPROVED): queues its disbursement and the job after commit. A bank one is
 * refused: WITHDRAWAL_APPROVE_NOT_SUPPORTED_FOR_FIAT (complete-fiat is its route).
 */
export function assertFiatApprovable(row: OutboundRow): void {
  if (row.currency === "XOF" && row.fiat_channel === "BANK") {
    throw new AppError(
      "WITHDRAWAL_APPROVE_NOT_SUPPORTED_FOR_FIAT",
      "A bank withdrawal is completed with POST /admin/api/review/{id}/complete-fiat and the bank's providerRef",
    );
  }
}

export async function queueFiatWithdrawalPayment(
  deps: Pick<Deps, "db" | "queue" | "clock">,
  row: OutboundRow,
): Promise<void> {
  if (row.currency !== "XOF" || row.fiat_channel !== "MOMO") return;
  const disbursementId = await queueDisbursement(deps.db, {
    reference: `withdrawal:${row.id}`,
    owner: { kind: "WITHDRAWAL", id: row.id },
    merchantId: row.merchant_id,
    isSandbox: row.is_sandbox,
    channel: "MOMO",
    amount: new Decimal(row.net_amount).toFixed(0),
    destination: destinationOf(row),
    now: deps.clock.now(),
  });
  deps.db.afterCommit(() => deps.queue.enqueue({ type: "fiat.disburse", disbursementId }));
}

/**
 * POST /admin/api/review/{id}/complete-fiat: the operator made the bank transfer and reports the bank's
 * reference. In one transaction: the decision, APPROVED, the disbursement (finished at once) and, through
 * the finisher, BROADCAST and CONFIRMED with the money settled. A USDT withdrawal: WITHDRAWAL_NOT_FIAT.
 */
export async function completeFiatWithdrawal(
  deps: Pick<Deps, "db" | "queue" | "clock" | "log" | "config">,
  given: DecisionInput & { providerRef: string },
): Promise<OutboundRow> {
  const providerRef = given.providerRef.trim();
  if (!providerRef) {
    throw new AppError("VALIDATION_ERROR", "providerRef is required", {
      details: [{ field: "providerRef", reason: "the bank's reference of the transfer" }],
    });
  }
  return await deps.db.tx(async (tx) => {
    const row = await lockOutbound(tx, given.id);
    if (!row || row.kind !== "WITHDRAWAL") throw new AppError("NOT_FOUND", "No withdrawal with this id");
    const input = resolveDecision(given);
    if (row.currency !== "XOF") {
      throw new AppError("WITHDRAWAL_NOT_FIAT", "This is a USDT withdrawal: approve it instead");
    }
    if (row.fiat_channel !== "BANK") {
      throw new AppError(
        "WITHDRAWAL_NOT_FIAT",
        "Only bank withdrawals are completed by an operator; approve mobile money ones",
      );
    }
    if (row.status !== "PENDING_REVIEW") {
      throw new AppError("WITHDRAWAL_NOT_PENDING_REVIEW", `Withdrawal is ${row.status}, not awaiting review`);
    }
    // Above the four-eyes threshold another reviewer approves first; completing is the second approval.
    if (await approvalStep({ db: tx, config: deps.config }, row, input.actor.id) === "first") {
      throw new AppError(
        "FORBIDDEN",
        "This withdrawal needs two reviewers: another reviewer approves it before the transfer is completed",
        { reason: "FIRST_APPROVAL_REQUIRED" },
      );
    }
    const now = deps.clock.now();
    const txDeps = { ...deps, db: tx };
    await insertReviewDecision(tx, {
      outboundId: row.id,
      decision: "APPROVE",
      operator: input.reviewer,
      note: `bank transfer ${providerRef}${input.note ? `: ${input.note}` : ""}`,
      now,
      actor: input.actor.id,
    });
    await transitionOutbound(txDeps, row, "APPROVED", { approved_at: now });
    const disbursementId = await queueDisbursement(tx, {
      reference: `withdrawal:${row.id}`,
      owner: { kind: "WITHDRAWAL", id: row.id },
      merchantId: row.merchant_id,
      isSandbox: row.is_sandbox,
      channel: "BANK",
      amount: new Decimal(row.net_amount).toFixed(0),
      destination: destinationOf(row),
      now,
    });
    await completeBankDisbursement(txDeps, disbursementId, { status: "SUCCEEDED", providerRef });
    const done = (await lockOutbound(tx, row.id))!;
    await auditDecision(txDeps, input, "complete_fiat", row, done, { providerRef });
    return done;
  });
}

// The withdrawal's side of a final disbursement outcome, in the transaction that records it: paid ->
// BROADCAST (if not yet) and CONFIRMED with IN_FLIGHT settled to WORLD and FEES; failed -> FAILED with
// the reserved amount back in the wallet. The journals' unique references make each happen once.
registerDisbursementFinisher("WITHDRAWAL", async (tx, disbursement, outcome, ctx) => {
  const deps = { ...ctx, db: tx };
  const row = await lockOutbound(tx, disbursement.owner_id);
  if (!row) throw new Error(`disbursement ${disbursement.id} names a missing withdrawal`);
  const now = ctx.clock.now();
  if (outcome.status === "SUCCEEDED") {
    const ref = outcome.providerRef ?? disbursement.reference;
    let current = row;
    if (current.status === "APPROVED") {
      current = (await transitionOutbound(deps, current, "BROADCAST", {
        broadcast_at: now,
        tx_hash: ref,
        provider_ref: ref,
      }))!;
    }
    const settled = await settleOutbound(deps, { id: current.id, txHash: ref });
    if (!settled) {
      ctx.log.error("paid withdrawal could not be confirmed: manual review", {
        id: row.id,
        status: current.status,
      });
    }
    return;
  }
  const failed = await releaseOutbound(deps, {
    id: row.id,
    to: "FAILED",
    patch: { failure_reason: outcome.reason ?? "PROVIDER_FAILURE", failed_at: now },
  });
  if (!failed) {
    ctx.log.error("failed disbursement for a withdrawal not in flight", { id: row.id, status: row.status });
  }
});
