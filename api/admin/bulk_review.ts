// Operator review of mobile money batches held at execution (domain/bulk/review.ts), under /admin/api:
// what waits and why, one batch with its items, approve (items are paid) or reject (note required; the
// money returns to the merchant's wallet). Every decision names its reviewer.
import { createRoute, z } from "@hono/zod-openapi";
import type { BatchRow } from "../../db/bulk.ts";
import {
  approveBatch,
  batchApprovalsNeeded,
  findBatchForOperator,
  listBatchesInReview,
  rejectBatch,
} from "../../domain/bulk/review.ts";
import { batchDetail } from "../../domain/bulk/view.ts";
import type { Deps } from "../../domain/deps.ts";
import { newRouter } from "../router.ts";
import { BatchSchema, BatchWithItems } from "../bulk/schemas.ts";
import { errorResponses, idParam, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireReviewer, requireViewer } from "../middleware/admin_auth.ts";
import { NoteField, ReviewerField } from "./reviewer.ts";

const security = OPERATOR_SECURITY;
const tags = ["Admin"];
const IdParam = idParam("blk");
const DecisionBody = z.strictObject({ reviewer: ReviewerField, note: NoteField });

const ReviewFields = {
  merchantId: z.string(),
  isSandbox: z.boolean(),
  reviewer: z.string().nullable(),
  approvalsNeeded: z.number().int().openapi({
    description:
      "2 when the total is above FOUR_EYES_ABOVE_USDT / FOUR_EYES_ABOVE_XOF (two different reviewers)",
  }),
  firstApproval: z.object({ reviewer: z.string(), at: z.string() }).nullable().openapi({
    description: "the first of two approvals, while the batch waits for a different second reviewer",
  }),
};
const BatchReviewSchema = z.object({ ...ReviewFields, batch: BatchSchema }).openapi("AdminBulkReviewItem");
const BatchReviewDetail = z.object({ ...ReviewFields, batch: BatchWithItems }).openapi(
  "AdminBulkReviewDetail",
);

async function reviewView(deps: Pick<Deps, "db" | "config">, batch: BatchRow, withItems: boolean) {
  return {
    merchantId: batch.merchant_id,
    isSandbox: batch.is_sandbox,
    reviewer: batch.reviewed_by,
    approvalsNeeded: batchApprovalsNeeded(deps.config, batch),
    firstApproval: batch.first_approved_by
      ? { reviewer: batch.first_approved_by, at: batch.first_approved_at!.toISOString() }
      : null,
    batch: await batchDetail(deps, batch, withItems),
  };
}

export function adminBulkReviewRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/bulk-review",
      operationId: "adminListBulkReview",
      tags,
      summary: "Mobile money batches waiting for an operator (PENDING_REVIEW), oldest first",
      security,
      middleware: [requireViewer],
      responses: {
        200: jsonContent(successSchema(z.array(BatchReviewSchema)), "The queue"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const deps = c.get("deps");
      const batches = await listBatchesInReview(deps);
      return ok(c, await Promise.all(batches.map((b) => reviewView(deps, b, false))));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/bulk-review/{id}",
      operationId: "adminGetBulkReview",
      tags,
      summary: "One batch (any merchant's) with its items, its review reason and decision",
      security,
      middleware: [requireViewer],
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(BatchReviewDetail), "The batch"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      return ok(c, await reviewView(deps, await findBatchForOperator(deps, c.req.valid("param").id), true));
    },
  );

  for (const action of ["approve", "reject"] as const) {
    r.openapi(
      createRoute({
        method: "post",
        path: `/bulk-review/{id}/${action}`,
        operationId: action === "approve" ? "adminApproveBulkPayment" : "adminRejectBulkPayment",
        tags,
        summary: action === "approve"
          ? "Approve a batch in PENDING_REVIEW: its items are paid"
          : "Reject a batch in PENDING_REVIEW: its debit returns to the wallet (note required)",
        security,
        middleware: [requireReviewer],
        request: {
          params: IdParam,
          body: { required: true, content: { "application/json": { schema: DecisionBody } } },
        },
        responses: { 200: jsonContent(successSchema(BatchReviewSchema), "Decided"), ...errorResponses },
      }),
      async (c) => {
        const deps = c.get("deps");
        const body = c.req.valid("json");
        const input = {
          id: c.req.valid("param").id,
          note: body.note,
          reviewer: body.reviewer,
          actor: c.get("operator"),
        };
        const batch = await (action === "approve" ? approveBatch : rejectBatch)(deps, input);
        return ok(c, await reviewView(deps, batch, false));
      },
    );
  }
  return r;
}
