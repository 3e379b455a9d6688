// GET /v1/paylinks/:id/orders, /orders/export (CSV of all orders, streamed) and /stats. The paylink is
// the key's merchant's, in the key's mode (sub-resources inherit the paylink's sandbox status).
import { createRoute, z } from "@hono/zod-openapi";
import { exportPaylinkOrders, getPaylinkStats, listPaylinkOrders } from "../../domain/shop/orders.ts";
import { newRouter } from "../router.ts";
import {
  errorResponses,
  idParam,
  jsonContent,
  KEY_SECURITY,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
} from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";

const PaylinkId = idParam("plk");

const OrderItemSchema = z.object({
  productId: z.string(),
  name: z.string(),
  quantity: z.number().int(),
  unitPrice: z.string(),
  lineTotal: z.string(),
  digitalUrl: z.string().nullable().openapi({ description: "digital products, once the order is paid" }),
});

const OrderSchema = z.object({
  id: z.string(),
  paylinkId: z.string(),
  status: z.string().openapi({ description: "AWAITING_PAYMENT, then its pay-in's status" }),
  customerEmail: z.string().nullable(),
  customerName: z.string().nullable(),
  customerPhone: z.string().nullable(),
  customerAddress: z.string().nullable(),
  currency: z.string(),
  items: z.array(OrderItemSchema),
  subtotal: z.string(),
  discount: z.string(),
  total: z.string(),
  promoCode: z.string().nullable(),
  rail: z.string().nullable(),
  payAmount: z.string().nullable(),
  payCurrency: z.string().nullable(),
  fxRate: z.string().nullable(),
  transactionId: z.string().nullable(),
  isSandbox: z.boolean(),
  paidAt: z.string().nullable(),
  oversold: z.boolean().openapi({
    description: "paid after its checkout hold ended, when part of what it ordered was sold to someone else",
  }),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("PaylinkOrder");

const StatsSchema = z.object({
  paylinkId: z.string(),
  views: z.number().int(),
  checkouts: z.number().int(),
  paidOrders: z.number().int(),
  conversionRate: z.string().nullable().openapi({ description: "paid orders per view, 4 decimals" }),
  revenue: z.array(z.object({
    currency: z.string(),
    paymentMethod: z.string(),
    amount: z.string(),
    orders: z.number().int(),
  })),
  sales: z.array(z.object({ currency: z.string(), amount: z.string() })),
}).openapi("PaylinkStats");

export function paylinkOrderRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/paylinks/{id}/orders",
      tags: ["Paylinks"],
      summary: "List a paylink's orders, newest first",
      operationId: "listPaylinkOrders",
      security: KEY_SECURITY,
      middleware: [requireKey("paylinks_read", "list")],
      request: { params: PaylinkId, query: PageQuerySchema },
      responses: { 200: jsonContent(pagedSchema(OrderSchema), "Orders"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listPaylinkOrders(
        c.get("deps"),
        c.get("auth"),
        c.req.valid("param").id,
        q,
      );
      return ok(c, pageOf(items, total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/paylinks/{id}/orders/export",
      tags: ["Paylinks"],
      summary: "CSV of all the paylink's orders, oldest first (streamed)",
      operationId: "exportPaylinkOrders",
      security: KEY_SECURITY,
      middleware: [requireKey("paylinks_read", "list")],
      request: { params: PaylinkId },
      responses: {
        200: {
          description: "CSV with a header row; text a spreadsheet would run as a formula starts with a quote",
          content: { "text/csv": { schema: z.string() } },
        },
        ...errorResponses,
      },
    }),
    async (c) => {
      const { slug, stream } = await exportPaylinkOrders(
        c.get("deps"),
        c.get("auth"),
        c.req.valid("param").id,
      );
      return c.body(stream, 200, {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="orders-${slug}.csv"`,
        "Cache-Control": "no-store",
        // deno-lint-ignore no-explicit-any
      }) as any;
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/paylinks/{id}/stats",
      tags: ["Paylinks"],
      summary: "A paylink's views, checkouts, conversion rate and revenue per currency and rail",
      description: "For the merchant only: a publishable key is refused (FORBIDDEN, INSUFFICIENT_SCOPE).",
      operationId: "getPaylinkStats",
      security: KEY_SECURITY,
      middleware: [requireKey("paylinks_read", "merchant")],
      request: { params: PaylinkId },
      responses: { 200: jsonContent(successSchema(StatsSchema), "Statistics"), ...errorResponses },
    }),
    async (c) => ok(c, await getPaylinkStats(c.get("deps"), c.get("auth"), c.req.valid("param").id)),
  );

  return r;
}
