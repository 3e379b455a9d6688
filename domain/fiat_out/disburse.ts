// Paying XOF out through a provider, exactly once, for whoever owns the payment (a withdrawal, a bulk
// item). The owner writes one disbursement row inside its own transaction (queueDisbursement) and
// enqueues `fiat.disburse` after commit; the job hands it to the provider with the row's reference as the
// provider's idempotency key; the final outcome (an instant answer, a signed callback, or our own query)
// is recorded once, and the owner's finisher runs in that same transaction.
//
// Crash safety: the row moves QUEUED -> SENDING (committed) before the provider is called. A row found in
// SENDING later means "we may have sent it": the provider is asked by reference, and only a provider that
// never heard of it is sent it again (same reference, so even a race pays once).
import {
  type DisbursementRow,
  findDisbursement,
  findDisbursementByReference,
  insertDisbursement,
  lockDisbursement,
  updateDisbursement,
} from "../../db/disbursements.ts";
import type { Db } from "../../db/mod.ts";
import { listDueDisbursements } from "../../db/provider_polls.ts";
import { recordNotificationOnce } from "../../db/payins.ts";
import { recordAggregatorAmounts } from "../../db/aggregator_amounts.ts";
import { resolveOperator } from "../../rails/fiat/operators.ts";
import {
  type AggregatorAmounts,
  type DisburseAnswer,
  type MomoDisbursementProvider,
  type OperatorCode,
  ProviderError,
  type ProviderOutcome,
} from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import { holdUnknownStatus, pollAnswered, pollDue } from "../providers/polling.ts";

export type { DisbursementRow } from "../../db/disbursements.ts";

export type DisbursementOwnerKind = "WITHDRAWAL" | "BULK_ITEM" | "REFUND";

/** Where the money goes. MOMO is sent by the job; BANK waits for an operator (completeBankDisbursement). */
export type DisbursementDestination =
  | { kind: "MOMO"; momoOperator: OperatorCode; momoPhone: string; label?: string | null }
  | {
    kind: "BANK";
    bankName: string;
    bankAccountName: string;
    bankIban?: string | null;
    bankAccountNumber?: string | null;
    bankCode?: string | null;
    label?: string | null;
  };

export type QueueDisbursementInput = {
  /** Unique forever (e.g. `withdrawal:<id>`, `bulk:<itemId>:<attempt>`): the provider's idempotency key. */
  reference: string;
  owner: { kind: DisbursementOwnerKind; id: string };
  merchantId: string;
  isSandbox: boolean;
  channel: "MOMO" | "BANK";
  /** XOF, a positive integer string. */
  amount: string;
  destination: DisbursementDestination;
  /** Defaults to the current time. */
  now?: Date;
};

/** The final result of a disbursement, as the owner's finisher receives it. */
export type DisbursementOutcome = { status: "SUCCEEDED" | "FAILED"; providerRef?: string; reason?: string };

/** What a finisher may use besides the transaction: enqueue jobs (events), read the clock, log. */
export type FinisherContext = Pick<Deps, "queue" | "clock" | "log">;

/**
 * The owner's reaction to a final outcome (settle the money, or refund it), run in the SAME transaction
 * that records the outcome, exactly once per disbursement. Throwing rolls the outcome back: the job or the
 * provider's retry comes again later.
 */
export type DisbursementFinisher = (
  tx: Db,
  disbursement: DisbursementRow,
  outcome: DisbursementOutcome,
  ctx: FinisherContext,
) => Promise<void>;

const finishers = new Map<DisbursementOwnerKind, DisbursementFinisher>();

/**
 * Registers the finisher of one owner kind (once, at module load: `WITHDRAWAL` in
 * domain/fiat_out/withdrawals.ts, `BULK_ITEM` in the bulk module). A second registration replaces the first.
 */
export function registerDisbursementFinisher(kind: DisbursementOwnerKind, fn: DisbursementFinisher): void {
  finishers.set(kind, fn);
}

const FINAL = new Set(["SUCCEEDED", "FAILED"]);
/** A SENDING row younger than this may still be in its sender's hands: not re-asked yet. */
export const RECHECK_SENDING_AFTER_MS = 30_000;

/**
 * Records one disbursement inside the caller's transaction `tx` and answers its id. MOMO starts QUEUED:
 * after commit the caller enqueues `{ type: "fiat.disburse", disbursementId }`. BANK starts
 * AWAITING_OPERATOR. Throws FIAT_DESTINATION_INVALID for a destination that cannot be paid.
 */
export async function queueDisbursement(tx: Db, input: QueueDisbursementInput): Promise<string> {
  if (!/^[1-9]\d*$/.test(input.amount)) {
    throw new AppError("INVALID_AMOUNT", "A disbursement amount is a positive whole number of XOF");
  }
  const d = input.destination;
  if (d.kind !== input.channel) {
    throw new AppError(
      "FIAT_DESTINATION_INVALID",
      `A ${input.channel} disbursement needs a ${input.channel} destination`,
    );
  }
  if (d.kind === "MOMO" && resolveOperator(d.momoPhone) !== d.momoOperator) {
    throw new AppError("FIAT_DESTINATION_INVALID", "The number does not belong to the named operator");
  }
  const now = input.now ?? new Date();
  const id = newId("fdis", now.getTime());
  await insertDisbursement(tx, {
    id,
    reference: input.reference,
    ownerKind: input.owner.kind,
    ownerId: input.owner.id,
    merchantId: input.merchantId,
    isSandbox: input.isSandbox,
    channel: input.channel,
    amount: input.amount,
    destination: d as Record<string, unknown>,
    status: input.channel === "MOMO" ? "QUEUED" : "AWAITING_OPERATOR",
    now,
  });
  return id;
}

type DisburseDeps = Pick<Deps, "db" | "queue" | "clock" | "log" | "fiat" | "config">;

/** The mobile money disbursement provider of a mode; live without one configured: CONFIG_MISSING. */
export function momoPayoutProvider(deps: Pick<Deps, "fiat">, isSandbox: boolean): MomoDisbursementProvider {
  const providers = isSandbox ? deps.fiat.sandbox : deps.fiat.live;
  if (!providers?.momoPayout) {
    throw new AppError(
      "CONFIG_MISSING",
      "No live mobile money disbursement provider is configured on this gateway",
    );
  }
  return providers.momoPayout;
}

/**
 * Records a final outcome once and runs the owner's finisher in the same transaction. Answers the row
 * when this call finished it, undefined when it was already final (a replay, a race: nothing happens).
 */
export async function recordDisbursementOutcome(
  deps: Pick<Deps, "db" | "queue" | "clock" | "log">,
  id: string,
  outcome: DisbursementOutcome & { provider?: string; reported?: AggregatorAmounts },
): Promise<DisbursementRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const row = await lockDisbursement(tx, id);
    if (!row || FINAL.has(row.status)) return undefined;
    const finisher = finishers.get(row.owner_kind);
    if (!finisher) throw new Error(`no disbursement finisher registered for ${row.owner_kind}`);
    const now = deps.clock.now();
    const done = await updateDisbursement(tx, id, {
      status: outcome.status,
      provider_ref: outcome.providerRef ?? row.provider_ref,
      failure_reason: outcome.status === "FAILED" ? outcome.reason ?? "PROVIDER_FAILURE" : null,
      finished_at: now,
      ...(outcome.provider ? { provider: outcome.provider } : {}),
    }, now);
    // A live aggregator's own figures (what it says it paid, its fee when it says), kept beside the row.
    if (outcome.status === "SUCCEEDED" && outcome.reported && outcome.provider) {
      await recordAggregatorAmounts(tx, {
        kind: "DISBURSEMENT",
        id,
        provider: outcome.provider,
        currency: "XOF",
        asked: row.amount,
        paid: outcome.reported.paid ?? null,
        fee: outcome.reported.fee ?? null,
        settled: outcome.reported.settled ?? null,
        now,
      });
    }
    await finisher(tx, done, {
      status: outcome.status,
      ...(done.provider_ref ? { providerRef: done.provider_ref } : {}),
      ...(done.failure_reason ? { reason: done.failure_reason } : {}),
    }, { queue: deps.queue, clock: deps.clock, log: deps.log });
    deps.log.info("disbursement finished", {
      id,
      owner: `${row.owner_kind}:${row.owner_id}`,
      status: outcome.status,
      providerRef: done.provider_ref,
    });
    return done;
  });
}

/**
 * A bank transfer made by an operator, reported with the bank's reference: finishes an AWAITING_OPERATOR
 * disbursement (SUCCEEDED, or FAILED with a reason). Pass the caller's transaction as deps.db to finish
 * it together with the caller's own writes.
 */
export async function completeBankDisbursement(
  deps: Pick<Deps, "db" | "queue" | "clock" | "log">,
  id: string,
  outcome: DisbursementOutcome,
): Promise<DisbursementRow | undefined> {
  const row = await findDisbursement(deps.db, id);
  if (!row || row.channel !== "BANK") return undefined;
  return await recordDisbursementOutcome(deps, id, { ...outcome, provider: "bank-operator" });
}

/** A success reported for another amount than ours: the reason to hold it for, else undefined. */
export function disbursedAmountMismatch(
  row: Pick<DisbursementRow, "amount">,
  answer: { status: string; amount?: string },
): string | undefined {
  if (answer.status !== "SUCCEEDED" || answer.amount === undefined) return undefined;
  if (!/^\d{1,15}$/.test(answer.amount)) return `AMOUNT_MISMATCH: paid ${answer.amount.slice(0, 40)} XOF`;
  const asked = BigInt(row.amount.split(".")[0]);
  return BigInt(answer.amount) === asked
    ? undefined
    : `AMOUNT_MISMATCH: paid ${answer.amount} XOF for ${asked} XOF asked`;
}

async function applyAnswer(
  deps: DisburseDeps,
  row: DisbursementRow,
  provider: MomoDisbursementProvider,
  answer: DisburseAnswer,
) {
  const mismatch = disbursedAmountMismatch(row, answer);
  if (answer.status === "PENDING" || answer.status === "UNKNOWN" || mismatch) {
    // UNKNOWN: the aggregator has it but answers a status nobody knows; it stays open, held for an operator.
    // So does a success for another amount than ours: never finished on the aggregator's word.
    if (answer.status === "UNKNOWN" || mismatch) {
      await holdUnknownStatus(
        deps,
        { kind: "DISBURSEMENT", id: row.id },
        provider,
        mismatch ?? answer.reason ?? "",
      );
    } else {
      await pollAnswered(deps, { kind: "DISBURSEMENT", id: row.id }, provider);
    }
    await deps.db.tx(async (tx) => {
      const now = await lockDisbursement(tx, row.id);
      if (now && (now.status === "SENDING" || now.status === "QUEUED")) {
        await updateDisbursement(
          tx,
          row.id,
          { status: "PENDING", provider_ref: answer.providerRef },
          deps.clock.now(),
        );
      }
    });
    return;
  }
  await recordDisbursementOutcome(deps, row.id, {
    status: answer.status,
    providerRef: answer.providerRef,
    reason: answer.reason,
    provider: provider.name,
    ...(answer.reported ? { reported: answer.reported } : {}),
  });
}

/** Hands the row to the provider; a refusal before any money moved fails it, no answer leaves it SENDING. */
async function sendToProvider(deps: DisburseDeps, row: DisbursementRow, provider: MomoDisbursementProvider) {
  const d = row.destination as { momoOperator: OperatorCode; momoPhone: string };
  let answer: DisburseAnswer;
  try {
    answer = await provider.send({
      reference: row.reference,
      amount: String(BigInt(row.amount.split(".")[0])),
      currency: "XOF",
      operatorCode: d.momoOperator,
      phone: d.momoPhone,
      callbackUrl: disbursementCallbackUrl(deps, row.is_sandbox),
      isSandbox: row.is_sandbox,
    });
  } catch (err) {
    if (err instanceof ProviderError && err.kind === "initiate_failed") {
      await recordDisbursementOutcome(deps, row.id, {
        status: "FAILED",
        reason: "PROVIDER_REFUSED",
        provider: provider.name,
      });
      return;
    }
    deps.log.warn("disbursement sent without an answer; will ask the provider", {
      id: row.id,
      error: String(err),
    });
    return;
  }
  await applyAnswer(deps, row, provider, answer);
}

/** Where providers call back about disbursements of a mode. */
export function disbursementCallbackUrl(deps: Pick<Deps, "config">, isSandbox: boolean): string {
  return `${deps.config.publicUrl}/v1/providers/${isSandbox ? "simulator/" : ""}momo/disbursement-callback`;
}

export type DisburseStep = "sent" | "asked" | "waiting" | "final" | "nothing-to-do";

/**
 * One idempotent step of the `fiat.disburse` job for one disbursement; safe from several processes and
 * after any crash. `force` re-asks a SENDING row at once (the sweep and tests; the queue waits a while).
 */
export async function processDisbursement(
  deps: DisburseDeps,
  id: string,
  options: { force?: boolean } = {},
): Promise<DisburseStep> {
  const row = await findDisbursement(deps.db, id);
  if (!row || row.channel !== "MOMO") return "nothing-to-do";
  if (FINAL.has(row.status)) return "final";
  let provider: MomoDisbursementProvider;
  try {
    provider = momoPayoutProvider(deps, row.is_sandbox);
  } catch (err) {
    deps.log.error("no disbursement provider for this mode", { id, error: String(err) });
    return "nothing-to-do";
  }
  if (row.status === "QUEUED") {
    const claimed = await deps.db.tx(async (tx) => {
      const locked = await lockDisbursement(tx, id);
      if (!locked || locked.status !== "QUEUED") return undefined;
      const now = deps.clock.now();
      return await updateDisbursement(tx, id, {
        status: "SENDING",
        attempts: locked.attempts + 1,
        sent_at: now,
        provider: provider.name,
      }, now);
    });
    if (!claimed) return "nothing-to-do";
    await sendToProvider(deps, claimed, provider);
    return "sent";
  }
  // SENDING (a crash, a timeout, or a sender still at work) or PENDING (the outcome is late): ask.
  const age = deps.clock.now().getTime() - new Date(row.updated_at).getTime();
  if (row.status === "SENDING" && !options.force && age < RECHECK_SENDING_AFTER_MS) return "waiting";
  if (!(await pollDue(deps, { kind: "DISBURSEMENT", id }, provider.polling))) return "waiting";
  let answer: DisburseAnswer | null;
  try {
    answer = await provider.lookup(row.reference);
  } catch (err) {
    deps.log.warn("disbursement lookup failed", { id, error: String(err) });
    return "waiting";
  }
  if (answer === null) {
    if (row.status === "PENDING") {
      deps.log.error("provider no longer knows an accepted disbursement: manual review", { id });
      return "waiting";
    }
    // Never received: sending again under the same reference is safe.
    const again = await deps.db.tx(async (tx) => {
      const locked = await lockDisbursement(tx, id);
      if (!locked || locked.status !== "SENDING") return undefined;
      const now = deps.clock.now();
      return await updateDisbursement(tx, id, { attempts: locked.attempts + 1, sent_at: now }, now);
    });
    if (!again) return "nothing-to-do";
    await sendToProvider(deps, again, provider);
    return "sent";
  }
  await applyAnswer(deps, row, provider, answer);
  return answer.status === "PENDING" || answer.status === "UNKNOWN" ? "waiting" : "final";
}

/** The cron safety net: every disbursement still open after `olderThanMs` gets one more step. */
export async function sweepDisbursements(
  deps: DisburseDeps,
  options: { olderThanMs?: number } = {},
): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - (options.olderThanMs ?? RECHECK_SENDING_AFTER_MS));
  let handled = 0;
  for (const { id } of await listDueDisbursements(deps.db, before, deps.clock.now(), 500)) {
    try {
      await processDisbursement(deps, id, { force: true });
      handled++;
    } catch (err) {
      deps.log.error("disbursement step failed", { id, error: String(err) });
    }
  }
  return handled;
}

/**
 * POST /v1/providers/[simulator/]momo/disbursement-callback. Forged or stale: INVALID_WEBHOOK_SIGNATURE;
 * replayed notification: CONFLICT; unknown reference: NOT_FOUND; a reference or amount that contradicts
 * ours: BAD_REQUEST. Nothing changes in any of those cases.
 */
export async function handleDisbursementCallback(
  deps: DisburseDeps,
  source: { simulator: boolean },
  request: { headers: Headers; rawBody: string },
): Promise<{ disbursementId: string; status: string }> {
  const provider = momoPayoutProvider(deps, source.simulator);
  let outcome: ProviderOutcome;
  try {
    outcome = await provider.parseCallback(request);
  } catch (err) {
    if (err instanceof ProviderError) {
      throw new AppError("INVALID_WEBHOOK_SIGNATURE", "Provider callback refused: " + err.message);
    }
    throw err;
  }
  const row = await findDisbursementByReference(deps.db, outcome.reference);
  const sameProvider = deps.fiat.live?.momoPayout === deps.fiat.sandbox.momoPayout;
  if (!row || row.channel !== "MOMO" || (!sameProvider && row.is_sandbox !== source.simulator)) {
    throw new AppError("NOT_FOUND", "No disbursement for this callback");
  }
  if (row.provider_ref && row.provider_ref !== outcome.providerRef) {
    throw new AppError(
      "BAD_REQUEST",
      "Callback reference does not match the disbursement's provider reference",
    );
  }
  // A live aggregator's notification was re-queried: not final yet, or a status nobody knows (held).
  if (outcome.status === "PENDING" || outcome.status === "UNKNOWN") {
    if (outcome.status === "UNKNOWN") {
      await holdUnknownStatus(deps, { kind: "DISBURSEMENT", id: row.id }, provider, outcome.reason ?? "");
    }
    return { disbursementId: row.id, status: row.status };
  }
  const finalStatus = outcome.status;
  const mismatch = disbursedAmountMismatch(row, outcome);
  if (mismatch) {
    deps.log.error("provider reports another amount paid: manual review", {
      id: row.id,
      amount: outcome.amount,
    });
    // Refused, and held for an operator like an unknown status (the held list shows it; nothing moved).
    await holdUnknownStatus(deps, { kind: "DISBURSEMENT", id: row.id }, provider, mismatch);
    throw new AppError("BAD_REQUEST", "Callback amount does not match the disbursement");
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
    await recordDisbursementOutcome({ ...deps, db: tx }, row.id, {
      status: finalStatus,
      providerRef: outcome.providerRef,
      reason: outcome.reason,
      provider: provider.name,
      ...(outcome.reported ? { reported: outcome.reported } : {}),
    });
  });
  const now = (await findDisbursement(deps.db, row.id))!;
  return { disbursementId: now.id, status: now.status };
}
