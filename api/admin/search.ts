// The operator's reads under /admin/api: merchants listed and searched, and any record found by a
// reference (GET /search?q=): an id, a transaction hash, an externalRef, a provider reference, a customer's
// e-mail or phone, a recipient or a deposit address.
import { createRoute, z } from "@hono/zod-openapi";
import { listMerchants, searchRecords } from "../../domain/operators/search.ts";
import { newRouter } from "../router.ts";
import {
  errorResponses,
  jsonContent,
  ok,
  OPERATOR_SECURITY,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
} from "../envelope.ts";
import { requireViewer } from "../middleware/admin_auth.ts";
import { MerchantSchema, merchantView } from "./merchants.ts";
import { AdminOutboundItemSchema, itemViews } from "./review.ts";
import { operatorQueue } from "../../domain/operators/queue.ts";

const tags = ["Admin"];
const security = OPERATOR_SECURITY;

const FoundSchema = z.object({
  type: z.enum([
    "PAYIN",
    "PAYOUT",
    "WITHDRAWAL",
    "CONVERSION",
    "BULK_ITEM",
    "BULK_BATCH",
    "SWEEP",
    "REFUND",
    "DISPUTE",
  ]),
  id: z.string(),
  batchId: z.string().nullable().openapi({ description: "a bulk item's batch; null for every other type" }),
  merchantId: z.string().nullable().openapi({ description: "null for a sweep (the platform's own)" }),
  mode: z.enum(["live", "sandbox"]).nullable(),
  status: z.string(),
  amount: z.string(),
  currency: z.string(),
  createdAt: z.string(),
  matched: z.string().openapi({
    description:
      "the field that matched: id, txHash, externalRef, providerRef, customerEmail, customerPhone, " +
      "destination, reference, recipient, address, payinId or caseRef",
  }),
}).openapi("AdminFoundRecord");

export function adminSearchRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/search",
      operationId: "adminSearch",
      tags,
      summary:
        "Find pay-ins, payouts, withdrawals, conversions, bulk batches and items, sweeps, refunds and " +
        "disputes by any reference",
      description: "Exact matches on the id, transaction hash, externalRef, provider reference, customer " +
        "e-mail (any case) or phone (with or without +), recipient or deposit address; refunds and disputes " +
        "also by their pay-in's id and a dispute by its case reference; newest first, at most 50.",
      security,
      middleware: [requireViewer],
      request: { query: z.object({ q: z.string().min(3).max(200) }) },
      responses: {
        200: jsonContent(successSchema(z.object({ items: z.array(FoundSchema) })), "What was found"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, { items: await searchRecords(c.get("deps"), c.req.valid("query").q) }),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/queue",
      operationId: "adminGetQueue",
      tags,
      summary: "What waits for operators, counted, and the payouts and withdrawals in review (oldest first)",
      security,
      middleware: [requireViewer],
      responses: {
        200: jsonContent(
          successSchema(z.object({
            counts: z.object({
              withdrawalsInReview: z.number().int(),
              payoutsAwaitingApproval: z.number().int(),
              waitingToSend: z.number().int().openapi({
                description: "waiting for the hot wallet longer than OUTBOUND_WAIT_ALARM_SECONDS",
              }),
              bulkInReview: z.number().int(),
              payinHoldsOpen: z.number().int(),
              refundsAwaitingApproval: z.number().int().openapi({
                description: "refunds waiting for an operator (GET /admin/api/refunds/review)",
              }),
              disputesOpen: z.number().int(),
              kybInReview: z.number().int().openapi({
                description: "KYB reviews SUBMITTED, waiting for a decision",
              }),
              providerStatusesHeld: z.number().int().openapi({
                description: "aggregator statuses the gateway does not know, waiting for an operator " +
                  "(GET /admin/api/provider-statuses/held)",
              }),
            }),
            items: z.array(AdminOutboundItemSchema),
          })),
          "The queue",
        ),
        ...errorResponses,
      },
    }),
    async (c) => {
      const deps = c.get("deps");
      const queue = await operatorQueue(deps);
      return ok(c, { counts: queue.counts, items: await itemViews(deps, queue.items.map((i) => i.row)) });
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/merchants",
      operationId: "adminListMerchants",
      tags,
      summary: "Merchants, newest first: search by id or part of the name, filter by status and KYB",
      security,
      middleware: [requireViewer],
      request: {
        query: PageQuerySchema.extend({
          q: z.string().max(200).optional().openapi({ description: "an id, or part of the name" }),
          status: z.enum(["ACTIVE", "SUSPENDED", "CLOSED"]).optional(),
          kybStatus: z.enum(["PENDING", "APPROVED", "REJECTED"]).optional(),
        }),
      },
      responses: { 200: jsonContent(pagedSchema(MerchantSchema), "Merchants"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { rows, total } = await listMerchants(c.get("deps"), q);
      return ok(c, pageOf(rows.map(merchantView), total, q));
    },
  );
  return r;
}
