// /v1/webhooks/test and the delivery log: list an endpoint's deliveries, get one, retry it now.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  getWebhookDelivery,
  listWebhookDeliveries,
  retryWebhookDelivery,
} from "../../domain/webhooks/delivery.ts";
import { sendTestWebhook } from "../../domain/webhooks/endpoints.ts";
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
  DeliveryIdParam,
  deliveryJson,
  DeliverySchema,
  EndpointIdParam,
  EventName,
  jsonBody,
  owner,
  read,
  security,
  tags,
  write,
} from "./schemas.ts";

export function deliveryRoutes(r: OpenAPIHono<AppEnv>): void {
  r.openapi(
    createRoute({
      method: "post",
      path: "/webhooks/test",
      tags,
      summary: "Send a test event to an endpoint",
      operationId: "sendTestWebhook",
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
      summary: "List an endpoint's deliveries",
      operationId: "listWebhookDeliveries",
      security,
      middleware: read,
      request: {
        params: EndpointIdParam,
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
      summary: "Retrieve a delivery with its attempts",
      operationId: "getWebhookDelivery",
      security,
      middleware: read,
      request: { params: DeliveryIdParam },
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
      summary: "Retry a delivery now",
      operationId: "retryWebhookDelivery",
      security,
      middleware: write,
      request: { params: DeliveryIdParam },
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
}
