// Card and mobile money outcomes arrive from the provider: a signed callback (refused when forged,
// stale or replayed), or our own status query when a callback never came. Either way the pay-in settles
// once: the XOF wallet of its rail is credited net of the rail's fee through the ledger helper.
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import { findMerchant } from "../../db/merchants.ts";
import { listDueFiatPayins } from "../../db/provider_polls.ts";
import { findPayin, lockPayin, type PayinRow, recordNotificationOnce } from "../../db/payins.ts";
import { recordAggregatorAmounts } from "../../db/aggregator_amounts.ts";
import type { AggregatorAmounts, ProviderOutcome, StatusAnswer } from "../../rails/fiat/provider.ts";
import { ProviderError } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { effectiveFees } from "../fees.ts";
import { postJournal } from "../ledger.ts";
import { Decimal, formatAmount, roundFee } from "../money.ts";
import { holdIfMerchantInactive } from "./review_holds.ts";
import { transitionPayin } from "./transition.ts";
import { assertMove, type PayinStatus } from "./states.ts";
import { fiatProvidersFor } from "./create_fiat.ts";
import { holdUnknownStatus, pollAnswered, pollDue } from "../providers/polling.ts";

type FiatDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log" | "fiat">;

const RAIL_OF = { CARD: "CARD", MOBILE_MONEY: "MOMO" } as const;

/** The rail's fee, rounded up to a whole franc in the platform's favour, never more than the amount. */
export function fiatFee(received: Decimal, percent: string): Decimal {
  return Decimal.min(roundFee(received.times(percent).dividedBy(100), "XOF"), received);
}

/**
 * A live aggregator charges exactly the asked amount on its page, so a different amount in its answer is
 * an anomaly: answers the reason to hold it for, or undefined when nothing is amiss.
 */
export function amountMismatch(
  provider: { exactAmount?: boolean },
  payin: Pick<PayinRow, "amount">,
  answer: { status: string; amount?: string },
): string | undefined {
  if (!provider.exactAmount || answer.status !== "SUCCEEDED" || answer.amount === undefined) return undefined;
  if (!/^\d{1,15}(\.\d{1,6})?$/.test(answer.amount)) {
    return `AMOUNT_MISMATCH: paid ${answer.amount.slice(0, 40)}`;
  }
  if (new Decimal(answer.amount).equals(payin.amount)) return undefined;
  return `AMOUNT_MISMATCH: paid ${answer.amount} XOF for ${
    formatAmount(new Decimal(payin.amount), "XOF")
  } XOF asked`;
}

/** Applies a final outcome to an open fiat pay-in; answers the settled row, or undefined if already final. */
export async function applyFiatOutcome(
  deps: FiatDeps,
  payinId: string,
  outcome: {
    status: "SUCCEEDED" | "FAILED";
    amount?: string;
    reason?: string;
    providerRef: string;
    /** The live aggregator that answered, and its own figures: recorded with the settlement. */
    aggregator?: { name: string; reported?: AggregatorAmounts };
  },
): Promise<PayinRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const payin = await lockPayin(tx, payinId);
    if (!payin || payin.status !== "AWAITING_PAYMENT" || payin.payment_method === "USDT_TRC20") {
      return undefined;
    }
    const now = deps.clock.now();
    const txDeps = { ...deps, db: tx };
    if (outcome.status === "FAILED") {
      return await transitionPayin(txDeps, payin, "FAILED", {
        failure_reason: outcome.reason ?? "PROVIDER_FAILURE",
      });
    }
    const received = new Decimal(outcome.amount ?? payin.amount);
    const expected = new Decimal(payin.amount);
    const to: PayinStatus = received.equals(expected)
      ? "CONFIRMED"
      : received.lessThan(expected)
      ? "UNDERPAID"
      : "OVERPAID";
    assertMove("AWAITING_PAYMENT", to);
    const merchant = await findMerchant(tx, payin.merchant_id);
    const fees = effectiveFees(merchant?.fee_schedule);
    const fee = fiatFee(
      received,
      payin.payment_method === "CARD" ? fees.cardPercent : fees.mobileMoneyPercent,
    );
    const net = received.minus(fee);
    const rail = RAIL_OF[payin.payment_method as "CARD" | "MOBILE_MONEY"];
    const world = await findSystemAccount(tx, "WORLD", payin.is_sandbox, rail);
    const feesAccount = await findSystemAccount(tx, "FEES", payin.is_sandbox, rail);
    const wallet = (await findWallet(tx, payin.merchant_id, payin.is_sandbox, "XOF", rail))!;
    let settled: PayinRow | undefined;
    await postJournal(tx, {
      reference: `payin:${payin.id}`,
      kind: "PAYIN_SETTLEMENT",
      merchantId: payin.merchant_id,
      isSandbox: payin.is_sandbox,
      postings: [
        { accountId: world.id, amount: received.negated() },
        { accountId: wallet.id, amount: net },
        { accountId: feesAccount.id, amount: fee },
      ].filter((p) => !p.amount.isZero()),
      metadata: {
        payinId: payin.id,
        providerRef: outcome.providerRef,
        outcome: to,
        // The aggregator's figures ride with the journal: a fee the customer paid it on top never reaches
        // the gateway's accounts, so it is recorded here rather than posted (docs/decisions.md).
        ...(outcome.aggregator
          ? { aggregator: { name: outcome.aggregator.name, ...outcome.aggregator.reported } }
          : {}),
      },
    }, async (jtx) => {
      if (outcome.aggregator) {
        const r = outcome.aggregator.reported ?? {};
        await recordAggregatorAmounts(jtx, {
          kind: "PAYIN",
          id: payin.id,
          provider: outcome.aggregator.name,
          currency: "XOF",
          asked: payin.amount,
          paid: r.paid ?? formatAmount(received, "XOF"),
          fee: r.fee ?? null,
          settled: r.settled ?? null,
          now,
        });
      }
      settled = await transitionPayin({ ...deps, db: jtx }, payin, to, {
        amount_received: formatAmount(received, "XOF"),
        service_fee: formatAmount(fee, "XOF"),
        net_amount: formatAmount(net, "XOF"),
        tx_hash: outcome.providerRef,
        confirmed_at: now,
      });
      if (!settled) throw new Error(`pay-in ${payin.id} moved while locked`);
      // Credited all the same; held for review if the merchant was suspended or closed meanwhile.
      await holdIfMerchantInactive({ ...deps, db: jtx }, payin, merchant);
    });
    return settled;
  });
}

/**
 * POST /v1/providers/:rail/callback. Forged or stale: INVALID_WEBHOOK_SIGNATURE. Replayed (a notification
 * id already processed): CONFLICT. Unknown pay-in: NOT_FOUND. Nothing changes in any of those cases.
 */
export async function handleProviderCallback(
  deps: FiatDeps,
  source: { rail: "card" | "momo"; simulator: boolean },
  request: { headers: Headers; rawBody: string },
): Promise<{ payinId: string; status: string }> {
  const rail = source.rail;
  const providers = fiatProvidersFor(deps, source.simulator);
  const provider = rail === "card" ? providers.card : providers.momo;
  let outcome: ProviderOutcome;
  try {
    outcome = await provider.parseCallback(request);
  } catch (err) {
    if (err instanceof ProviderError) {
      throw new AppError("INVALID_WEBHOOK_SIGNATURE", "Provider callback refused: " + err.message);
    }
    throw err;
  }
  const payin = await findPayin(deps.db, outcome.reference);
  const method = rail === "card" ? "CARD" : "MOBILE_MONEY";
  // A simulator's callback may only settle sandbox pay-ins, unless the simulator is also the live provider.
  const sameProvider = deps.fiat.live === deps.fiat.sandbox;
  if (!payin || payin.payment_method !== method || (!sameProvider && payin.is_sandbox !== source.simulator)) {
    throw new AppError("NOT_FOUND", "No pay-in for this callback");
  }
  if (payin.provider_ref && payin.provider_ref !== outcome.providerRef) {
    throw new AppError("BAD_REQUEST", "Callback reference does not match the pay-in's provider reference");
  }
  // A live aggregator's notification was re-queried: not final yet, or a status nobody knows (held), or
  // an amount other than the one asked (held: never credited as under- or overpaid on its word).
  const mismatch = amountMismatch(provider, payin, outcome);
  if (outcome.status === "PENDING" || outcome.status === "UNKNOWN" || mismatch) {
    if (outcome.status === "UNKNOWN" || mismatch) {
      await holdUnknownStatus(
        deps,
        { kind: "PAYIN", id: payin.id },
        provider,
        mismatch ?? outcome.reason ?? "",
      );
    }
    return { payinId: payin.id, status: payin.status };
  }
  const final = {
    ...outcome,
    status: outcome.status as "SUCCEEDED" | "FAILED",
    ...(provider.exactAmount ? { aggregator: { name: provider.name, reported: outcome.reported } } : {}),
  };
  // The notification is remembered in the same transaction that applies it: if applying fails, the
  // provider's retry is not mistaken for a replay.
  const settled = await deps.db.tx(async (tx) => {
    const fresh = await recordNotificationOnce(tx, {
      provider: provider.name,
      notificationId: outcome.notificationId,
      payinId: payin.id,
      status: outcome.status,
      now: deps.clock.now(),
    });
    if (!fresh) throw new AppError("CONFLICT", "This provider notification was already processed");
    return await applyFiatOutcome({ ...deps, db: tx }, payin.id, final);
  });
  const current = settled ?? (await findPayin(deps.db, payin.id))!;
  const credited = ["CONFIRMED", "UNDERPAID", "OVERPAID"].includes(current.status);
  if (outcome.status === "SUCCEEDED" && !credited) {
    deps.log.error("provider captured money for a closed pay-in: manual review", {
      payinId: payin.id,
      status: current.status,
      providerRef: outcome.providerRef,
    });
  }
  return { payinId: payin.id, status: current.status };
}

/**
 * Asks the provider about fiat pay-ins whose callback is late. A final answer settles them; one still
 * pending past its expiry becomes EXPIRED. A capture reported after that is logged for manual review.
 */
export async function reconcileFiatPayins(
  deps: FiatDeps,
  options: { olderThanMs?: number } = {},
): Promise<number> {
  const now = deps.clock.now();
  const olderThan = new Date(now.getTime() - (options.olderThanMs ?? 60_000));
  const stale = await listDueFiatPayins(deps.db, olderThan, now, 100);
  let changed = 0;
  for (const payin of stale) {
    const providers = deps.fiat[payin.is_sandbox ? "sandbox" : "live"];
    if (!providers) continue;
    const provider = payin.payment_method === "CARD" ? providers.card : providers.momo;
    const subject = { kind: "PAYIN", id: payin.id } as const;
    if (!(await pollDue(deps, subject, provider.polling))) continue;
    let answer: StatusAnswer;
    try {
      answer = await provider.queryStatus(payin.provider_ref!);
    } catch (err) {
      deps.log.warn("provider status query failed", { payinId: payin.id, error: String(err) });
      continue;
    }
    const mismatch = amountMismatch(provider, payin, answer);
    if (answer.status === "UNKNOWN" || mismatch) {
      await holdUnknownStatus(deps, subject, provider, mismatch ?? answer.reason ?? "");
    } else if (answer.status !== "PENDING") {
      if (
        await applyFiatOutcome(deps, payin.id, {
          ...answer,
          status: answer.status,
          providerRef: payin.provider_ref!,
          ...(provider.exactAmount ? { aggregator: { name: provider.name, reported: answer.reported } } : {}),
        })
      ) changed++;
    } else if (payin.expires_at <= now && await expireFiat(deps, payin.id)) {
      changed++;
    } else {
      await pollAnswered(deps, subject, provider);
    }
  }
  return changed;
}

async function expireFiat(deps: FiatDeps, payinId: string): Promise<boolean> {
  return await deps.db.tx(async (tx) => {
    const payin = await lockPayin(tx, payinId);
    if (!payin || payin.status !== "AWAITING_PAYMENT") return false;
    return (await transitionPayin({ ...deps, db: tx }, payin, "EXPIRED")) !== undefined;
  });
}
