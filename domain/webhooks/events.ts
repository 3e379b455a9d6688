// The specification's event catalogue, and `emitEvent`: the event row and its webhook deliveries are
// written with the change they report (same transaction), and queued only once that commits.
import { insertEventWithDeliveries } from "../../db/events.ts";
import type { Deps } from "../deps.ts";
import { idTimePrefix, newId } from "../ids.ts";
import type { OutboundRow } from "../../db/outbound.ts";
import { type OutboundEvent, outboundEventData } from "../money_out/view.ts";
import { sampleSubscriptionEventData, type SubscriptionEvent } from "../subscriptions/view.ts";
import { conversionEventData, sampleConversionRow } from "../conversions/view.ts";
import { type DisputeEvent, sampleDisputeEventData } from "../disputes/view.ts";

/** A payout or withdrawal as it stands when `type` is sent, for test deliveries. */
function sampleOutboundRow(type: OutboundEvent, now: Date): OutboundRow {
  const payout = type.startsWith("payout.");
  const status: Record<string, string> = payout
    ? {
      requested: "PROCESSING",
      approved: "PROCESSING",
      broadcast: "BROADCAST",
      confirmed: "CONFIRMED",
      failed: "FAILED",
    }
    : {
      requested: "PENDING_REVIEW",
      approved: "APPROVED",
      broadcast: "BROADCAST",
      confirmed: "CONFIRMED",
      failed: "FAILED",
    };
  const step = type.split(".")[1];
  return {
    id: payout ? "pout_test_0001" : "wdr_test_0001",
    kind: payout ? "PAYOUT" : "WITHDRAWAL",
    merchant_id: "mch_test_0001",
    is_sandbox: false,
    status: status[step],
    currency: "USDT_TRC20",
    chain: "TRON",
    amount: payout ? "75" : "250",
    fee: "1",
    debited: payout ? "76" : "250",
    net_amount: payout ? "75" : "249",
    destination_address: SAMPLE_ADDRESS,
    whitelist_entry_id: "wla_test_0001",
    external_ref: payout ? "order-1001" : null,
    metadata: {},
    requires_manual_approval: !payout,
    tx_hash: ["broadcast", "confirmed"].includes(step) ? SAMPLE_TX : null,
    failure_reason: step === "failed" ? "CHAIN_OUT_OF_ENERGY" : null,
    created_at: now,
    updated_at: now,
    approved_at: step === "requested" ? null : now,
    broadcast_at: ["broadcast", "confirmed"].includes(step) ? now : null,
    confirmed_at: step === "confirmed" ? now : null,
    failed_at: step === "failed" ? now : null,
    cancelled_at: null,
    wallet_rail: "TRC20",
    fiat_destination_id: null,
    fiat_channel: null,
    provider_ref: null,
    waiting_reason: null,
    waiting_since: null,
  };
}

export const EVENT_TYPES = [
  "payin.created",
  "payin.confirming",
  "payin.confirmed",
  "payin.expired",
  "payin.failed",
  "payin.underpaid",
  "payin.overpaid",
  "deposit.confirmed",
  "deposit.failed",
  "deposit.overpaid",
  "deposit.underpaid",
  "payout.requested",
  "payout.approved",
  "payout.broadcast",
  "payout.confirmed",
  "payout.failed",
  "withdrawal.requested",
  "withdrawal.broadcast",
  "withdrawal.approved",
  "withdrawal.confirmed",
  "withdrawal.failed",
  "conversion.confirmed",
  "conversion.failed",
  "subscription.created",
  "subscription.renewed",
  "subscription.renewal_initiated",
  "subscription.failed",
  "subscription.cancelled",
  "subscription.paused",
  "subscription.resumed",
  "subscription.updated",
  "refund.created",
  "refund.approved",
  "refund.rejected",
  "refund.completed",
  "refund.failed",
  "dispute.opened",
  "dispute.resolved",
  "dispute.rejected",
  "dispute.escalated",
  "aml.flagged",
  "splitpayment.created",
  "kyb.approved",
  "kyb.rejected",
  "kyb.thread.created",
  "kyb.thread.replied",
  "kyb.thread.resolved",
  "kyb.thread.dismissed",
  "agreement.resign_requested",
  "agreement.resigned",
] as const;

export type EventType = typeof EVENT_TYPES[number];

/**
 * Catalogue events nothing in the gateway emits yet: it has no split payments, and a conversion never
 * half-happens. Endpoints may still subscribe to them
 * (the specification lists them; a subscription made now works the day they are emitted), and
 * POST /v1/webhooks/test sends their shape.
 */
export const NOT_EMITTED_YET: ReadonlySet<EventType> = new Set(
  EVENT_TYPES.filter((t) => /^splitpayment\./.test(t) || t === "conversion.failed"),
);

/** The event catalogue as GET /v1/webhooks/events lists it: every event, and whether it is emitted. */
export function eventCatalogue(): Array<{ event: EventType; emitted: boolean }> {
  return EVENT_TYPES.map((event) => ({ event, emitted: !NOT_EMITTED_YET.has(event) }));
}

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

export type EmitEventInput = {
  merchantId: string;
  isSandbox: boolean;
  type: EventType;
  data: Record<string, unknown>;
  isTest?: boolean;
};

export type EmittedEvent = { eventId: string; deliveryIds: string[] };

/** What a delivery says about itself, beside the specification's `{event, data, createdAt}`. */
export type EnvelopeMode = {
  /** false for sandbox events: a receiver fulfils nothing unless `livemode === true`. */
  livemode: boolean;
  /** true for POST /v1/webhooks/test deliveries, whose `data` is a sample and no real record. */
  test: boolean;
};

/**
 * The exact bytes every attempt of a delivery sends. Built once, stored in the delivery row, so retries
 * are byte-identical and the signature covers what the receiver reads, mode included: a sandbox key can
 * make the gateway sign an event, never one that reads as live (docs/decisions.md).
 */
export function webhookBody(
  type: string,
  data: Record<string, unknown>,
  createdAt: Date,
  mode: EnvelopeMode,
): string {
  return webhookBodyOfJson(type, JSON.stringify(data), createdAt, mode);
}

/**
 * webhookBody of data already serialized, so an event's data is stringified once for its row and its
 * body: the same text JSON.stringify gives for `{event, data, createdAt, livemode, test}`.
 */
export function webhookBodyOfJson(
  type: string,
  dataJson: string,
  createdAt: Date,
  mode: EnvelopeMode,
): string {
  return `{"event":${JSON.stringify(type)},"data":${dataJson},"createdAt":"${createdAt.toISOString()}",` +
    `"livemode":${mode.livemode},"test":${mode.test}}`;
}

/**
 * Records an event and one delivery per ACTIVE endpoint of the merchant and mode subscribed to it. Pass
 * a transaction handle as `deps.db` so the event commits (or rolls back) with the change it reports.
 */
export async function emitEvent(
  deps: Pick<Deps, "db" | "queue" | "clock">,
  input: EmitEventInput,
): Promise<EmittedEvent> {
  return await writeEvent(deps, input);
}

/** emitEvent, optionally aimed at one endpoint whatever its subscriptions (test deliveries). */
export async function writeEvent(
  deps: Pick<Deps, "db" | "queue" | "clock">,
  input: EmitEventInput & { onlyEndpointId?: string },
): Promise<EmittedEvent> {
  const now = deps.clock.now();
  const eventId = newId("evt", now.getTime());
  const dataJson = JSON.stringify(input.data);
  const deliveryIds = await insertEventWithDeliveries(deps.db, {
    merchantId: input.merchantId,
    isSandbox: input.isSandbox,
    eventId,
    type: input.type,
    isTest: input.isTest ?? false,
    dataJson,
    body: webhookBodyOfJson(input.type, dataJson, now, {
      livemode: !input.isSandbox,
      test: input.isTest ?? false,
    }),
    now,
    // Prefix and time part of a fresh id; the database appends the random part per row.
    deliveryIdPrefix: idTimePrefix("dlv", now.getTime()),
    onlyEndpointId: input.onlyEndpointId,
  });
  queueDeliveriesAfterCommit(deps, deliveryIds);
  return { eventId, deliveryIds };
}

/** Queues each new delivery for its first attempt once the statement or transaction that wrote it commits. */
export function queueDeliveriesAfterCommit(deps: Pick<Deps, "db" | "queue">, deliveryIds: string[]): void {
  for (const deliveryId of deliveryIds) {
    deps.db.afterCommit(() => deps.queue.enqueue({ type: "webhook.deliver", deliveryId }));
  }
}

const SAMPLE_ADDRESS = "TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj";
const SAMPLE_TX = "7c2d4f0e9b1a83d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9";

/**
 * A realistic `data` for a test delivery of `type`: the specification's payload shape where it gives
 * one, plausible fields otherwise. Ids say `test` so nobody mistakes them for real records.
 */
export function sampleEventData(type: EventType, now: Date): Record<string, unknown> {
  const at = now.toISOString();
  const usdt = { currency: "USDT_TRC20", chain: "TRON", externalRef: "order-1001" };
  const payin = { transactionId: "pay_test_0001", address: SAMPLE_ADDRESS, amount: "100.000000", ...usdt };
  const received = { amountReceived: "100.000000", txHash: SAMPLE_TX, confirmedAt: at };
  switch (type) {
    case "payin.created":
      return {
        ...payin,
        status: "AWAITING_PAYMENT",
        expiresAt: new Date(now.getTime() + 1800_000).toISOString(),
        paymentUrl: "https://checkout.example.com/pay/pay_test_0001",
      };
    case "payin.confirming":
      return { ...payin, amountReceived: "101.500000", txHash: SAMPLE_TX, status: "CONFIRMING" };
    case "payin.confirmed":
      return { ...payin, ...received, status: "CONFIRMED" };
    case "payin.expired":
      return { ...payin, status: "EXPIRED", expiredAt: at };
    case "payin.failed":
      return { ...payin, status: "FAILED", reason: "BELOW_DUST_THRESHOLD" };
    case "payin.underpaid":
      return {
        ...payin,
        ...received,
        amountReceived: "90.000000",
        shortfall: "10.000000",
        status: "UNDERPAID",
      };
    case "payin.overpaid":
      return {
        ...payin,
        ...received,
        amountReceived: "110.000000",
        surplus: "10.000000",
        status: "OVERPAID",
      };
    case "deposit.confirmed":
    case "deposit.failed":
    case "deposit.overpaid":
    case "deposit.underpaid":
      return {
        transactionId: "dep_test_0001",
        address: SAMPLE_ADDRESS,
        amount: "50.000000",
        currency: "USDT_TRC20",
        chain: "TRON",
        txHash: SAMPLE_TX,
        status: type.split(".")[1].toUpperCase(),
        ...(type === "deposit.confirmed" ? { confirmations: 20, confirmedAt: at } : {}),
        ...(type === "deposit.overpaid" ? { expectedAmount: "40.000000", surplus: "10.000000" } : {}),
        ...(type === "deposit.underpaid" ? { expectedAmount: "60.000000", shortfall: "10.000000" } : {}),
      };
    case "payout.requested":
    case "payout.approved":
    case "payout.broadcast":
    case "payout.confirmed":
    case "payout.failed":
    case "withdrawal.requested":
    case "withdrawal.approved":
    case "withdrawal.broadcast":
    case "withdrawal.confirmed":
    case "withdrawal.failed":
      // Built by the same function as the real events, from a sample row: they cannot drift apart.
      return outboundEventData(sampleOutboundRow(type, now), type);
    case "conversion.confirmed":
    case "conversion.failed":
      return conversionEventData(sampleConversionRow(type, now));
    case "subscription.created":
    case "subscription.renewed":
    case "subscription.renewal_initiated":
    case "subscription.failed":
    case "subscription.cancelled":
    case "subscription.paused":
    case "subscription.resumed":
    case "subscription.updated":
      // Built by the same function as the real events, from sample rows.
      return sampleSubscriptionEventData(
        { publicUrl: "https://pay.example.com" },
        type as SubscriptionEvent,
        now,
      );
    default:
      return genericSample(type, at);
  }
}

function genericSample(type: EventType, at: string): Record<string, unknown> {
  const [family, ...rest] = type.split(".");
  const action = rest.join(".");
  const common = { status: action.toUpperCase().replaceAll(".", "_"), occurredAt: at };
  switch (family) {
    case "refund":
      return {
        refundId: "rfd_test_0001",
        transactionId: "pay_test_0001",
        amount: "2500",
        currency: "XOF",
        paymentMethod: "CARD",
        status: { created: "PENDING_APPROVAL", approved: "APPROVED" }[action] ?? common.status,
        reason: "Order cancelled by the shop",
        note: action === "created" ? null : "Checked with the shop",
        failureReason: action === "failed" ? "REFUND_REFUSED" : null,
        occurredAt: at,
      };
    case "dispute":
      // Built by the same function as the real events (domain/disputes/view.ts).
      return sampleDisputeEventData(type as DisputeEvent, new Date(at));
    case "aml":
      // domain/money_out/aml.ts screenDestination's payload.
      return {
        address: SAMPLE_ADDRESS,
        context: "PAYOUT",
        reason: "LISTED",
        source: "local-list",
        flaggedAt: at,
      };
    case "splitpayment":
      return {
        transactionId: "pay_test_0001",
        amount: "100.000000",
        currency: "USDT_TRC20",
        allocations: [
          { merchantId: "mch_test_platform", amount: "10.000000" },
          { merchantId: "mch_test_sub", amount: "90.000000" },
        ],
        createdAt: at,
      };
    case "kyb": {
      // domain/kyb/review.ts and threads.ts: the payloads they emit, field for field.
      const merchant = { merchantId: "mch_test_0001" };
      if (action === "approved" || action === "rejected") {
        const reason = action === "rejected" ? { reason: "The registration certificate is unreadable." } : {};
        return { ...merchant, kybStatus: action.toUpperCase(), ...reason, decidedAt: at };
      }
      const thread = { threadId: "kth_test_0001", ...merchant };
      if (action === "thread.created" || action === "thread.replied") {
        return {
          ...thread,
          status: "OPEN",
          author: action === "thread.created" ? "ADMIN" : "MERCHANT",
          message: "Please upload the company registration.",
          createdAt: at,
        };
      }
      const closed = action === "thread.resolved" ? "RESOLVED" : "DISMISSED";
      return { ...thread, status: closed, closedBy: "ADMIN", closedAt: at };
    }
    default: {
      // domain/kyb/agreement.ts.
      const version = { merchantId: "mch_test_0001", agreementVersion: 3, sha256: "ab".repeat(32) };
      return action === "resign_requested"
        ? { ...version, deadline: new Date(Date.parse(at) + 30 * 86400_000).toISOString(), publishedAt: at }
        : {
          ...version,
          previousVersion: 2,
          signedAt: at,
          signedBy: "Awa Ouedraogo, manager (api key key_...)",
        };
    }
  }
}
