// The event catalogue: the OpenAPI `webhooks` section, one entry per event of domain/webhooks/events.ts describing
// the signed body the gateway POSTs, and GET /v1/webhooks/events listing which events are emitted. The
// envelope mirrors `webhookBody` (domain/webhooks/events.ts): a field added there (for example `livemode`) is
// added once, in EventEnvelope below, and every entry follows.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  EVENT_TYPES,
  eventCatalogue,
  type EventType,
  NOT_EMITTED_YET,
  sampleEventData,
} from "../../domain/webhooks/events.ts";
import { PAYIN_STATUSES } from "../../domain/payins/states.ts";
import { PAYOUT_STATUSES, WITHDRAWAL_STATUSES } from "../../domain/money_out/states.ts";
import type { AppEnv } from "../../http/env.ts";
import { errorResponses, jsonContent, ok, successSchema } from "../envelope.ts";
import { read, security, tags } from "./schemas.ts";
import { SUBSCRIPTION_EVENT_SCHEMAS } from "./subscription_events.ts";
import { REFUND_EVENT_SCHEMAS } from "../refunds/schemas.ts";
import { DISPUTE_EVENT_SCHEMAS } from "./dispute_events.ts";

const nullableText = z.string().nullable();
const Metadata = z.record(z.string(), z.unknown()).optional().openapi({
  description: "The pay-in's metadata, as given at creation (absent on test deliveries)",
});

/** What every pay-in event carries (domain/payins/view.ts payinEventData). */
const payinBase = {
  transactionId: z.string(),
  address: nullableText.openapi({ description: "Deposit address; null for card and mobile money" }),
  amount: z.string(),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  chain: nullableText,
  externalRef: nullableText,
  status: z.enum(PAYIN_STATUSES),
  metadata: Metadata,
};
const received = { amountReceived: z.string(), txHash: nullableText, confirmedAt: nullableText };

const usdtConfirmed = z.object({ ...payinBase, ...received });
/** payin.confirmed of a card or mobile money pay-in: the specification's fiat field list. */
const fiatConfirmed = z.object({
  transactionId: z.string(),
  status: z.enum(PAYIN_STATUSES),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  chain: nullableText,
  externalRef: nullableText,
  amount: z.string().openapi({ description: "Amount received" }),
  amountRequested: z.string(),
  txHash: nullableText,
  confirmedAt: nullableText,
  pricingCurrency: z.string(),
  pricingAmount: z.string(),
  fxRate: z.string(),
  paymentMethod: z.enum(["CARD", "MOBILE_MONEY"]),
  fee: z.string(),
  netAmount: z.string(),
  metadata: Metadata,
});

/**
 * A USDT transfer credited at 20 confirmations (or refused as dust): to a merchant's standing address, or
 * late funds to a pay-in's address; test deliveries send fewer fields.
 */
const deposit = z.object({
  transactionId: z.string(),
  payinId: z.string().nullable().optional().openapi({
    description: "null for a top-up to the standing address",
  }),
  address: z.string(),
  amount: z.string(),
  fee: z.string().optional(),
  netAmount: z.string().optional(),
  currency: z.literal("USDT_TRC20"),
  chain: z.literal("TRON"),
  txHash: z.string(),
  status: z.string(),
  expectedAmount: z.string().optional().openapi({
    description: "late funds to a pay-in's address: what the pay-in still asked for when they arrived " +
      "(deposit.overpaid and deposit.underpaid are judged against it); absent for a direct deposit, " +
      "which has no expected amount and is always deposit.confirmed",
  }),
  shortfall: z.string().optional().openapi({ description: "deposit.underpaid: expectedAmount less amount" }),
  surplus: z.string().optional().openapi({ description: "deposit.overpaid: amount less expectedAmount" }),
  confirmations: z.number().int().optional(),
  confirmedAt: z.string().optional(),
  reason: z.string().optional(),
  failedAt: z.string().optional(),
});

/** Payouts and withdrawals (domain/money_out/view.ts outboundEventData). */
const usdtOut = { currency: z.literal("USDT_TRC20"), chain: z.literal("TRON") };
const payoutBase = {
  transactionId: z.string(),
  destinationAddress: z.string(),
  amount: z.string(),
  fee: z.string(),
  ...usdtOut,
  externalRef: nullableText,
  status: z.enum(PAYOUT_STATUSES),
  metadata: z.record(z.string(), z.unknown()),
};
const payoutRequested = z.object({
  ...payoutBase,
  id: z.string(),
  requiresManualApproval: z.boolean(),
  createdAt: nullableText,
});
const payoutApproved = z.object({ ...payoutBase, id: z.string(), approvedAt: nullableText });
/** A withdrawal leaves in USDT on TRON, or in XOF by mobile money (chain MOMO) or bank transfer (BANK). */
const withdrawalOut = { currency: z.enum(["USDT_TRC20", "XOF"]), chain: z.enum(["TRON", "MOMO", "BANK"]) };
const withdrawalBase = {
  id: z.string(),
  amount: z.string(),
  fee: z.string(),
  netAmount: z.string(),
  destinationAddress: z.string(),
  ...withdrawalOut,
  status: z.enum(WITHDRAWAL_STATUSES),
};

/** The `data` of the events the gateway emits itself, field by field (the others: their test sample). */
const EMITTED: Partial<Record<EventType, z.ZodType>> = {
  "payin.created": z.object({ ...payinBase, expiresAt: z.string(), paymentUrl: z.string() }),
  "payin.confirming": z.object({ ...payinBase, amountReceived: z.string(), txHash: nullableText }),
  "payin.confirmed": z.union([usdtConfirmed, fiatConfirmed]),
  "payin.expired": z.object({ ...payinBase, expiredAt: z.string() }),
  "payin.failed": z.object({ ...payinBase, reason: nullableText }),
  "payin.underpaid": z.object({ ...payinBase, ...received, shortfall: z.string() }),
  "payin.overpaid": z.object({ ...payinBase, ...received, surplus: z.string() }),
  "deposit.confirmed": deposit,
  "deposit.failed": deposit,
  "deposit.overpaid": deposit,
  "deposit.underpaid": deposit,
  "payout.requested": payoutRequested,
  "payout.approved": payoutApproved,
  "payout.broadcast": z.object({ ...payoutBase, txHash: nullableText, broadcastAt: nullableText }),
  "payout.confirmed": z.object({ ...payoutBase, txHash: nullableText, confirmedAt: nullableText }),
  "payout.failed": z.object({
    ...payoutBase,
    fee: z.string().optional(),
    reason: nullableText,
    failedAt: nullableText,
  }),
  // The legacy twins of payout.requested / payout.approved carry the payout's payload (with `id`).
  "withdrawal.requested": z.union([
    z.object({ ...withdrawalBase, createdAt: nullableText }),
    payoutRequested,
  ]),
  "withdrawal.approved": z.union([z.object({ ...withdrawalBase, approvedAt: nullableText }), payoutApproved]),
  "withdrawal.broadcast": z.object({ ...withdrawalBase, txHash: nullableText, broadcastAt: nullableText }),
  "withdrawal.confirmed": z.object({ ...withdrawalBase, txHash: nullableText, confirmedAt: nullableText }),
  "withdrawal.failed": z.object({
    id: z.string(),
    amount: z.string(),
    destinationAddress: z.string(),
    ...withdrawalOut,
    status: z.enum(WITHDRAWAL_STATUSES),
    reason: nullableText,
    failedAt: nullableText,
  }),
  // domain/conversions/view.ts conversionView: the specification's six fields, then the figures behind them.
  "conversion.confirmed": z.object({
    id: z.string(),
    status: z.literal("CONFIRMED"),
    fromAmount: z.string(),
    fromCurrency: z.enum(["USDT_TRC20", "XOF"]),
    toAmountNet: z.string(),
    toCurrency: z.enum(["USDT_TRC20", "XOF"]),
    fromWalletId: z.string(),
    fromRail: z.enum(["TRC20", "MOMO", "CARD"]),
    toWalletId: z.string(),
    toRail: z.enum(["TRC20", "MOMO", "CARD"]),
    rate: z.string(),
    rateAsOf: z.string(),
    rateSource: z.string(),
    toAmountGross: z.string(),
    feePercent: z.string(),
    fee: z.string(),
    createdAt: z.string(),
    confirmedAt: z.string(),
  }),
  ...SUBSCRIPTION_EVENT_SCHEMAS,
  ...REFUND_EVENT_SCHEMAS,
  ...DISPUTE_EVENT_SCHEMAS,
  "aml.flagged": z.object({
    address: z.string(),
    context: z.enum(["PAYOUT", "WITHDRAWAL"]),
    reason: z.string(),
    source: z.string(),
    flaggedAt: z.string(),
  }),
};

/** A schema with the sample's fields and types, for events only sent as test deliveries so far. */
function schemaOfSample(value: unknown): z.ZodType {
  if (typeof value === "string") return z.string();
  if (typeof value === "number") return Number.isInteger(value) ? z.number().int() : z.number();
  if (typeof value === "boolean") return z.boolean();
  if (Array.isArray(value)) return z.array(value.length ? schemaOfSample(value[0]) : z.unknown());
  if (value && typeof value === "object") {
    return z.object(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaOfSample(v)])));
  }
  return z.null();
}

export function eventDataSchema(type: EventType): z.ZodType {
  return EMITTED[type] ?? schemaOfSample(sampleEventData(type, new Date(0)));
}

/** The signed body of every delivery (domain/webhooks/events.ts webhookBody). */
export function eventEnvelope(type: EventType) {
  return z.object({
    event: z.literal(type),
    data: eventDataSchema(type),
    createdAt: z.string().openapi({ example: "2026-01-01T12:00:00.000Z" }),
    livemode: z.boolean().openapi({ description: "false for sandbox events: act only when true" }),
    test: z.boolean().openapi({
      description: "true for POST /v1/webhooks/test deliveries: never act on one",
    }),
  });
}

function componentName(type: EventType): string {
  return type.split(/[._]/).map((w) => w[0].toUpperCase() + w.slice(1)).join("") + "Event";
}

export function registerWebhooks(registry: OpenAPIHono["openAPIRegistry"]): void {
  for (const type of EVENT_TYPES) {
    const emitted = !NOT_EMITTED_YET.has(type);
    registry.registerWebhook({
      method: "post",
      path: type,
      tags: ["Webhook events"],
      summary: emitted ? `The ${type} event` : `The ${type} event (not emitted yet)`,
      operationId: `on_${type.replaceAll(".", "_")}`,
      description: emitted
        ? "Sent to every ACTIVE endpoint of the merchant and mode subscribed to it."
        : "Not emitted by the gateway yet (nothing in it produces this event so far). An endpoint may " +
          "subscribe to it; POST /v1/webhooks/test sends this shape.",
      security: [],
      request: {
        headers: z.object({
          "service-signature": z.string().openapi({
            description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> with the endpoint secret',
            example: "t=1767268800,v1=5f2b…",
          }),
        }),
        body: {
          required: true,
          content: { "application/json": { schema: eventEnvelope(type).openapi(componentName(type)) } },
        },
      },
      responses: {
        200: { description: "Any 2xx acknowledges the delivery" },
        400: { description: "Any other answer, or none within the timeout: the delivery is retried" },
      },
    });
  }
}

const CatalogueSchema = z.object({
  items: z.array(z.object({
    event: z.enum(EVENT_TYPES),
    emitted: z.boolean().openapi({
      description:
        "false: in the specification's catalogue, not emitted by the gateway yet (subscribing is allowed)",
    }),
  })),
}).openapi("WebhookEventCatalogue");

/** GET /v1/webhooks/events: every event an endpoint may subscribe to, and whether the gateway emits it. */
export function eventCatalogueRoutes(r: OpenAPIHono<AppEnv>): void {
  r.openapi(
    createRoute({
      method: "get",
      path: "/webhooks/events",
      tags,
      summary: "List the events an endpoint may subscribe to, and which are emitted",
      description: "Events with `emitted: false` (splitpayment.*, " +
        "conversion.failed) are in the specification's catalogue but nothing produces them yet.",
      operationId: "listWebhookEvents",
      security,
      middleware: read,
      responses: { 200: jsonContent(successSchema(CatalogueSchema), "The catalogue"), ...errorResponses },
    }),
    (c) => ok(c, { items: eventCatalogue() }),
  );
}
