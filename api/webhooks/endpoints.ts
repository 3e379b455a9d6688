// /v1/webhooks/endpoints: register, list, get, update, delete, rotate-secret, reactivate.
// Endpoints belong to the mode of the key used.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { AppError } from "../../domain/errors.ts";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  reactivateWebhookEndpoint,
  type RetrySettings,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from "../../domain/webhooks/endpoints.ts";
import {
  errorResponses,
  jsonContent,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
} from "../envelope.ts";
import type { AppEnv } from "../../http/env.ts";
import {
  EndpointIdParam,
  endpointJson,
  EndpointSchema,
  EndpointWithSecretSchema,
  EventsField,
  jsonBody,
  owner,
  read,
  RetryFields,
  security,
  tags,
  UrlField,
  write,
} from "./schemas.ts";

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

export function endpointRoutes(r: OpenAPIHono<AppEnv>): void {
  r.openapi(
    createRoute({
      method: "post",
      path: "/webhooks/endpoints",
      tags,
      summary: "Register a webhook endpoint",
      operationId: "createWebhookEndpoint",
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
      summary: "List webhook endpoints",
      operationId: "listWebhookEndpoints",
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
      summary: "Retrieve a webhook endpoint",
      operationId: "getWebhookEndpoint",
      security,
      middleware: read,
      request: { params: EndpointIdParam },
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
      summary: "Update a webhook endpoint",
      operationId: "updateWebhookEndpoint",
      security,
      middleware: write,
      request: {
        params: EndpointIdParam,
        ...jsonBody(
          z.strictObject({
            url: UrlField.optional(),
            events: EventsField.optional(),
            retryConfig: z.strictObject(RetryFields).optional(),
            ...RetryFields,
          }).openapi({ minProperties: 1, description: "at least one of url, events or the retry settings" }),
        ),
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
      summary: "Delete a webhook endpoint",
      operationId: "deleteWebhookEndpoint",
      security,
      middleware: write,
      request: { params: EndpointIdParam },
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
      summary: "Rotate an endpoint's signing secret",
      operationId: "rotateWebhookSecret",
      security,
      middleware: write,
      request: { params: EndpointIdParam },
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
      summary: "Reactivate a disabled endpoint",
      operationId: "reactivateWebhookEndpoint",
      security,
      middleware: write,
      request: { params: EndpointIdParam },
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
}
