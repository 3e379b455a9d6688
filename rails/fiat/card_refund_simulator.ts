// The card acquirer's refunds, simulated: most refunds are made at once; test amounts are refused, answer
// late through a signed callback (once, or the same notification twice), or time out (the money goes back
// to the card, the answer is lost).
// Idempotent by reference like a real acquirer: a reference sent twice is refunded once, and the sum of a
// payment's refunds never passes what was captured. State lives in a Map: a restart forgets it.
import type { CardRefundAnswer, CardRefundInput } from "./provider.ts";
import { ProviderError } from "./provider.ts";
import type { Dispatcher } from "./signing.ts";

/** What the simulated acquirer does with a refund, by its XOF amount. Any other amount is refunded at once. */
export const REFUND_TEST_AMOUNTS = {
  /** Refused by the acquirer: REFUND_REFUSED. */
  REFUSED: "777",
  /** Accepted (PENDING), refunded `delayMs` later through a signed callback. */
  LATE: "778",
  /** Refunded, but the answer is lost (the caller sees "unavailable"); the callback comes later. */
  TIMEOUT: "779",
  /** Accepted (PENDING), then the same signed callback (one notification id) delivered twice. */
  DUPLICATE: "780",
} as const;

export type SimulatedCardRefund = {
  reference: string;
  providerRef: string;
  paymentRef: string;
  amount: string;
  status: CardRefundAnswer["status"];
  reason?: string;
  /** How many `refund` calls named this reference (the money moved once whatever this says). */
  calls: number;
};

export type CardRefunds = {
  refund(input: CardRefundInput, captured: string | undefined): Promise<CardRefundAnswer>;
  lookupRefund(reference: string): Promise<CardRefundAnswer | null>;
  /** The refund made for a reference, if any: tests check that money went back once. */
  getRefund(reference: string): SimulatedCardRefund | undefined;
};

const MAX_REFUNDS = 10_000;

export function createCardRefunds(
  opts: { delayMs: number; dispatcher: Dispatcher; now: () => number },
): CardRefunds {
  const refunds = new Map<string, SimulatedCardRefund>();
  const d = opts.dispatcher;
  const answer = (r: SimulatedCardRefund): CardRefundAnswer => ({
    status: r.status,
    providerRef: r.providerRef,
    ...(r.reason ? { reason: r.reason } : {}),
  });
  const refundedOf = (paymentRef: string) =>
    [...refunds.values()].filter((r) => r.paymentRef === paymentRef && r.status !== "FAILED")
      .reduce((sum, r) => sum + BigInt(r.amount), 0n);

  function callBackLater(r: SimulatedCardRefund, input: CardRefundInput, copies: number) {
    d.schedule(opts.delayMs, async () => {
      r.status = "SUCCEEDED";
      await d.send(input.callbackUrl, {
        notificationId: d.notificationId(),
        providerRef: r.providerRef,
        reference: r.reference,
        status: "SUCCEEDED",
        amount: r.amount,
        occurredAt: new Date(opts.now()).toISOString(),
      }, copies);
    });
  }

  return {
    refund(input, captured) {
      if (!/^[1-9]\d*$/.test(input.amount) || input.currency !== "XOF") {
        return Promise.reject(new ProviderError("initiate_failed", "amount must be a positive XOF integer"));
      }
      const known = refunds.get(input.reference);
      if (known) {
        known.calls++;
        return Promise.resolve(answer(known));
      }
      if (refunds.size >= MAX_REFUNDS) refunds.delete(refunds.keys().next().value!);
      const r: SimulatedCardRefund = {
        reference: input.reference,
        providerRef: `sim_rfd_${crypto.randomUUID().replaceAll("-", "")}`,
        paymentRef: input.paymentRef,
        amount: input.amount,
        status: "SUCCEEDED",
        calls: 1,
      };
      const over = captured !== undefined &&
        refundedOf(input.paymentRef) + BigInt(input.amount) > BigInt(captured);
      if (over) Object.assign(r, { status: "FAILED", reason: "REFUND_EXCEEDS_CAPTURE" });
      else if (input.amount === REFUND_TEST_AMOUNTS.REFUSED) {
        Object.assign(r, { status: "FAILED", reason: "REFUND_REFUSED" });
      } else if (
        input.amount === REFUND_TEST_AMOUNTS.LATE || input.amount === REFUND_TEST_AMOUNTS.TIMEOUT ||
        input.amount === REFUND_TEST_AMOUNTS.DUPLICATE
      ) {
        r.status = "PENDING";
      }
      refunds.set(r.reference, r);
      if (r.status === "PENDING") {
        callBackLater(r, input, input.amount === REFUND_TEST_AMOUNTS.DUPLICATE ? 2 : 1);
      }
      if (input.amount === REFUND_TEST_AMOUNTS.TIMEOUT && r.calls === 1) {
        return Promise.reject(new ProviderError("unavailable", "the acquirer did not answer in time"));
      }
      return Promise.resolve(answer(r));
    },
    lookupRefund(reference) {
      const r = refunds.get(reference);
      return Promise.resolve(r ? answer(r) : null);
    },
    getRefund: (reference) => refunds.get(reference),
  };
}
