// A card acquirer stand-in: initiate answers a hosted card page of its own (/simulators/card/<ref>), the
// customer types a test card there, and the outcome reaches the gateway as a signed callback
// `delayMs` later. State lives in a Map: a restart forgets pending simulated payments.
import type { CardInitiateResult, CardProvider, InitiateInput, StatusAnswer } from "./provider.ts";
import { ProviderError } from "./provider.ts";
import { createCallbackAuthenticator, createCallbackParser, type Dispatcher } from "./signing.ts";
import { type CardRefunds, createCardRefunds } from "./card_refund_simulator.ts";

/** The documented test cards (digits only). Any other valid number succeeds like SUCCESS. */
export const TEST_CARDS = {
  SUCCESS: "4242424242424242",
  DECLINED: "4000000000000002",
  CHALLENGE: "4000000000003220",
  NO_ANSWER: "4000000000000119",
} as const;
/** The challenge (3-D Secure-like) code that passes. */
export const CHALLENGE_CODE = "123456";

export type CardStep = "card" | "challenge" | "processing" | "done";
export type CardFields = { number: string; expiry: string; cvc: string };
export type CardFieldErrors = Partial<Record<keyof CardFields, CardErrorCode>>;
export type CardErrorCode =
  | "number_required"
  | "number_length"
  | "number_luhn"
  | "expiry_required"
  | "expiry_format"
  | "expiry_month"
  | "expiry_past"
  | "cvc_format"
  | "code_required";

export type CardPayment = {
  providerRef: string;
  reference: string;
  amount: string;
  callbackUrl: string;
  returnUrl: string;
  isSandbox: boolean;
  step: CardStep;
  /** Last 4 digits once a card was accepted by the form. */
  last4?: string;
  status: StatusAnswer["status"];
  reason?: string;
};

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Validates the hosted form's fields; the card is valid through the last day of its expiry month. */
export function validateCardFields(fields: CardFields, now: Date): CardFieldErrors {
  const errors: CardFieldErrors = {};
  const number = fields.number.replace(/[\s-]/g, "");
  if (number === "") errors.number = "number_required";
  else if (!/^\d{12,19}$/.test(number)) errors.number = "number_length";
  else if (!luhnValid(number)) errors.number = "number_luhn";

  const expiry = fields.expiry.replace(/\s/g, "");
  const m = /^(\d{2})\/?(\d{2})$/.exec(expiry);
  if (expiry === "") errors.expiry = "expiry_required";
  else if (!m) errors.expiry = "expiry_format";
  else {
    const month = Number(m[1]);
    const year = 2000 + Number(m[2]);
    if (month < 1 || month > 12) errors.expiry = "expiry_month";
    else {
      const nowYear = now.getUTCFullYear();
      const nowMonth = now.getUTCMonth() + 1;
      if (year < nowYear || (year === nowYear && month < nowMonth)) errors.expiry = "expiry_past";
    }
  }
  if (!/^\d{3,4}$/.test(fields.cvc.trim())) errors.cvc = "cvc_format";
  return errors;
}

function checkInput(input: InitiateInput): void {
  if (!input.callbackUrl) throw new ProviderError("missing_url", "callbackUrl is required");
  if (!input.returnUrl) throw new ProviderError("missing_url", "returnUrl is required");
  if (!/^[1-9]\d*$/.test(input.amount)) {
    throw new ProviderError("initiate_failed", "amount must be a positive XOF integer string");
  }
  if (input.currency !== "XOF") throw new ProviderError("initiate_failed", "only XOF is supported");
}

export type CardSimulator = CardProvider & Pick<CardRefunds, "getRefund"> & {
  /** The payment behind a hosted page, or undefined. */
  get(providerRef: string): CardPayment | undefined;
  /** The card form was posted: field errors, or the next step. */
  submitCard(providerRef: string, fields: CardFields): { ok: false; errors: CardFieldErrors } | {
    ok: true;
    step: CardStep;
  };
  /** The challenge code was posted. */
  submitChallenge(providerRef: string, code: string): { ok: false; errors: { code: CardErrorCode } } | {
    ok: true;
    step: CardStep;
  };
};

/** How many simulated payments are remembered (oldest forgotten first). */
export const MAX_PAYMENTS = 10_000;

export function createCardSimulator(opts: {
  publicBase: string;
  secret: string;
  delayMs: number;
  dispatcher: Dispatcher;
  now: () => number;
}): CardSimulator {
  const payments = new Map<string, CardPayment>();
  const base = opts.publicBase.replace(/\/+$/, "");
  const d = opts.dispatcher;
  const refunds = createCardRefunds({ delayMs: opts.delayMs, dispatcher: d, now: opts.now });

  /** The acquirer decides: after delayMs the payment is final and the callback goes out. */
  function decide(p: CardPayment, outcome: { status: "SUCCEEDED" | "FAILED"; reason?: string } | "silent") {
    p.step = "processing";
    if (outcome === "silent") return; // the acquirer never answers: PENDING for ever, no callback
    d.schedule(opts.delayMs, async () => {
      p.step = "done";
      p.status = outcome.status;
      if (outcome.reason) p.reason = outcome.reason;
      await d.send(p.callbackUrl, {
        notificationId: d.notificationId(),
        providerRef: p.providerRef,
        reference: p.reference,
        status: outcome.status,
        amount: outcome.status === "SUCCEEDED" ? p.amount : "0",
        ...(outcome.reason ? { reason: outcome.reason } : {}),
        occurredAt: new Date(opts.now()).toISOString(),
      });
    });
  }

  return {
    name: "card-simulator",
    initiate(input: InitiateInput): Promise<CardInitiateResult> {
      return new Promise((resolve) => {
        checkInput(input);
        const providerRef = `sim_card_${crypto.randomUUID().replaceAll("-", "")}`;
        // Bounded memory in a long-running process: the oldest simulated payments are forgotten first.
        if (payments.size >= MAX_PAYMENTS) payments.delete(payments.keys().next().value!);
        payments.set(providerRef, {
          providerRef,
          reference: input.reference,
          amount: input.amount,
          callbackUrl: input.callbackUrl,
          returnUrl: input.returnUrl,
          isSandbox: input.isSandbox,
          step: "card",
          status: "PENDING",
        });
        resolve({ providerRef, redirectUrl: `${base}/simulators/card/${providerRef}` });
      });
    },
    queryStatus(providerRef: string): Promise<StatusAnswer> {
      const p = payments.get(providerRef);
      if (!p) {
        return Promise.reject(
          new ProviderError(
            "unavailable",
            `unknown card payment ${providerRef} (the simulator forgets on restart)`,
          ),
        );
      }
      return Promise.resolve({
        status: p.status,
        ...(p.status === "SUCCEEDED" ? { amount: p.amount } : {}),
        ...(p.reason ? { reason: p.reason } : {}),
      });
    },
    // Only a captured payment this simulator remembers caps its refunds (it forgets on restart).
    refund: (input) => {
      const p = payments.get(input.paymentRef);
      return refunds.refund(input, p?.status === "SUCCEEDED" ? p.amount : undefined);
    },
    lookupRefund: (reference) => refunds.lookupRefund(reference),
    getRefund: (reference) => refunds.getRefund(reference),
    authenticateCallback: createCallbackAuthenticator(opts.secret, opts.now),
    parseCallback: createCallbackParser(opts.secret, opts.now),
    get: (ref) => payments.get(ref),
    submitCard(ref, fields) {
      const p = payments.get(ref);
      if (!p || p.step !== "card") return { ok: true, step: p?.step ?? "done" };
      const errors = validateCardFields(fields, new Date(opts.now()));
      if (Object.keys(errors).length > 0) return { ok: false, errors };
      const number = fields.number.replace(/[\s-]/g, "");
      p.last4 = number.slice(-4);
      if (number === TEST_CARDS.CHALLENGE) {
        p.step = "challenge";
      } else if (number === TEST_CARDS.DECLINED) {
        decide(p, { status: "FAILED", reason: "CARD_DECLINED" });
      } else if (number === TEST_CARDS.NO_ANSWER) {
        decide(p, "silent");
      } else {
        decide(p, { status: "SUCCEEDED" });
      }
      return { ok: true, step: p.step };
    },
    submitChallenge(ref, code) {
      const p = payments.get(ref);
      if (!p || p.step !== "challenge") return { ok: true, step: p?.step ?? "done" };
      const trimmed = code.trim();
      if (trimmed === "") return { ok: false, errors: { code: "code_required" } };
      decide(
        p,
        trimmed === CHALLENGE_CODE
          ? { status: "SUCCEEDED" }
          : { status: "FAILED", reason: "CHALLENGE_FAILED" },
      );
      return { ok: true, step: p.step };
    },
  };
}
