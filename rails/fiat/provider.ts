// The seam between the gateway and whoever moves XOF: a card acquirer or a mobile money aggregator.
// The domain talks only to these interfaces; configuration chooses the implementation (the simulators by
// default). Amounts are XOF integer strings.
import type { AggregatorCallStats } from "./aggregators/call_stats.ts";

export type FiatRail = "CARD" | "MOBILE_MONEY";
export type OperatorCode = "OPERATOR_A_BF" | "OPERATOR_B_BF";

export type InitiateInput = {
  /** Our pay-in id: the provider echoes it in callbacks. */
  reference: string;
  amount: string;
  currency: "XOF";
  customer: { name?: string; email?: string; phone?: string };
  /** Where the provider POSTs its signed outcome. */
  callbackUrl: string;
  /** Where the provider's hosted page sends the customer back (card). */
  returnUrl: string;
  isSandbox: boolean;
};

export type CardInitiateResult = { providerRef: string; redirectUrl: string };

export type MomoInitiateResult = {
  providerRef: string;
  nextStep: "otp" | "approval";
  instruction: { fr: string; en: string };
};

export type OtpResult = { ok: true } | {
  ok: false;
  code: "OTP_INVALID" | "OTP_EXPIRED" | "OTP_NOT_APPLICABLE";
};

/** The outcome a provider reports, after its signature and freshness were checked. */
export type ProviderOutcome = {
  /** The provider's id of this notification, for replay detection. */
  notificationId: string;
  providerRef: string;
  reference: string;
  /**
   * PENDING: a genuine notification whose transaction is not final yet (nothing moves). UNKNOWN: the
   * aggregator answered a status the gateway does not know: held for an operator, never guessed.
   * The simulators only ever send SUCCEEDED or FAILED.
   */
  status: "SUCCEEDED" | "FAILED" | "PENDING" | "UNKNOWN";
  /** XOF actually captured, integer string (SUCCEEDED). */
  amount: string;
  /** Why it failed, e.g. CARD_DECLINED, INSUFFICIENT_FUNDS, CUSTOMER_REJECTED, TIMEOUT. */
  reason?: string;
  occurredAt: Date;
  /** The aggregator's own figures, read back from its status call (live aggregators only). */
  reported?: AggregatorAmounts;
};

/**
 * What a live aggregator's answer says about the money of one transaction, in its own fields: `paid` what
 * the customer paid (or the recipient was paid), `fee` the aggregator's fee when the answer carries one,
 * `settled` what the aggregator keeps for the gateway (paid less that fee). Absent: not reported.
 */
export type AggregatorAmounts = { paid?: string; fee?: string; settled?: string };

/** UNKNOWN: a status the gateway cannot map (`reason` carries the aggregator's words); held, never guessed. */
export type StatusAnswer = {
  status: "PENDING" | "SUCCEEDED" | "FAILED" | "UNKNOWN";
  /** XOF the order received, to compare with the asked amount (a fee the customer paid on top excluded). */
  amount?: string;
  reason?: string;
  /** The aggregator's own figures (live aggregators only). */
  reported?: AggregatorAmounts;
};

/**
 * How a live aggregator wants to be polled while a transaction is open: the first poll after `firstMs`,
 * doubling up to `maxMs` (the simulators have none: they are asked on every sweep).
 */
export type PollPolicy = { firstMs: number; maxMs: number };

export class ProviderError extends Error {
  constructor(
    readonly kind: "initiate_failed" | "missing_url" | "unavailable" | "bad_callback",
    message: string,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/** Verifies a callback's signature and age; throws ProviderError("bad_callback") when forged or stale. */
export type CallbackParser = (request: { headers: Headers; rawBody: string }) => Promise<ProviderOutcome>;

/**
 * Only the signature and age of a callback (CallbackParser's first half), before anything reads the body:
 * throws ProviderError("bad_callback") when forged or stale.
 */
export type CallbackAuthenticator = (request: { headers: Headers; rawBody: string }) => Promise<void>;

/** Money back to the card that paid: the acquirer's refund call. */
export type CardRefundInput = {
  /** Our refund id: the acquirer's idempotency key, echoed in callbacks as `reference`. */
  reference: string;
  /** The acquirer's reference of the captured payment. */
  paymentRef: string;
  /** XOF, a positive integer string (a part of the capture, or all of it). */
  amount: string;
  currency: "XOF";
  /** Where the acquirer POSTs its signed outcome when it is not final at once. */
  callbackUrl: string;
  isSandbox: boolean;
};

/** The acquirer's view of one refund. PENDING: accepted, the outcome comes later (callback or lookup). */
export type CardRefundAnswer = {
  status: "PENDING" | "SUCCEEDED" | "FAILED";
  /** The acquirer's id of the refund. */
  providerRef: string;
  /** Why it was refused, e.g. REFUND_REFUSED, REFUND_EXCEEDS_CAPTURE. */
  reason?: string;
};

export interface CardProvider {
  readonly name: string;
  readonly polling?: PollPolicy;
  /**
   * The provider's page charges exactly the asked amount (a live aggregator): any other amount it reports
   * is held for an operator, never credited as UNDERPAID or OVERPAID.
   */
  readonly exactAmount?: boolean;
  initiate(input: InitiateInput): Promise<CardInitiateResult>;
  queryStatus(providerRef: string): Promise<StatusAnswer>;
  /**
   * Idempotent by `reference`: the same reference again answers the refund already made, never a second
   * one. A `ProviderError("unavailable")` means "no answer": ask `lookupRefund` later. Absent when the
   * acquirer publishes no refund call (the live aggregators): such pay-ins answer REFUND_RAIL_NOT_AVAILABLE.
   */
  refund?(input: CardRefundInput): Promise<CardRefundAnswer>;
  /** The refund made under `reference`, or null when the acquirer never received it (sending is safe). */
  lookupRefund?(reference: string): Promise<CardRefundAnswer | null>;
  authenticateCallback: CallbackAuthenticator;
  parseCallback: CallbackParser;
}

export interface MomoProvider {
  readonly name: string;
  readonly polling?: PollPolicy;
  /** As CardProvider.exactAmount. */
  readonly exactAmount?: boolean;
  initiate(input: InitiateInput & { operatorCode: OperatorCode; phone: string }): Promise<MomoInitiateResult>;
  submitOtp(providerRef: string, otp: string): Promise<OtpResult>;
  queryStatus(providerRef: string): Promise<StatusAnswer>;
  authenticateCallback: CallbackAuthenticator;
  parseCallback: CallbackParser;
}

/** Where a disbursement goes: a mobile money wallet (bank transfers are made by an operator). */
export type DisburseInput = {
  /** Our disbursement reference: the provider's idempotency key, echoed in callbacks. */
  reference: string;
  amount: string;
  currency: "XOF";
  operatorCode: OperatorCode;
  phone: string;
  /** Where the provider POSTs its signed outcome when it is not final at once. */
  callbackUrl: string;
  isSandbox: boolean;
};

/** The provider's view of one disbursement. PENDING: accepted, the outcome comes later (callback or query). */
export type DisburseAnswer = {
  /** UNKNOWN: a status the gateway cannot map (`reason` says what was answered): held, never guessed. */
  status: "PENDING" | "SUCCEEDED" | "FAILED" | "UNKNOWN";
  providerRef: string;
  /** XOF the provider says it paid, when it says (live aggregators' status calls). */
  amount?: string;
  /** Why it failed, e.g. RECIPIENT_NOT_FOUND, ACCOUNT_LIMIT_REACHED. */
  reason?: string;
  /** The aggregator's own figures (live aggregators only). */
  reported?: AggregatorAmounts;
};

/**
 * Sends XOF out to a mobile money wallet. `send` is idempotent by `reference`: sending the same reference
 * again answers the transfer already made, never a second one. `lookup` answers null when the provider
 * never received the reference (then sending it is safe). A `ProviderError("unavailable")` from `send`
 * means "no answer": the transfer may or may not have been made, ask `lookup` later.
 */
export interface MomoDisbursementProvider {
  readonly name: string;
  readonly polling?: PollPolicy;
  send(input: DisburseInput): Promise<DisburseAnswer>;
  lookup(reference: string): Promise<DisburseAnswer | null>;
  authenticateCallback: CallbackAuthenticator;
  parseCallback: CallbackParser;
}

/** What one provider offers the gateway: the shape of `deps.fiat.sandbox` and `deps.fiat.live`. */
export type FiatProviderSet = {
  card: CardProvider;
  momo: MomoProvider;
  momoPayout: MomoDisbursementProvider;
  /** A live aggregator's call counts and latency (rails/fiat/aggregators/call_stats.ts); none for simulators. */
  calls?: AggregatorCallStats;
};
