// Pay-ins paid while their merchant was suspended or closed (credited, held for review): the operator's
// list and the review mark. See domain/payins/review_holds.ts.
import { createRoute, z } from "@hono/zod-openapi";
import { listReviewHolds, reviewHold } from "../../domain/payins/review_holds.ts";
import { ID_ALPHABET, ID_BODY_LENGTH, isWellFormedId } from "../../domain/ids.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireReviewer, requireViewer } from "../middleware/admin_auth.ts";
import { ReviewerField } from "./reviewer.ts";

const security = OPERATOR_SECURITY;
const tags = ["Admin"];

const HoldSchema = z.object({
  transactionId: z.string(),
  merchantId: z.string(),
  mode: z.enum(["live", "sandbox"]),
  merchantStatus: z.string().openapi({ description: "the merchant's status when the money arrived" }),
  reason: z.string().openapi({ example: "MERCHANT_SUSPENDED" }),
  status: z.string().openapi({ description: "the pay-in's status (CONFIRMED, OVERPAID or UNDERPAID)" }),
  paymentMethod: z.string(),
  currency: z.string(),
  amountReceived: z.string(),
  netAmount: z.string().openapi({ description: "what the merchant's wallet was credited" }),
  heldAt: z.string(),
  reviewedAt: z.string().nullable(),
  reviewedBy: z.string().nullable(),
  reviewNote: z.string().nullable(),
}).openapi("AdminPayinHold");

const PayinIdParam = z.object({
  id: z.string().refine((v) => isWellFormedId("pay", v), {
    message: "not a pay_ id",
    params: { notFound: "NOT_FOUND" },
  }).openapi({
    param: { name: "id", in: "path" },
    pattern: `^pay_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`,
  }),
});

export function adminPayinHoldRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/payin-holds",
      operationId: "adminListPayinHolds",
      tags,
      summary: "Pay-ins paid while their merchant took no payments (credited, held for review), newest first",
      security,
      middleware: [requireViewer],
      request: {
        query: z.object({
          merchantId: z.string().max(64).optional(),
          open: z.enum(["true", "false"]).optional().openapi({ description: "true: not reviewed yet" }),
          limit: z.coerce.number().int().min(1).max(200).default(50),
        }),
      },
      responses: {
        200: jsonContent(successSchema(z.object({ items: z.array(HoldSchema) })), "Held pay-ins"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const open = q.open === undefined ? undefined : q.open === "true";
      return ok(c, { items: await listReviewHolds(c.get("deps"), { ...q, open }) });
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/payin-holds/{id}/review",
      operationId: "adminReviewPayinHold",
      tags,
      summary: "Record that an operator reviewed a held pay-in (once; the money does not move)",
      security,
      middleware: [requireReviewer],
      request: {
        params: PayinIdParam,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                reviewer: ReviewerField,
                note: z.string().max(1000).optional(),
              }),
            },
          },
        },
      },
      responses: { 200: jsonContent(successSchema(HoldSchema), "Reviewed"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const input = { note: body.note, reviewer: body.reviewer, actor: c.get("operator") };
      return ok(c, await reviewHold(c.get("deps"), c.req.valid("param").id, input));
    },
  );

  return r;
}
