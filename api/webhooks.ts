// /v1/webhooks: endpoints (register, list, get, update, delete, rotate-secret, reactivate), test
// deliveries, and the delivery log with manual retry. Endpoints belong to the mode of the key used.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError } from "../domain/errors.ts";
import { EVENT_TYPES } from "../domain/events.ts";
import {
  getWebhookDelivery,
  listWebhookDeliveries,
  retryWebhookDelivery,
  type WebhookDelivery,
} from "../domain/webhook_delivery.ts";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  reactivateWebhookEndpoint,
  type RetrySettings,
  rotateWebhookSecret,
  sendTestWebhook,
  updateWebhookEndpoint,
  type WebhookEndpoint,
} from "../domain/webhooks.ts";
import { newRouter } from "./app.ts";
import {
  errorResponses,
  iso,
  jsonContent,
  KEY_SECURITY,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
} from "./envelope.ts";
import type { AppEnv } from "./env.ts";
import { requireKey } from "./middleware/auth.ts";

const security = KEY_SECURITY;
const read = [requireKey("webhooks_read", "read")];
const write = [requireKey("webhooks_write", "write")];
const IdParam = z.object({ id: z.string().min(1).max(64) });

const EventName = z.enum(EVENT_TYPES);
const RetryFields = {
  maxRetries: z.number().int().min(0).max(10).optional().openapi({ example: 3 }),
  retryBackoff: z.enum(["EXPONENTIAL"]).optional(),
  retryIntervalSeconds: z.number().int().min(1).max(86_400).optional().openapi({ example: 60 }),
};
const UrlField = z.string().trim().min(1).max(2048).openapi({ example: "https://shop.example.com/webhooks" });
const EventsField = z.array(EventName).min(1).max(EVENT_TYPES.length * 2);

const EndpointSchema = z.object({
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
const EndpointWithSecretSchema = EndpointSchema.extend({
  secret: z.string().openapi({ description: "whs_ secret, shown only on create and rotate" }),
}).openapi("WebhookEndpointWithSecret");

const DeliverySchema = z.object({
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

function endpointJson<T extends WebhookEndpoint>(e: T) {
  return { ...e, disabledAt: iso(e.disabledAt), createdAt: iso(e.createdAt)!, updatedAt: iso(e.updatedAt)! };
}

function deliveryJson(d: WebhookDelivery) {
  return {
    ...d,
    nextAttemptAt: iso(d.nextAttemptAt),
    createdAt: iso(d.createdAt)!,
    completedAt: iso(d.completedAt),
    attempts: d.attempts.map((a) => ({ ...a, startedAt: iso(a.startedAt)! })),
  };
}

/**
 * The retry fields may come inside `retryConfig` or at the root of the body (the specification accepts
 * both). Given in both places with different values they contradict each other, and guessing which one
 * the merchant meant would silently change its retry policy: that is a VALIDATION_ERROR instead.
 */
function mergeRetry(body: RetrySettings & { retryConfig?: RetrySettings }): RetrySettings {
  const out: RetrySettings = {};
  for (const key of ["maxRetries", "retryBackoff", "retryIntervalSeconds"] as const) {
    const root = body[key];
    const nested = body.retryConfig?.[key];
    if (root !== undefined && nested !== undefined && root !== nested) {
      throw new AppError("VALIDATION_ERROR", `${key} is given twice with different values`, {
        details: [{ field: `retryConfig.${key}`, reason: `conflicts with ${key} at the root of the body` }],
      });
    }
    // deno-lint-ignore no-explicit-any
    if ((root ?? nested) !== undefined) (out as any)[key] = root ?? nested;
  }
  return out;
}

function owner(c: Context<AppEnv>) {
  const auth = c.get("auth");
  return { merchantId: auth.merchantId, isSandbox: auth.isSandbox };
}

function jsonBody<T extends z.ZodType>(schema: T) {
  return { body: { required: true, content: { "application/json": { schema } } } };
}

export function webhookRoutes() {
  const r = newRouter();
  const tags = ["Webhooks"];

  r.openapi(
    createRoute({
      method: "post",
      path: "/webhooks/endpoints",
      tags,
      security,
      middleware: write,
      request: jsonBody(z.strictObject({
        url: UrlField,
        events: EventsField,
        retryConfig: z.strictObject(RetryFields).optional(),
        ...RetryFields,
      })),
      responses: {
        201: jsonContent(successSchema(EndpointWithSecretSchema), "Endpoint registered; secret shown once"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const created = await createWebhookEndpoint(c.get("deps"), {
        ...owner(c),
        url: body.url,
        events: body.events,
        ...mergeRetry(body),
      });
      return ok(c, endpointJson(created), 201);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/webhooks/endpoints",
      tags,
      security,
      middleware: read,
      request: { query: PageQuerySchema },
      responses: {
        200: jsonContent(pagedSchema(EndpointSchema), "Endpoints, newest first"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listWebhookEndpoints(c.get("deps"), { ...owner(c), ...q });
      return ok(c, pageOf(items.map(endpointJson), total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/webhooks/endpoints/{id}",
      tags,
      security,
      middleware: read,
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(EndpointSchema), "The endpoint"), ...errorResponses },
    }),
    async (c) =>
      ok(c, endpointJson(await getWebhookEndpoint(c.get("deps"), { ...owner(c), ...c.req.valid("param") }))),
  );

  r.openapi(
    createRoute({
      method: "patch",
      path: "/webhooks/endpoints/{id}",
      tags,
      security,
      middleware: write,
      request: {
        params: IdParam,
        ...jsonBody(z.strictObject({
          url: UrlField.optional(),
          events: EventsField.optional(),
          retryConfig: z.strictObject(RetryFields).optional(),
          ...RetryFields,
        })),
      },
      responses: { 200: jsonContent(successSchema(EndpointSchema), "Updated endpoint"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const retry = mergeRetry(body);
      if (body.url === undefined && body.events === undefined && Object.keys(retry).length === 0) {
        throw new AppError("VALIDATION_ERROR", "Nothing to update", {
          details: [{ field: "(root)", reason: "give at least one of url, events or the retry settings" }],
        });
      }
      const updated = await updateWebhookEndpoint(c.get("deps"), {
        ...owner(c),
        id: c.req.valid("param").id,
        url: body.url,
        events: body.events,
        ...retry,
      });
      return ok(c, endpointJson(updated));
    },
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/webhooks/endpoints/{id}",
      tags,
      security,
      middleware: write,
      request: { params: IdParam },
      responses: {
        200: jsonContent(successSchema(z.object({ id: z.string(), deleted: z.literal(true) })), "Deleted"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await deleteWebhookEndpoint(c.get("deps"), { ...owner(c), ...c.req.valid("param") })),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/webhooks/endpoints/{id}/rotate-secret",
      tags,
      security,
      middleware: write,
      request: { params: IdParam },
      responses: {
        200: jsonContent(
          successSchema(EndpointWithSecretSchema),
          "New secret, shown once; the old one stops",
        ),
        ...errorResponses,
      },
    }),
    async (c) =>
      ok(c, endpointJson(await rotateWebhookSecret(c.get("deps"), { ...owner(c), ...c.req.valid("param") }))),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/webhooks/endpoints/{id}/reactivate",
      tags,
      security,
      middleware: write,
      request: { params: IdParam },
      responses: {
        200: jsonContent(successSchema(EndpointSchema), "ACTIVE again, failure count reset"),
        ...errorResponses,
      },
    }),
    async (c) =>
      ok(
        c,
        endpointJson(
          await reactivateWebhookEndpoint(c.get("deps"), { ...owner(c), ...c.req.valid("param") }),
        ),
      ),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/webhooks/test",
      tags,
      security,
      middleware: write,
      request: jsonBody(z.strictObject({ endpointId: z.string().min(1).max(64), eventType: EventName })),
      responses: {
        200: jsonContent(
          successSchema(z.object({ message: z.string(), deliveryId: z.string(), eventId: z.string() })),
          "Test event queued for delivery to that endpoint",
        ),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await sendTestWebhook(c.get("deps"), { ...owner(c), ...c.req.valid("json") })),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/webhooks/endpoints/{id}/deliveries",
      tags,
      security,
      middleware: read,
      request: {
        params: IdParam,
        query: PageQuerySchema.extend({ status: z.enum(["PENDING", "SUCCEEDED", "FAILED"]).optional() }),
      },
      responses: {
        200: jsonContent(pagedSchema(DeliverySchema), "Deliveries with their attempts, newest first"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listWebhookDeliveries(c.get("deps"), {
        ...owner(c),
        endpointId: c.req.valid("param").id,
        ...q,
      });
      return ok(c, pageOf(items.map(deliveryJson), total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/webhooks/deliveries/{id}",
      tags,
      security,
      middleware: read,
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(DeliverySchema), "The delivery"), ...errorResponses },
    }),
    async (c) =>
      ok(c, deliveryJson(await getWebhookDelivery(c.get("deps"), { ...owner(c), ...c.req.valid("param") }))),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/webhooks/deliveries/{id}/retry",
      tags,
      security,
      middleware: write,
      request: { params: IdParam },
      responses: {
        200: jsonContent(successSchema(DeliverySchema), "Due now and queued"),
        ...errorResponses,
      },
    }),
    async (c) =>
      ok(
        c,
        deliveryJson(await retryWebhookDelivery(c.get("deps"), { ...owner(c), ...c.req.valid("param") })),
      ),
  );
  return r;
}
