// A mobile money disbursement stand-in: the aggregator that pays XOF out to a Burkina Faso number. Most
// numbers are paid at once; test numbers fail, answer late through a signed callback, or time out (the
// money leaves, the answer is lost, the callback comes later). Idempotent by reference like a real one:
// a reference sent twice is paid once. State lives in a Map: a restart forgets it.
import { isBurkinaFasoNumber, nationalNumber, resolveOperator } from "./operators.ts";
import type { DisburseAnswer, DisburseInput, MomoDisbursementProvider } from "./provider.ts";
import { ProviderError } from "./provider.ts";
import { createCallbackAuthenticator, createCallbackParser, type Dispatcher } from "./signing.ts";

/** What the simulated aggregator does when paying a number, by its 8 national digits. */
export type PayoutScenario = "paid" | "refused" | "timeout" | "late_success" | "late_failure";
export const PAYOUT_TEST_NUMBERS: Record<string, PayoutScenario> = {
  "70000001": "refused",
  "54000001": "refused",
  "70000002": "timeout",
  "54000002": "timeout",
  "70000003": "late_success",
  "54000003": "late_success",
  "70000004": "late_failure",
  "54000004": "late_failure",
};

export function payoutScenarioOf(phone: string): PayoutScenario {
  return PAYOUT_TEST_NUMBERS[nationalNumber(phone) ?? ""] ?? "paid";
}

export type SimulatedTransfer = {
  reference: string;
  providerRef: string;
  amount: string;
  phone: string;
  status: DisburseAnswer["status"];
  reason?: string;
  /** How many `send` calls named this reference (the money moved once whatever this says). */
  sendCalls: number;
};

export type MomoPayoutSimulator = MomoDisbursementProvider & {
  /** The transfer made for a reference, if any: tests check that money left once. */
  get(reference: string): SimulatedTransfer | undefined;
  /** How many transfers were really made (one per reference). */
  readonly transfersMade: number;
};

const MAX_TRANSFERS = 10_000;

export function createMomoPayoutSimulator(opts: {
  delayMs: number;
  dispatcher: Dispatcher;
  secret: string;
  now: () => number;
}): MomoPayoutSimulator {
  const transfers = new Map<string, SimulatedTransfer>();
  let made = 0;
  const d = opts.dispatcher;
  const answer = (t: SimulatedTransfer): DisburseAnswer => ({
    status: t.status,
    providerRef: t.providerRef,
    ...(t.reason ? { reason: t.reason } : {}),
  });

  function later(t: SimulatedTransfer, callbackUrl: string, status: "SUCCEEDED" | "FAILED", copies: number) {
    d.schedule(opts.delayMs, async () => {
      t.status = status;
      if (status === "FAILED") t.reason = "RECIPIENT_NOT_FOUND";
      await d.send(callbackUrl, {
        notificationId: d.notificationId(),
        providerRef: t.providerRef,
        reference: t.reference,
        status,
        amount: status === "SUCCEEDED" ? t.amount : "0",
        ...(t.reason ? { reason: t.reason } : {}),
        occurredAt: new Date(opts.now()).toISOString(),
      }, copies);
    });
  }

  function sendNow(input: DisburseInput): DisburseAnswer {
    const known = transfers.get(input.reference);
    if (known) {
      known.sendCalls++;
      if (known.amount !== input.amount || known.phone !== input.phone) {
        throw new ProviderError("initiate_failed", "reference already used for another transfer");
      }
      return answer(known);
    }
    if (!/^[1-9]\d*$/.test(input.amount)) {
      throw new ProviderError("initiate_failed", "amount must be a positive XOF integer string");
    }
    if (input.currency !== "XOF") throw new ProviderError("initiate_failed", "only XOF is supported");
    if (!isBurkinaFasoNumber(input.phone) || resolveOperator(input.phone) !== input.operatorCode) {
      throw new ProviderError("initiate_failed", "not a number of this operator in Burkina Faso");
    }
    const scenario = payoutScenarioOf(input.phone);
    const t: SimulatedTransfer = {
      reference: input.reference,
      providerRef: `sim_momo_out_${crypto.randomUUID().replaceAll("-", "")}`,
      amount: input.amount,
      phone: input.phone,
      status: "PENDING",
      sendCalls: 1,
    };
    if (transfers.size >= MAX_TRANSFERS) transfers.delete(transfers.keys().next().value!);
    transfers.set(input.reference, t);
    switch (scenario) {
      case "refused":
        t.status = "FAILED";
        t.reason = "RECIPIENT_ACCOUNT_BLOCKED";
        return answer(t);
      case "timeout":
        // The money leaves, but the answer never reaches the caller; the outcome comes by callback.
        made++;
        later(t, input.callbackUrl, "SUCCEEDED", 1);
        throw new ProviderError("unavailable", "mobile money aggregator timed out");
      case "late_success":
        made++;
        later(t, input.callbackUrl, "SUCCEEDED", 2);
        return answer(t);
      case "late_failure":
        later(t, input.callbackUrl, "FAILED", 1);
        return answer(t);
      default:
        made++;
        t.status = "SUCCEEDED";
        return answer(t);
    }
  }

  return {
    name: "momo-payout-simulator",
    send: (input) => new Promise((resolve) => resolve(sendNow(input))),
    lookup: (reference) => {
      const t = transfers.get(reference);
      return Promise.resolve(t ? answer(t) : null);
    },
    authenticateCallback: createCallbackAuthenticator(opts.secret, opts.now),
    parseCallback: createCallbackParser(opts.secret, opts.now),
    get: (reference) => transfers.get(reference),
    get transfersMade() {
      return made;
    },
  };
}
