// Operator review of payouts and withdrawals under /admin/api: what waits, approve, reject (a note is
// required), and each item's decision history. Every decision names its reviewer.
import { createRoute, z } from "@hono/zod-openapi";
import {
  approveOutbound,
  cancelUnsentOutbound,
  findReviewItem,
  listReviewQueue,
  rejectOutbound,
  reviewHistory,
} from "../../domain/money_out/review.ts";
import { payoutView, withdrawalView } from "../../domain/money_out/view.ts";
import { completeFiatWithdrawal } from "../../domain/fiat_out/withdrawals.ts";
import type { OutboundRow } from "../../db/outbound.ts";
import { ID_ALPHABET, ID_BODY_LENGTH, isWellFormedId } from "../../domain/ids.ts";
import { newRouter } from "../router.ts";
import { PayoutSchema } from "../money_out/payouts.ts";
import { WithdrawalSchema } from "../money_out/withdrawals.ts";
import { errorResponses, iso, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireReviewer, requireViewer } from "../middleware/admin_auth.ts";
import { NoteField, ReviewerField } from "./reviewer.ts";
import { approvalsOf } from "../../domain/money_out/four_eyes.ts";
import type { Deps } from "../../domain/deps.ts";

const security = OPERATOR_SECURITY;
const tags = ["Admin"];
/** A payout or a withdrawal: a malformed id is NOT_FOUND before any query, as with idParam. */
const IdParam = z.object({
  id: z.string().refine((v) => isWellFormedId("pout", v) || isWellFormedId("wdr", v), {
    message: "not a pout_ or wdr_ id",
    params: { notFound: "NOT_FOUND" },
  }).openapi({
    param: { name: "id", in: "path" },
    pattern: `^(pout|wdr)_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`,
    description: "a payout (pout_) or withdrawal (wdr_) id",
  }),
});
const DecisionBody = z.strictObject({ reviewer: ReviewerField, note: NoteField });

/** A payout or a withdrawal with its merchant (and `extra`): `kind` says which record `item` is. */
const itemSchema = <E extends z.ZodRawShape>(extra: E) =>
  z.discriminatedUnion("kind", [
    z.object({
      kind: z.literal("PAYOUT"),
      merchantId: z.string(),
      isSandbox: z.boolean(),
      item: PayoutSchema,
      ...Approvals,
      ...extra,
    }),
    z.object({
      kind: z.literal("WITHDRAWAL"),
      merchantId: z.string(),
      isSandbox: z.boolean(),
      item: WithdrawalSchema,
      ...Approvals,
      ...extra,
    }),
  ]);
const Approvals = {
  approvals: z.object({
    needed: z.number().int().openapi({ description: "2 above the four-eyes threshold, else 1" }),
    given: z.number().int().openapi({ description: "first approvals given while the item waits" }),
    by: z.array(z.string()).openapi({ description: "who gave them" }),
  }),
};
const ItemSchema = itemSchema({}).openapi("AdminOutboundItem");
export { ItemSchema as AdminOutboundItemSchema };
const ItemWithDecisions = itemSchema({
  decisions: z.array(z.object({
    decision: z.string(),
    reviewer: z.string(),
    note: z.string().nullable(),
    at: z.string(),
  })),
}).openapi("AdminOutboundItemHistory");

export async function itemViews(deps: Deps, rows: OutboundRow[]) {
  const approvals = await approvalsOf(deps, rows);
  return rows.map((row) => ({
    kind: row.kind,
    merchantId: row.merchant_id,
    isSandbox: row.is_sandbox,
    item: row.kind === "PAYOUT" ? payoutView(row, null) : withdrawalView(row),
    approvals: approvals.get(row.id)!,
  }));
}

async function itemView(deps: Deps, row: OutboundRow) {
  return (await itemViews(deps, [row]))[0];
}

export function adminReviewRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/review",
      operationId: "adminListReviewQueue",
      tags,
      summary: "Payouts and withdrawals waiting for an operator, oldest first",
      security,
      middleware: [requireViewer],
      responses: { 200: jsonContent(successSchema(z.array(ItemSchema)), "The queue"), ...errorResponses },
    }),
    async (c) => ok(c, await itemViews(c.get("deps"), await listReviewQueue(c.get("deps")))),
  );

  for (const action of ["approve", "reject"] as const) {
    r.openapi(
      createRoute({
        method: "post",
        path: `/review/{id}/${action}`,
        operationId: action === "approve" ? "adminApproveOutbound" : "adminRejectOutbound",
        tags,
        summary: action === "approve"
          ? "Approve a payout or withdrawal (it goes to the chain; above the four-eyes threshold, the first " +
            "approval is recorded and a second reviewer sends it)"
          : "Reject a payout or withdrawal (the money returns to the wallet; note required)",
        description: action === "approve"
          ? "Above FOUR_EYES_ABOVE_USDT / FOUR_EYES_ABOVE_XOF an item needs two different reviewers: the " +
            "first approval leaves it waiting (`approvals.given` 1 of `needed` 2); the same reviewer (or the " +
            "token again) answers FORBIDDEN with cause SAME_APPROVER."
          : undefined,
        security,
        middleware: [requireReviewer],
        request: {
          params: IdParam,
          body: { required: true, content: { "application/json": { schema: DecisionBody } } },
        },
        responses: { 200: jsonContent(successSchema(ItemSchema), "Decided"), ...errorResponses },
      }),
      async (c) => {
        const body = c.req.valid("json");
        const input = {
          id: c.req.valid("param").id,
          note: body.note,
          reviewer: body.reviewer,
          actor: c.get("operator"),
        };
        const decide = action === "approve" ? approveOutbound : rejectOutbound;
        return ok(c, await itemView(c.get("deps"), await decide(c.get("deps"), input)));
      },
    );
  }

  r.openapi(
    createRoute({
      method: "post",
      path: "/review/{id}/cancel",
      operationId: "adminCancelUnsentOutbound",
      tags,
      summary: "Cancel an accepted USDT payout or withdrawal not yet sent (its money returns; note required)",
      description: "For an item that waits (say for the hot wallet, see `waiting`): it becomes FAILED with " +
        "reason CANCELLED_BY_OPERATOR and `payout.failed` / `withdrawal.failed`. An item whose transaction " +
        "is signed, or in any other state, answers CANNOT_CANCEL.",
      security,
      middleware: [requireReviewer],
      request: {
        params: IdParam,
        body: { required: true, content: { "application/json": { schema: DecisionBody } } },
      },
      responses: { 200: jsonContent(successSchema(ItemSchema), "Cancelled"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const input = {
        id: c.req.valid("param").id,
        note: body.note,
        reviewer: body.reviewer,
        actor: c.get("operator"),
      };
      return ok(c, await itemView(c.get("deps"), await cancelUnsentOutbound(c.get("deps"), input)));
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/review/{id}/complete-fiat",
      operationId: "adminCompleteFiatWithdrawal",
      tags,
      summary: "Complete a bank (XOF) withdrawal after making the transfer, with the bank's reference",
      description: "Approves, records the bank transfer and confirms the withdrawal in one step. A USDT or " +
        "mobile money withdrawal answers WITHDRAWAL_NOT_FIAT.",
      security,
      middleware: [requireReviewer],
      request: {
        params: IdParam,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                reviewer: ReviewerField,
                providerRef: z.string().min(1).max(100).openapi({
                  description: "the bank's transfer reference",
                }),
                note: z.string().max(1000).optional(),
              }),
            },
          },
        },
      },
      responses: { 200: jsonContent(successSchema(ItemSchema), "Completed"), ...errorResponses },
    }),
    async (c) => {
      const { reviewer, ...body } = c.req.valid("json");
      const input = { id: c.req.valid("param").id, ...body, reviewer, actor: c.get("operator") };
      return ok(c, await itemView(c.get("deps"), await completeFiatWithdrawal(c.get("deps"), input)));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/review/{id}",
      operationId: "adminGetReviewItem",
      tags,
      summary: "One payout or withdrawal with every decision taken on it",
      security,
      middleware: [requireViewer],
      request: { params: IdParam },
      responses: {
        200: jsonContent(
          successSchema(ItemWithDecisions),
          "The item and its decisions",
        ),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const row = await findReviewItem(c.get("deps"), id);
      const decisions = (await reviewHistory(c.get("deps"), id)).map((d) => ({
        decision: d.decision,
        reviewer: d.operator,
        note: d.note,
        at: iso(d.created_at)!,
      }));
      return ok(c, { ...await itemView(c.get("deps"), row), decisions });
    },
  );
  return r;
}
