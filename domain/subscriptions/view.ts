// What merchants read (API answers and webhook payloads) and the customer's links (renewal page, signed
// cancel link). One builder per shape, so the API, the events and the test samples never drift apart.
import type { Config } from "../../config.ts";
import type { RenewalRow, SubscriptionRow } from "../../db/subscriptions.ts";
import { isPublishableKind, type KeyKind } from "../keys/api_keys.ts";
import { hmacSha256Hex, timingSafeEqual } from "../crypto.ts";
import { Decimal } from "../money.ts";

/** XOF in whole units, USDT with its 6 decimals, as pay-ins show them. */
export function formatAmount(amount: string, currency: "USDT_TRC20" | "XOF"): string {
  return new Decimal(amount).toFixed(currency === "XOF" ? 0 : 6);
}

export function renewalUrl(config: Pick<Config, "publicUrl">, renewalId: string): string {
  return `${config.publicUrl}/subscriptions/renewals/${renewalId}`;
}

function tokenSecret(config: Pick<Config, "appSecret">): string {
  if (!config.appSecret) throw new Error("APP_SECRET is not set: cancel links cannot be signed");
  return `subscription-cancel:${config.appSecret}`;
}

/** The customer's cancel token: an HMAC of the subscription id under the app secret (no expiry). */
export async function cancelToken(
  config: Pick<Config, "appSecret">,
  subscriptionId: string,
): Promise<string> {
  return (await hmacSha256Hex(tokenSecret(config), subscriptionId)).slice(0, 48);
}

export async function checkCancelToken(
  config: Pick<Config, "appSecret">,
  subscriptionId: string,
  token: string,
): Promise<boolean> {
  if (!/^[0-9a-f]{48}$/.test(token)) return false;
  return timingSafeEqual(await cancelToken(config, subscriptionId), token);
}

export async function cancelUrl(config: Pick<Config, "publicUrl" | "appSecret">, subscriptionId: string) {
  return `${config.publicUrl}/subscriptions/${subscriptionId}/cancel?token=${await cancelToken(
    config,
    subscriptionId,
  )}`;
}

const iso = (d: Date | null) => d ? d.toISOString() : null;

/** When the next renewal starts; null while paused or once cancelled (nothing will start). */
export function nextRenewalAt(s: SubscriptionRow): string | null {
  return s.status === "ACTIVE" || s.status === "PAST_DUE" ? s.next_period_start.toISOString() : null;
}

export function renewalView(config: Pick<Config, "publicUrl">, r: RenewalRow) {
  return {
    id: r.id,
    subscriptionId: r.subscription_id,
    periodIndex: r.period_index,
    periodStart: r.period_start.toISOString(),
    periodEnd: r.period_end.toISOString(),
    status: r.status,
    amount: formatAmount(r.amount, r.currency),
    currency: r.currency,
    graceUntil: r.grace_until.toISOString(),
    transactionId: r.payin_id,
    failureReason: r.failure_reason,
    paidAt: iso(r.paid_at),
    failedAt: iso(r.failed_at),
    renewalUrl: renewalUrl(config, r.id),
    createdAt: r.created_at.toISOString(),
  };
}

export type RenewalView = ReturnType<typeof renewalView>;

export function subscriptionView(s: SubscriptionRow) {
  return {
    id: s.id,
    paylinkId: s.paylink_id,
    status: s.status,
    customer: { email: s.customer_email, name: s.customer_name, phone: s.customer_phone },
    amount: formatAmount(s.amount, s.currency),
    currency: s.currency,
    description: s.description,
    interval: s.billing_interval,
    intervalCount: s.interval_count,
    currentPeriodStart: s.current_period_start.toISOString(),
    currentPeriodEnd: s.current_period_end.toISOString(),
    nextRenewalAt: nextRenewalAt(s),
    firstOrderId: s.first_order_id,
    paymentMethod: s.first_rail,
    pausedAt: iso(s.paused_at),
    cancelledAt: iso(s.cancelled_at),
    cancelledBy: s.cancelled_by,
    isSandbox: s.is_sandbox,
    createdAt: s.created_at.toISOString(),
    updatedAt: s.updated_at.toISOString(),
  };
}

/**
 * A subscription as a customer's browser may read it (a publishable key; the id is in the customer's
 * cancel link): its schedule and state, never the customer's e-mail, name or phone, nor the first order.
 */
export function publicSubscriptionView(s: SubscriptionRow) {
  return {
    id: s.id,
    paylinkId: s.paylink_id,
    status: s.status,
    amount: formatAmount(s.amount, s.currency),
    currency: s.currency,
    description: s.description,
    interval: s.billing_interval,
    intervalCount: s.interval_count,
    currentPeriodStart: s.current_period_start.toISOString(),
    currentPeriodEnd: s.current_period_end.toISOString(),
    nextRenewalAt: nextRenewalAt(s),
    pausedAt: iso(s.paused_at),
    cancelledAt: iso(s.cancelled_at),
    cancelledBy: s.cancelled_by,
    isSandbox: s.is_sandbox,
    createdAt: s.created_at.toISOString(),
    updatedAt: s.updated_at.toISOString(),
  };
}

/** The merchant's view for its secret and restricted keys, the public view for a publishable key. */
export function subscriptionViewFor(reader: { kind: KeyKind }, s: SubscriptionRow) {
  return isPublishableKind(reader.kind) ? publicSubscriptionView(s) : subscriptionView(s);
}

export type SubscriptionEvent =
  | "subscription.created"
  | "subscription.renewed"
  | "subscription.renewal_initiated"
  | "subscription.failed"
  | "subscription.cancelled"
  | "subscription.paused"
  | "subscription.resumed"
  | "subscription.updated";

/**
 * The `data` of every subscription.* event: the specification's `subscriptionId`, `paylinkId`, customer
 * info and billing period, then what the event is about (the renewal, who cancelled, what changed).
 */
export function subscriptionEventData(
  config: Pick<Config, "publicUrl">,
  s: SubscriptionRow,
  extra: {
    renewal?: RenewalRow;
    reason?: string;
    transactionId?: string | null;
    previous?: { amount: string; interval: string; intervalCount: number };
  } = {},
): Record<string, unknown> {
  return {
    subscriptionId: s.id,
    paylinkId: s.paylink_id,
    status: s.status,
    customer: { email: s.customer_email, name: s.customer_name, phone: s.customer_phone },
    amount: formatAmount(s.amount, s.currency),
    currency: s.currency,
    interval: s.billing_interval,
    intervalCount: s.interval_count,
    currentPeriodStart: s.current_period_start.toISOString(),
    currentPeriodEnd: s.current_period_end.toISOString(),
    nextRenewalAt: nextRenewalAt(s),
    ...(extra.transactionId !== undefined ? { transactionId: extra.transactionId } : {}),
    ...(extra.renewal ? { renewal: renewalView(config, extra.renewal) } : {}),
    ...(extra.reason ? { reason: extra.reason } : {}),
    ...(s.status === "CANCELLED" ? { cancelledBy: s.cancelled_by, cancelledAt: iso(s.cancelled_at) } : {}),
    ...(s.status === "PAUSED" ? { pausedAt: iso(s.paused_at) } : {}),
    ...(extra.previous ? { previous: extra.previous } : {}),
  };
}

/** A subscription as the samples of POST /v1/webhooks/test show it. */
export function sampleSubscriptionRow(now: Date, status: SubscriptionRow["status"]): SubscriptionRow {
  const end = new Date(now.getTime() + 30 * 86_400_000);
  return {
    id: "sub_test_0001",
    merchant_id: "mch_test_0001",
    is_sandbox: false,
    paylink_id: "plk_test_0001",
    first_order_id: "ord_test_0001",
    status,
    customer_email: "awa@example.com",
    customer_name: "Awa Ouedraogo",
    customer_phone: null,
    currency: "XOF",
    amount: "5000",
    description: "Panier bio: 1 × Panier hebdomadaire",
    first_rail: "MOBILE_MONEY",
    billing_interval: "MONTHLY",
    interval_count: 1,
    anchor_at: now,
    anchor_index: 1,
    current_period_index: 1,
    current_period_start: now,
    current_period_end: end,
    next_period_index: 2,
    next_period_start: end,
    paused_at: status === "PAUSED" ? now : null,
    cancelled_at: status === "CANCELLED" ? now : null,
    cancelled_by: status === "CANCELLED" ? "CUSTOMER" : null,
    created_at: now,
    updated_at: now,
  };
}

export function sampleRenewalRow(now: Date, status: RenewalRow["status"]): RenewalRow {
  const end = new Date(now.getTime() + 30 * 86_400_000);
  return {
    id: "srn_test_0001",
    subscription_id: "sub_test_0001",
    merchant_id: "mch_test_0001",
    is_sandbox: false,
    period_index: 2,
    period_start: now,
    period_end: end,
    status,
    currency: "XOF",
    amount: "5000",
    grace_until: new Date(now.getTime() + 72 * 3_600_000),
    payin_id: status === "PENDING" ? null : "pay_test_0001",
    failure_reason: status === "FAILED" ? "UNPAID" : null,
    paid_at: status === "PAID" ? now : null,
    failed_at: status === "FAILED" ? now : null,
    created_at: now,
    updated_at: now,
  };
}

/** The sample `data` of a test delivery of `type`, built by subscriptionEventData itself. */
export function sampleSubscriptionEventData(
  config: Pick<Config, "publicUrl">,
  type: SubscriptionEvent,
  now: Date,
) {
  switch (type) {
    case "subscription.created":
      return subscriptionEventData(config, sampleSubscriptionRow(now, "ACTIVE"), {
        transactionId: "pay_test_0001",
      });
    case "subscription.renewal_initiated":
      return subscriptionEventData(config, sampleSubscriptionRow(now, "ACTIVE"), {
        renewal: sampleRenewalRow(now, "PENDING"),
      });
    case "subscription.renewed":
      return subscriptionEventData(config, sampleSubscriptionRow(now, "ACTIVE"), {
        renewal: sampleRenewalRow(now, "PAID"),
      });
    case "subscription.failed":
      return subscriptionEventData(config, sampleSubscriptionRow(now, "PAST_DUE"), {
        renewal: sampleRenewalRow(now, "FAILED"),
        reason: "UNPAID",
      });
    case "subscription.cancelled":
      return subscriptionEventData(config, sampleSubscriptionRow(now, "CANCELLED"));
    case "subscription.paused":
      return subscriptionEventData(config, sampleSubscriptionRow(now, "PAUSED"));
    case "subscription.resumed":
      return subscriptionEventData(config, sampleSubscriptionRow(now, "ACTIVE"));
    case "subscription.updated":
      return subscriptionEventData(config, sampleSubscriptionRow(now, "ACTIVE"), {
        previous: { amount: "4000", interval: "MONTHLY", intervalCount: 1 },
      });
  }
}
