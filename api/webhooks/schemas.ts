// Request and response schemas of /v1/webhooks, their JSON shapes, and the few bits every webhook
// route shares (access, owner, body helper).
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { EVENT_TYPES, NOT_EMITTED_YET } from "../../domain/webhooks/events.ts";
import type { WebhookDelivery } from "../../domain/webhooks/delivery.ts";
import type { WebhookEndpoint } from "../../domain/webhooks/endpoints.ts";
import { HttpUrl, idParam, iso, KEY_SECURITY } from "../envelope.ts";
import type { AppEnv } from "../../http/env.ts";
import { requireKey } from "../middleware/auth.ts";

export const tags = ["Webhooks"];
export const security = KEY_SECURITY;
export const read = [requireKey("webhooks_read", "read")];
export const write = [requireKey("webhooks_write", "write")];
export const EndpointIdParam = idParam("whe");
export const DeliveryIdParam = idParam("dlv");

export const EventName = z.enum(EVENT_TYPES);
export const RetryFields = {
  maxRetries: z.number().int().min(0).max(10).optional().openapi({ example: 3 }),
  retryBackoff: z.enum(["EXPONENTIAL"]).optional(),
  retryIntervalSeconds: z.number().int().min(1).max(86_400).optional().openapi({ example: 60 }),
};
export const UrlField = HttpUrl.openapi({
  example: "https://shop.example.com/webhooks",
});
export const EventsField = z.array(EventName).min(1).max(EVENT_TYPES.length * 2).openapi({
  description: "Events to receive. Not emitted yet, though subscribing is allowed: " +
    `${[...NOT_EMITTED_YET].join(", ")} (GET /v1/webhooks/events lists the catalogue).`,
});

export const EndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  maxRetries: z.number().int(),
  retryBackoff: z.literal("EXPONENTIAL"),
  retryIntervalSeconds: z.number().int(),
  status: z.enum(["ACTIVE", "DISABLED"]),
  consecutiveFailures: z.number().int(),
  isSandbox: z.boolean(),
  disabledAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("WebhookEndpoint");
export const EndpointWithSecretSchema = EndpointSchema.extend({
  secret: z.string().openapi({ description: "whs_ secret, shown only on create and rotate" }),
}).openapi("WebhookEndpointWithSecret");

export const DeliverySchema = z.object({
  id: z.string(),
  endpointId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(["PENDING", "SUCCEEDED", "FAILED"]),
  attemptCount: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  attempts: z.array(z.object({
    attemptNo: z.number().int(),
    startedAt: z.string(),
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    succeeded: z.boolean(),
  })),
}).openapi("WebhookDelivery");

export function endpointJson<T extends WebhookEndpoint>(e: T) {
  return { ...e, disabledAt: iso(e.disabledAt), createdAt: iso(e.createdAt)!, updatedAt: iso(e.updatedAt)! };
}

export function deliveryJson(d: WebhookDelivery) {
  return {
    ...d,
    nextAttemptAt: iso(d.nextAttemptAt),
    createdAt: iso(d.createdAt)!,
    completedAt: iso(d.completedAt),
    attempts: d.attempts.map((a) => ({ ...a, startedAt: iso(a.startedAt)! })),
  };
}

export function owner(c: Context<AppEnv>) {
  const auth = c.get("auth");
  return { merchantId: auth.merchantId, isSandbox: auth.isSandbox };
}

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { body: { required: true, content: { "application/json": { schema } } } };
}
