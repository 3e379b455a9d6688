// Operator review of refunds under /admin/api: what waits, one refund, approve or reject (a note is
// required; reviewer role; audited; four eyes above FOUR_EYES_ABOVE_XOF / _USDT), and a merchant's
// auto-approval thresholds (admin role; none by default).
import { createRoute, z } from "@hono/zod-openapi";
import {
  getRefundAutoApprove,
  refundReviewQueue,
  setRefundAutoApproveLimits,
} from "../../domain/refunds/queries.ts";
import {
  approveRefund,
  findRefundForOperator,
  refundApprovalsNeeded,
  rejectRefund,
} from "../../domain/refunds/review.ts";
import { refundView } from "../../domain/refunds/view.ts";
import type { RefundRow } from "../../db/refunds.ts";
import type { Deps } from "../../domain/deps.ts";
import { newRouter } from "../router.ts";
import { errorResponses, idParam, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireAdmin, requireReviewer, requireViewer } from "../middleware/admin_auth.ts";
import { ReviewerField } from "./reviewer.ts";
import { RefundSchema } from "../refunds/schemas.ts";

const security = OPERATOR_SECURITY;
const tags = ["Admin"];
const IdParam = idParam("rfd");

const AdminRefundSchema = z.object({
  merchantId: z.string(),
  refund: RefundSchema,
  approvals: z.object({
    needed: z.number().int().openapi({ description: "2 above the four-eyes threshold, else 1" }),
    given: z.number().int().openapi({ description: "first approvals given while the refund waits" }),
  }),
}).openapi("AdminRefund");

const DecisionBody = z.strictObject({
  reviewer: ReviewerField,
  note: z.string().max(1000).openapi({ description: "why; required (REASON_NOTE_REQUIRED when blank)" }),
});

const Threshold = (currency: string) =>
  z.string().max(40).regex(/^\d{1,15}(\.\d{1,6})?$/, "a decimal amount").nullable().openapi({
    description: `refunds below this many ${currency} pass without review; null: every refund waits`,
    example: currency === "XOF" ? "5000" : "10",
  });
const AutoApproveSchema = z.strictObject({ XOF: Threshold("XOF"), USDT_TRC20: Threshold("USDT") })
  .openapi("RefundAutoApprove");

function adminView(deps: Deps, row: RefundRow) {
  return {
    merchantId: row.merchant_id,
    refund: refundView(row),
    approvals: { needed: refundApprovalsNeeded(deps.config, row), given: row.first_approved_by ? 1 : 0 },
  };
}

export function adminRefundRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/refunds/review",
      operationId: "adminListRefundQueue",
      tags,
      summary: "Refunds waiting for an operator, oldest first",
      security,
      middleware: [requireViewer],
      responses: {
        200: jsonContent(successSchema(z.array(AdminRefundSchema)), "The queue"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const deps = c.get("deps");
      return ok(c, (await refundReviewQueue(deps)).map((row) => adminView(deps, row)));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/refunds/{id}",
      operationId: "adminGetRefund",
      tags,
      summary: "One refund of any merchant",
      security,
      middleware: [requireViewer],
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(AdminRefundSchema), "The refund"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      return ok(c, adminView(deps, await findRefundForOperator(deps, c.req.valid("param").id)));
    },
  );

  for (const action of ["approve", "reject"] as const) {
    r.openapi(
      createRoute({
        method: "post",
        path: `/refunds/{id}/${action}`,
        operationId: action === "approve" ? "adminApproveRefund" : "adminRejectRefund",
        tags,
        summary: action === "approve"
          ? "Approve a refund (it is paid on the original rail; above the four-eyes threshold the first " +
            "approval is recorded and a second reviewer sends it)"
          : "Reject a refund (the reservation returns to the merchant's wallet)",
        security,
        middleware: [requireReviewer],
        request: {
          params: IdParam,
          body: { required: true, content: { "application/json": { schema: DecisionBody } } },
        },
        responses: { 200: jsonContent(successSchema(AdminRefundSchema), "Decided"), ...errorResponses },
      }),
      async (c) => {
        const deps = c.get("deps");
        const body = c.req.valid("json");
        const input = { id: c.req.valid("param").id, ...body, actor: c.get("operator") };
        const decide = action === "approve" ? approveRefund : rejectRefund;
        return ok(c, adminView(deps, await decide(deps, input)));
      },
    );
  }

  const MerchantParam = idParam("mch", "MERCHANT_NOT_FOUND");
  r.openapi(
    createRoute({
      method: "get",
      path: "/merchants/{id}/refund-auto-approve",
      operationId: "adminGetRefundAutoApprove",
      tags,
      summary: "A merchant's refund auto-approval thresholds",
      security,
      middleware: [requireViewer],
      request: { params: MerchantParam },
      responses: { 200: jsonContent(successSchema(AutoApproveSchema), "Thresholds"), ...errorResponses },
    }),
    async (c) => ok(c, await getRefundAutoApprove(c.get("deps"), c.req.valid("param").id)),
  );
  r.openapi(
    createRoute({
      method: "put",
      path: "/merchants/{id}/refund-auto-approve",
      operationId: "adminSetRefundAutoApprove",
      tags,
      summary: "Let a merchant's refunds below an amount pass without review (null turns it off)",
      security,
      middleware: [requireAdmin],
      request: {
        params: MerchantParam,
        body: { required: true, content: { "application/json": { schema: AutoApproveSchema } } },
      },
      responses: { 200: jsonContent(successSchema(AutoApproveSchema), "Thresholds"), ...errorResponses },
    }),
    async (c) =>
      ok(
        c,
        await setRefundAutoApproveLimits(
          c.get("deps"),
          c.get("operator"),
          c.req.valid("param").id,
          c.req.valid("json"),
        ),
      ),
  );
  return r;
}
