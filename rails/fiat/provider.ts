// The seam between the gateway and whoever moves XOF: a card acquirer or a mobile money aggregator.
// The domain talks only to these interfaces; configuration chooses the implementation (the simulators by
// default). Amounts are XOF integer strings.

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
  status: "SUCCEEDED" | "FAILED";
  /** XOF actually captured, integer string (SUCCEEDED). */
  amount: string;
  /** Why it failed, e.g. CARD_DECLINED, INSUFFICIENT_FUNDS, CUSTOMER_REJECTED, TIMEOUT. */
  reason?: string;
  occurredAt: Date;
};

export type StatusAnswer = { status: "PENDING" | "SUCCEEDED" | "FAILED"; amount?: string; reason?: string };

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

export interface CardProvider {
  readonly name: string;
  initiate(input: InitiateInput): Promise<CardInitiateResult>;
  queryStatus(providerRef: string): Promise<StatusAnswer>;
  parseCallback: CallbackParser;
}

export interface MomoProvider {
  readonly name: string;
  initiate(input: InitiateInput & { operatorCode: OperatorCode; phone: string }): Promise<MomoInitiateResult>;
  submitOtp(providerRef: string, otp: string): Promise<OtpResult>;
  queryStatus(providerRef: string): Promise<StatusAnswer>;
  parseCallback: CallbackParser;
}
