// /v1/subscriptions: the subscriptions RECURRING paylinks started, in the key's mode. List, retrieve, the
// renewals of one, and the moves of the state table: pause, resume, cancel, change amount or interval
// (paths not in the specification: docs/decisions.md). No money moves here: each move is one conditional
// write, so 50 identical requests make one move and 49 typed refusals.
import { createRoute, z } from "@hono/zod-openapi";
import {
  cancelSubscription,
  getSubscription,
  listRenewals,
  listSubscriptions,
  pauseSubscription,
  resumeSubscription,
  updateSubscription,
} from "../../domain/subscriptions/actions.ts";
import {
  BILLING_INTERVALS,
  RENEWAL_STATUSES,
  SUBSCRIPTION_STATUSES,
} from "../../domain/subscriptions/states.ts";
import { renewalView, subscriptionView, subscriptionViewFor } from "../../domain/subscriptions/view.ts";
import { isWellFormedId } from "../../domain/ids.ts";
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
import { DecimalAmount } from "../shape_schemas.ts";

const security = KEY_SECURITY;
const tags = ["Subscriptions"];
const IdParam = idParam("sub");

const nullableText = z.string().nullable();

export const SubscriptionSchema = z.object({
  id: z.string(),
  paylinkId: z.string(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  customer: z.object({ email: z.string(), name: nullableText, phone: nullableText }),
  amount: z.string().openapi({ description: "asked each renewal, in the paylink's currency" }),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  description: z.string(),
  interval: z.enum(BILLING_INTERVALS),
  intervalCount: z.number().int(),
  currentPeriodStart: z.string().openapi({ description: "start of the last period paid for" }),
  currentPeriodEnd: z.string(),
  nextRenewalAt: nullableText.openapi({
    description: "when the next renewal starts; null if paused or cancelled",
  }),
  firstOrderId: z.string(),
  paymentMethod: nullableText.openapi({ description: "the rail of the first payment" }),
  pausedAt: nullableText,
  cancelledAt: nullableText,
  cancelledBy: z.enum(["MERCHANT", "CUSTOMER"]).nullable(),
  isSandbox: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Subscription");

/** What a publishable key reads (strict, so a merchant's answer never passes for it): no customer data. */
export const PublicSubscriptionSchema = z.strictObject({
  id: z.string(),
  paylinkId: z.string(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  amount: z.string(),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  description: z.string(),
  interval: z.enum(BILLING_INTERVALS),
  intervalCount: z.number().int(),
  currentPeriodStart: z.string(),
  currentPeriodEnd: z.string(),
  nextRenewalAt: nullableText,
  pausedAt: nullableText,
  cancelledAt: nullableText,
  cancelledBy: z.enum(["MERCHANT", "CUSTOMER"]).nullable(),
  isSandbox: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("PublicSubscription");

export const RenewalSchema = z.object({
  id: z.string(),
  subscriptionId: z.string(),
  periodIndex: z.number().int().openapi({
    description: "2 for the first renewal (period 1 is the checkout)",
  }),
  periodStart: z.string(),
  periodEnd: z.string(),
  status: z.enum(RENEWAL_STATUSES),
  amount: z.string(),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  graceUntil: z.string().openapi({ description: "unpaid by then (no pay-in running): FAILED" }),
  transactionId: nullableText.openapi({ description: "the last pay-in started for it" }),
  failureReason: nullableText.openapi({ description: "UNPAID, UNDERPAID or SUBSCRIPTION_CANCELLED" }),
  paidAt: nullableText,
  failedAt: nullableText,
  renewalUrl: z.string().openapi({ description: "the hosted page where the customer pays it" }),
  createdAt: z.string(),
}).openapi("SubscriptionRenewal");

const ListQuery = PageQuerySchema.extend({
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  paylinkId: z.string().max(64).optional().openapi({ description: "only this paylink's subscriptions" }),
});

const UpdateBody = z.strictObject({
  amount: DecimalAmount.optional().openapi({
    example: "5000",
    description: "per period, in the subscription's currency (XOF whole, USDT up to 6 decimals)",
  }),
  interval: z.enum(BILLING_INTERVALS).optional(),
  intervalCount: z.number().int().min(1).max(52).optional(),
}).refine((b) => b.amount !== undefined || b.interval !== undefined || b.intervalCount !== undefined, {
  message: "give amount, interval or intervalCount",
}).openapi("UpdateSubscription", { minProperties: 1 });

const one = (description: string) => ({
  200: jsonContent(successSchema(SubscriptionSchema), description),
  ...errorResponses,
});

export function subscriptionRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/subscriptions",
      operationId: "listSubscriptions",
      tags,
      summary: "List subscriptions, newest first",
      security,
      middleware: [requireKey("paylinks_read", "list")],
      request: { query: ListQuery },
      responses: { 200: jsonContent(pagedSchema(SubscriptionSchema), "Subscriptions"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      // An id that cannot be a paylink's matches nothing, like an unknown one.
      const paylinkId = q.paylinkId === undefined || isWellFormedId("plk", q.paylinkId)
        ? q.paylinkId
        : "plk_none";
      const { rows, total } = await listSubscriptions(c.get("deps"), c.get("auth"), { ...q, paylinkId });
      return ok(c, pageOf(rows.map(subscriptionView), total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/subscriptions/{id}",
      operationId: "getSubscription",
      tags,
      summary: "Retrieve a subscription",
      description: "A publishable key reads the public view (`PublicSubscription`): no customer data and " +
        "no first order.",
      security,
      middleware: [requireKey("paylinks_read", "read")],
      request: { params: IdParam },
      responses: {
        200: jsonContent(
          successSchema(
            z.union([SubscriptionSchema, PublicSubscriptionSchema]).openapi({}, {
              unionPreferredType: "oneOf",
            }),
          ),
          "The subscription (public view for a publishable key)",
        ),
        ...errorResponses,
      },
    }),
    async (c) => {
      const caller = c.get("auth");
      return ok(
        c,
        subscriptionViewFor(caller, await getSubscription(c.get("deps"), caller, c.req.valid("param").id)),
      );
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/subscriptions/{id}/renewals",
      operationId: "listSubscriptionRenewals",
      tags,
      summary: "The renewals of a subscription, latest period first (at most 100)",
      security,
      middleware: [requireKey("paylinks_read", "list")],
      request: { params: IdParam },
      responses: {
        200: jsonContent(successSchema(z.object({ items: z.array(RenewalSchema) })), "Renewals"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const deps = c.get("deps");
      const rows = await listRenewals(deps, c.get("auth"), c.req.valid("param").id);
      return ok(c, { items: rows.map((row) => renewalView(deps.config, row)) });
    },
  );

  const moves = [
    [
      "pause",
      "pauseSubscription",
      "Pause: no renewal starts until resumed (ACTIVE or PAST_DUE only)",
      pauseSubscription,
    ],
    [
      "resume",
      "resumeSubscription",
      "Resume a PAUSED subscription (paused past the paid period: a new period starts now)",
      resumeSubscription,
    ],
    [
      "cancel",
      "cancelSubscription",
      "Cancel for good: no further renewal, an open one is closed",
      cancelSubscription,
    ],
  ] as const;
  for (const [action, operationId, summary, fn] of moves) {
    r.openapi(
      createRoute({
        method: "post",
        path: `/subscriptions/{id}/${action}`,
        operationId,
        tags,
        summary,
        security,
        middleware: [requireKey("paylinks_write", "write")],
        request: { params: IdParam },
        responses: one(
          `The subscription after the move (INVALID_TRANSACTION_STATUS from a state that refuses it)`,
        ),
      }),
      async (c) => ok(c, subscriptionView(await fn(c.get("deps"), c.get("auth"), c.req.valid("param").id))),
    );
  }

  r.openapi(
    createRoute({
      method: "patch",
      path: "/subscriptions/{id}",
      operationId: "updateSubscription",
      tags,
      summary: "Change the amount or the interval from the next renewal on",
      security,
      middleware: [requireKey("paylinks_write", "write")],
      request: {
        params: IdParam,
        body: { required: true, content: { "application/json": { schema: UpdateBody } } },
      },
      responses: one("The updated subscription"),
    }),
    async (c) =>
      ok(
        c,
        subscriptionView(
          await updateSubscription(
            c.get("deps"),
            c.get("auth"),
            c.req.valid("param").id,
            c.req.valid("json"),
          ),
        ),
      ),
  );

  return r;
}
