// What the customer's hosted checkout page shows of a pay-in: what to send, where, until when, and how
// far along the payment is. Nothing merchant-internal (metadata, externalRef, fees) ever reaches it.
// Card and mobile money pay-ins add what the customer does on the provider's side: the acquirer's card
// page, the operator's instruction and whether it asks for an SMS code or an approval on the phone.
import { type CheckoutRow, findCheckoutRow } from "../../db/checkout.ts";
import { formatXof, OPERATOR_MODES, operatorInstruction } from "../../rails/fiat/operators.ts";
import { qrPngDataUrlSync } from "../../rails/tron/qr.ts";
import type { OperatorCode } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";
import { brandingOf, type MerchantBranding } from "../merchants/branding.ts";
import { takesPayments } from "../merchants/availability.ts";
import { Decimal, formatAmount } from "../money.ts";
import { isFinal, PAYIN_STATUSES, type PayinStatus } from "./states.ts";

/** The page's views: one per thing the customer must understand. */
export type CheckoutPhase =
  | "waiting"
  | "confirming"
  | "paid"
  | "expired"
  | "underpaid"
  | "overpaid"
  | "failed"
  /** Mobile money, OTP mode: the code was accepted, the operator's confirmation is awaited. */
  | "processing";

/** Which page the customer gets: a USDT deposit, a card, or mobile money by SMS code or approval. */
export type CheckoutRail = "usdt" | "card" | "momo_otp" | "momo_approval";

/** Why a card or mobile money payment failed, as the customer may be told (never the raw provider text). */
export type CheckoutFailure =
  | "card_declined"
  | "insufficient_funds"
  | "customer_rejected"
  | "too_many_attempts"
  | "other";

export type CheckoutView = {
  id: string;
  status: PayinStatus;
  phase: CheckoutPhase;
  /** True once the status can no longer change: the page stops polling. */
  final: boolean;
  paymentMethod: string;
  /** What the customer must send, canonical text (6 decimals for USDT). */
  amountExpected: string;
  amountReceived: string;
  currency: "USDT_TRC20" | "XOF";
  chain: string | null;
  address: string | null;
  qrPng: string | null;
  expiresAt: string;
  secondsLeft: number;
  /** Depth of the least-confirmed live transfer, capped at `requiredConfirmations`; 0 when none. */
  confirmations: number;
  requiredConfirmations: number;
  successUrl: string | null;
  cancelUrl: string | null;
  isSandbox: boolean;
  rail: CheckoutRail;
  /** Mobile money: what the operator asks the customer to do, in both languages. */
  instruction: { fr: string; en: string } | null;
  /** Card: the acquirer's hosted card page (http/https only). */
  cardPageUrl: string | null;
  /** Only while the sandbox simulator is the provider: its simulated phone (shows the SMS code, approves). */
  simulatedPhoneUrl: string | null;
  /** Card and mobile money once FAILED: why, for the customer. */
  failure: CheckoutFailure | null;
  /** Whom the customer pays: never only a `pay_...` id. */
  merchant: MerchantBranding;
  /** The order's own reference: `externalRef`, else a description; null when the merchant gave neither. */
  reference: string | null;
  /** False while the merchant is suspended or closed: a pay-in still waiting is shown as unavailable. */
  merchantAvailable: boolean;
  merchantStatus: string;
};

/**
 * The small JSON the page polls for live updates. USDT adds its confirmations; card and mobile money add
 * the failure reason (null until FAILED).
 */
export type CheckoutStatus =
  & Pick<CheckoutView, "status" | "phase" | "final" | "amountReceived" | "secondsLeft">
  & ({ confirmations: number; required: number } | { reason: CheckoutFailure | null });

type CheckoutDeps = Pick<Deps, "db" | "clock" | "config">;

/** Only plain web links go into an href: a stored URL with another scheme is dropped. */
function safeLink(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
  } catch {
    return null;
  }
}

function phaseOf(status: PayinStatus, secondsLeft: number): CheckoutPhase {
  switch (status) {
    case "AWAITING_PAYMENT":
    case "PENDING":
      // The sweep that marks it EXPIRED runs every minute; the customer should not wait for it.
      return secondsLeft > 0 ? "waiting" : "expired";
    case "CONFIRMING":
      return "confirming";
    case "CONFIRMED":
      return "paid";
    case "EXPIRED":
      return "expired";
    case "UNDERPAID":
      return "underpaid";
    case "OVERPAID":
      return "overpaid";
    case "FAILED":
      return "failed";
  }
}

function railOf(row: CheckoutRow): CheckoutRail {
  if (row.payment_method === "CARD") return "card";
  if (row.payment_method !== "MOBILE_MONEY") return "usdt";
  if (row.next_step === "otp" || row.next_step === "approval") return `momo_${row.next_step}`;
  const mode = OPERATOR_MODES[row.operator_code as OperatorCode];
  return mode === "otp" ? "momo_otp" : "momo_approval";
}

const FAILURES: Record<string, CheckoutFailure> = {
  CARD_DECLINED: "card_declined",
  CHALLENGE_FAILED: "card_declined",
  INSUFFICIENT_FUNDS: "insufficient_funds",
  CUSTOMER_REJECTED: "customer_rejected",
  OTP_ATTEMPTS_EXCEEDED: "too_many_attempts",
};

function fiatFailure(row: CheckoutRow, status: PayinStatus): CheckoutFailure | null {
  if (status !== "FAILED" || row.payment_method === "USDT_TRC20") return null;
  return FAILURES[row.failure_reason ?? ""] ?? "other";
}

function instructionOf(row: CheckoutRow): { fr: string; en: string } | null {
  if (row.payment_method !== "MOBILE_MONEY") return null;
  const operator = row.operator_code as OperatorCode;
  if (!OPERATOR_MODES[operator]) return null;
  return operatorInstruction(operator, formatAmount(row.amount_expected, "XOF"));
}

function toView(deps: CheckoutDeps, row: CheckoutRow): CheckoutView {
  const status = (PAYIN_STATUSES as readonly string[]).includes(row.status)
    ? row.status as PayinStatus
    : "FAILED";
  const now = deps.clock.now().getTime();
  const secondsLeft = Math.max(0, Math.floor((row.expires_at.getTime() - now) / 1000));
  const required = deps.config.tron.payinConfirmations;
  let confirmations = 0;
  if (row.newest_block !== null && row.head_block !== null) {
    const depth = Number(row.head_block) - Number(row.newest_block) + 1;
    confirmations = Math.min(required, Math.max(0, depth));
  }
  if (status === "CONFIRMED") confirmations = required;
  return {
    id: row.id,
    status,
    phase: phaseOf(status, secondsLeft),
    final: isFinal(status),
    paymentMethod: row.payment_method,
    amountExpected: formatAmount(row.amount_expected, row.currency),
    amountReceived: formatAmount(row.amount_received, row.currency),
    currency: row.currency,
    chain: row.chain,
    address: row.address,
    qrPng: null,
    expiresAt: row.expires_at.toISOString(),
    secondsLeft,
    confirmations,
    requiredConfirmations: required,
    successUrl: safeLink(row.success_url),
    cancelUrl: safeLink(row.cancel_url),
    isSandbox: row.is_sandbox,
    rail: railOf(row),
    instruction: instructionOf(row),
    cardPageUrl: row.payment_method === "CARD" ? safeLink(row.hosted_payment_url) : null,
    simulatedPhoneUrl: row.payment_method === "MOBILE_MONEY" && row.provider_ref?.startsWith("sim_momo_")
      ? `/simulators/momo/${encodeURIComponent(row.provider_ref)}`
      : null,
    failure: fiatFailure(row, status),
    merchant: brandingOf({
      name: row.merchant_name,
      display_name: row.merchant_display_name,
      logo_data_url: row.merchant_logo,
    }),
    reference: row.external_ref ?? (row.description ? row.description.slice(0, 200) : null),
    merchantAvailable: takesPayments({ status: row.merchant_status }),
    merchantStatus: row.merchant_status,
  };
}

/** The whole view for rendering the page (with the QR code), or null for an unknown id. */
export async function getCheckoutView(deps: CheckoutDeps, payinId: string): Promise<CheckoutView | null> {
  const row = await findCheckoutRow(deps.db, payinId);
  if (!row) return null;
  // Drawn for each page view (tens of microseconds), as for the creation answer: never stored.
  return { ...toView(deps, row), qrPng: row.address ? qrPngDataUrlSync(row.address) : null };
}

/** The live-update answer, read without the QR code; null for an unknown id. */
export async function getCheckoutStatus(deps: CheckoutDeps, payinId: string): Promise<CheckoutStatus | null> {
  const row = await findCheckoutRow(deps.db, payinId);
  return row ? checkoutStatusOf(toView(deps, row)) : null;
}

export function checkoutStatusOf(v: CheckoutView): CheckoutStatus {
  const common = {
    status: v.status,
    phase: v.phase,
    final: v.final,
    amountReceived: v.amountReceived,
    secondsLeft: v.secondsLeft,
  };
  return v.rail === "usdt"
    ? { ...common, confirmations: v.confirmations, required: v.requiredConfirmations }
    : { ...common, reason: v.failure };
}

/** An amount as a person reads it: no trailing zeros past the cents ("11.50", "11.523"). */
export function displayAmount(amount: string): string {
  const d = new Decimal(amount);
  return d.decimalPlaces() <= 2 ? d.toFixed(2) : d.toFixed();
}

/**
 * An amount in the pay-in's currency as the customer reads it: USDT as `displayAmount`, XOF (no minor
 * unit) grouped by thousands for the language: "5 000" (narrow no-break space) or "5,000".
 */
export function displayAmountIn(
  amount: string,
  currency: CheckoutView["currency"],
  lang: "fr" | "en",
): string {
  if (currency === "USDT_TRC20") return displayAmount(amount);
  return formatXof(new Decimal(amount).toFixed(0, Decimal.ROUND_DOWN), lang);
}
