// Paying an approved refund on the pay-in's own rail, exactly once (the `refund.send` job and its sweep).
// Card: the acquirer's refund call, with the refund id as its idempotency key. The row moves APPROVED ->
// SENDING (committed) before the call; a row found in SENDING later means "we may have sent it", so the
// acquirer is asked by reference and only one that never heard of it is sent it again (same reference).
// Mobile money: a disbursement to the paying number through the shared seam (domain/fiat_out), which
// already sends once and asks by reference after a crash; its outcome finishes the refund (finisher below).
import { findPayin, recordNotificationOnce } from "../../db/payins.ts";
import { findRefund, listOpenRefunds, lockRefund, type RefundRow, updateRefund } from "../../db/refunds.ts";
import type { CardRefundAnswer, OperatorCode, ProviderOutcome } from "../../rails/fiat/provider.ts";
import { ProviderError } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { queueDisbursement, registerDisbursementFinisher } from "../fiat_out/disburse.ts";
import { type RefundingCardProvider, refundingCardProvider } from "./card_provider.ts";
import { completeRefund, failRefund } from "./finish.ts";
// USDT refunds are paid by the money-out sender; importing this module registers their finisher.
import "./usdt.ts";
import { transitionRefund } from "./states.ts";

type SendDeps = Pick<Deps, "db" | "queue" | "clock" | "log" | "fiat" | "config">;
export type RefundStep = "sent" | "queued" | "waiting" | "final" | "nothing-to-do";

/** A SENDING refund younger than this may still be in its sender's hands: not re-asked yet. */
export const RECHECK_SENDING_AFTER_MS = 30_000;

export function cardRefundCallbackUrl(deps: Pick<Deps, "config">, isSandbox: boolean): string {
  return `${deps.config.publicUrl}/v1/providers/${isSandbox ? "simulator/" : ""}card/refund-callback`;
}

/** One idempotent step for one refund; safe from several processes and after any crash. */
export async function processRefund(
  deps: SendDeps,
  id: string,
  options: { force?: boolean } = {},
): Promise<RefundStep> {
  const row = await findRefund(deps.db, id);
  if (!row) return "nothing-to-do";
  if (["COMPLETED", "FAILED", "REJECTED", "CANCELLED"].includes(row.status)) return "final";
  if (row.status === "PENDING_APPROVAL") return "nothing-to-do";
  if (row.payment_method === "MOBILE_MONEY") return await queueMomoRefund(deps, id);
  if (row.payment_method !== "CARD") return "nothing-to-do";
  const provider = refundingCardProvider(deps, row.is_sandbox);
  if (!provider) {
    deps.log.error("no card provider for this mode", { id });
    return "nothing-to-do";
  }
  if (row.status === "APPROVED") {
    const claimed = await moveLocked(deps, id, "APPROVED", (r) => ({
      status: "SENDING",
      attempts: r.attempts + 1,
      sent_at: deps.clock.now(),
      provider: provider.name,
    }));
    if (!claimed) return "nothing-to-do";
    return await sendCardRefund(deps, claimed, provider);
  }
  const age = deps.clock.now().getTime() - row.updated_at.getTime();
  if (row.status === "SENDING" && !options.force && age < RECHECK_SENDING_AFTER_MS) return "waiting";
  let answer: CardRefundAnswer | null;
  try {
    answer = await provider.lookupRefund(row.id);
  } catch (err) {
    deps.log.warn("card refund lookup failed", { id, error: String(err) });
    return "waiting";
  }
  if (answer === null) {
    if (row.status === "PROCESSING") {
      deps.log.error("acquirer no longer knows an accepted refund: manual review", { id });
      return "waiting";
    }
    const again = await moveLocked(
      deps,
      id,
      "SENDING",
      (r) => ({ attempts: r.attempts + 1, sent_at: deps.clock.now() }),
    );
    if (!again) return "nothing-to-do";
    return await sendCardRefund(deps, again, provider);
  }
  await applyCardAnswer(deps, row, provider.name, answer);
  return answer.status === "PENDING" ? "waiting" : "final";
}

/** Applies `patch` to the refund if it is still in `from`, under its lock; answers the new row. */
async function moveLocked(
  deps: SendDeps,
  id: string,
  from: RefundRow["status"],
  patch: (r: RefundRow) => Partial<RefundRow>,
): Promise<RefundRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const locked = await lockRefund(tx, id);
    if (!locked || locked.status !== from) return undefined;
    return await updateRefund(tx, id, patch(locked), deps.clock.now());
  });
}

async function sendCardRefund(
  deps: SendDeps,
  row: RefundRow,
  provider: RefundingCardProvider,
): Promise<RefundStep> {
  const payin = (await findPayin(deps.db, row.payin_id))!;
  let answer: CardRefundAnswer;
  try {
    answer = await provider.refund({
      reference: row.id,
      paymentRef: payin.provider_ref!,
      amount: row.amount,
      currency: "XOF",
      callbackUrl: cardRefundCallbackUrl(deps, row.is_sandbox),
      isSandbox: row.is_sandbox,
    });
  } catch (err) {
    if (err instanceof ProviderError && err.kind === "initiate_failed") {
      await failRefund(deps, row.id, { reason: "PROVIDER_REFUSED", provider: provider.name });
      return "final";
    }
    deps.log.warn("card refund sent without an answer; will ask the acquirer", {
      id: row.id,
      error: String(err),
    });
    return "waiting";
  }
  await applyCardAnswer(deps, row, provider.name, answer);
  return "sent";
}

async function applyCardAnswer(deps: SendDeps, row: RefundRow, provider: string, answer: CardRefundAnswer) {
  if (answer.status === "SUCCEEDED") {
    await completeRefund(deps, row.id, { providerRef: answer.providerRef, provider });
  } else if (answer.status === "FAILED") {
    await failRefund(deps, row.id, { reason: answer.reason, providerRef: answer.providerRef, provider });
  } else {
    await moveLocked(
      deps,
      row.id,
      "SENDING",
      () => ({ status: "PROCESSING", provider_ref: answer.providerRef }),
    );
  }
}

/** Mobile money: one disbursement to the paying number, written with the refund's move to PROCESSING. */
async function queueMomoRefund(deps: SendDeps, id: string): Promise<RefundStep> {
  return await deps.db.tx(async (tx) => {
    const row = await lockRefund(tx, id);
    if (!row || row.status !== "APPROVED") return row?.status === "PROCESSING" ? "waiting" : "nothing-to-do";
    const payin = (await findPayin(tx, row.payin_id))!;
    const disbursementId = await queueDisbursement(tx, {
      reference: `refund:${row.id}`,
      owner: { kind: "REFUND", id: row.id },
      merchantId: row.merchant_id,
      isSandbox: row.is_sandbox,
      channel: "MOMO",
      amount: row.amount,
      destination: {
        kind: "MOMO",
        momoOperator: payin.operator_code as OperatorCode,
        momoPhone: payin.customer_phone!,
      },
      now: deps.clock.now(),
    });
    await transitionRefund({ ...deps, db: tx }, row, "PROCESSING", {
      disbursement_id: disbursementId,
      attempts: row.attempts + 1,
      sent_at: deps.clock.now(),
    });
    tx.afterCommit(() => deps.queue.enqueue({ type: "fiat.disburse", disbursementId }));
    return "queued";
  });
}

// The disbursement's final outcome finishes the refund in the same transaction.
registerDisbursementFinisher("REFUND", async (tx, disbursement, outcome, ctx) => {
  const deps = { db: tx, queue: ctx.queue, clock: ctx.clock };
  if (outcome.status === "SUCCEEDED") {
    await completeRefund(deps, disbursement.owner_id, { providerRef: outcome.providerRef, provider: "momo" });
  } else {
    await failRefund(deps, disbursement.owner_id, {
      reason: outcome.reason,
      providerRef: outcome.providerRef,
    });
  }
});

/** The cron safety net: every refund still open after a while gets one more step. */
export async function sweepRefunds(deps: SendDeps, options: { olderThanMs?: number } = {}): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - (options.olderThanMs ?? RECHECK_SENDING_AFTER_MS));
  let handled = 0;
  for (const { id } of await listOpenRefunds(deps.db, before, 500)) {
    try {
      await processRefund(deps, id, { force: true });
      handled++;
    } catch (err) {
      deps.log.error("refund step failed", { id, error: String(err) });
    }
  }
  return handled;
}

/**
 * POST /v1/providers/[simulator/]card/refund-callback: the acquirer's late answer. Forged or stale:
 * INVALID_WEBHOOK_SIGNATURE; replayed notification: CONFLICT; unknown refund: NOT_FOUND; a reference or
 * amount that contradicts ours: BAD_REQUEST. Nothing changes in any of those cases.
 */
export async function handleCardRefundCallback(
  deps: SendDeps,
  source: { simulator: boolean },
  request: { headers: Headers; rawBody: string },
): Promise<{ refundId: string; status: string }> {
  const provider = refundingCardProvider(deps, source.simulator);
  if (!provider) throw new AppError("CONFIG_MISSING", "No card provider is configured for this mode");
  let outcome: ProviderOutcome;
  try {
    outcome = await provider.parseCallback(request);
  } catch (err) {
    if (err instanceof ProviderError) {
      throw new AppError("INVALID_WEBHOOK_SIGNATURE", "Provider callback refused: " + err.message);
    }
    throw err;
  }
  const row = await findRefund(deps.db, outcome.reference);
  const sameProvider = deps.fiat.live?.card === deps.fiat.sandbox.card;
  if (!row || row.payment_method !== "CARD" || (!sameProvider && row.is_sandbox !== source.simulator)) {
    throw new AppError("NOT_FOUND", "No card refund for this callback");
  }
  if (row.provider_ref && row.provider_ref !== outcome.providerRef) {
    throw new AppError("BAD_REQUEST", "Callback reference does not match the refund's provider reference");
  }
  if (outcome.status === "SUCCEEDED" && outcome.amount !== row.amount) {
    deps.log.error("acquirer reports another amount refunded: manual review", {
      id: row.id,
      amount: outcome.amount,
    });
    throw new AppError("BAD_REQUEST", "Callback amount does not match the refund");
  }
  await deps.db.tx(async (tx) => {
    const fresh = await recordNotificationOnce(tx, {
      provider: provider.name,
      notificationId: outcome.notificationId,
      payinId: null,
      status: outcome.status,
      now: deps.clock.now(),
    });
    if (!fresh) throw new AppError("CONFLICT", "This provider notification was already processed");
    const txDeps = { ...deps, db: tx };
    if (outcome.status === "SUCCEEDED") {
      await completeRefund(txDeps, row.id, { providerRef: outcome.providerRef, provider: provider.name });
    } else {
      await failRefund(txDeps, row.id, { reason: outcome.reason, providerRef: outcome.providerRef });
    }
  });
  return { refundId: row.id, status: (await findRefund(deps.db, row.id))!.status };
}
