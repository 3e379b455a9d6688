// What the customer's hosted checkout page shows of a pay-in: what to send, where, until when, and how
// far along the payment is. Nothing merchant-internal (metadata, externalRef, fees) ever reaches it.
import { type CheckoutRow, findCheckoutRow } from "../../db/checkout.ts";
import type { Deps } from "../deps.ts";
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
  | "failed";

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
};

/** The small JSON the page polls for live updates. */
export type CheckoutStatus =
  & Pick<
    CheckoutView,
    "status" | "phase" | "final" | "confirmations" | "amountReceived" | "secondsLeft"
  >
  & { required: number };

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
    qrPng: row.qr_png && row.qr_png.startsWith("data:image/png;base64,") ? row.qr_png : null,
    expiresAt: row.expires_at.toISOString(),
    secondsLeft,
    confirmations,
    requiredConfirmations: required,
    successUrl: safeLink(row.success_url),
    cancelUrl: safeLink(row.cancel_url),
    isSandbox: row.is_sandbox,
  };
}

/** The whole view for rendering the page (with the QR code), or null for an unknown id. */
export async function getCheckoutView(deps: CheckoutDeps, payinId: string): Promise<CheckoutView | null> {
  const row = await findCheckoutRow(deps.db, payinId, { withQr: true });
  return row ? toView(deps, row) : null;
}

/** The live-update answer, read without the QR code; null for an unknown id. */
export async function getCheckoutStatus(deps: CheckoutDeps, payinId: string): Promise<CheckoutStatus | null> {
  const row = await findCheckoutRow(deps.db, payinId, { withQr: false });
  return row ? checkoutStatusOf(toView(deps, row)) : null;
}

export function checkoutStatusOf(v: CheckoutView): CheckoutStatus {
  return {
    status: v.status,
    phase: v.phase,
    final: v.final,
    confirmations: v.confirmations,
    required: v.requiredConfirmations,
    amountReceived: v.amountReceived,
    secondsLeft: v.secondsLeft,
  };
}

/** An amount as a person reads it: no trailing zeros past the cents ("11.50", "11.523"). */
export function displayAmount(amount: string): string {
  const d = new Decimal(amount);
  return d.decimalPlaces() <= 2 ? d.toFixed(2) : d.toFixed();
}
