// Statuses a live aggregator answered that the gateway does not know (held, never guessed): the operator's
// list and decision. See domain/providers/held_statuses.ts.
import { createRoute, z } from "@hono/zod-openapi";
import { listHeldStatuses, resolveHeldStatus } from "../../domain/providers/held_statuses.ts";
import { ID_ALPHABET, ID_BODY_LENGTH, isWellFormedId } from "../../domain/ids.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireReviewer, requireViewer } from "../middleware/admin_auth.ts";
import { ReviewerField } from "./reviewer.ts";

const security = OPERATOR_SECURITY;
const tags = ["Admin"];

const HeldSchema = z.object({
  subjectKind: z.enum(["PAYIN", "DISBURSEMENT"]),
  id: z.string().openapi({ description: "the pay-in (pay_) or the disbursement (fdis_)" }),
  provider: z.string().openapi({ example: "cinetpay-transfer" }),
  heldStatus: z.string().openapi({ description: "what the aggregator answered, as it answered it" }),
  heldAt: z.string(),
  pollAttempts: z.number().int(),
  merchantId: z.string(),
  mode: z.enum(["live", "sandbox"]),
  amount: z.string(),
  currency: z.enum(["XOF"]),
  status: z.string().openapi({ description: "the pay-in's or disbursement's status (still open)" }),
  providerRef: z.string().nullable(),
}).openapi("AdminHeldProviderStatus");

const ResolvedSchema = z.object({
  id: z.string(),
  subjectKind: z.enum(["PAYIN", "DISBURSEMENT"]),
  outcome: z.enum(["SUCCEEDED", "FAILED"]),
  status: z.string().openapi({ description: "the status the decision settled it in" }),
}).openapi("AdminResolvedProviderStatus");

const SubjectIdParam = z.object({
  id: z.string().refine((v) => isWellFormedId("pay", v) || isWellFormedId("fdis", v), {
    message: "not a pay_ or fdis_ id",
    params: { notFound: "NOT_FOUND" },
  }).openapi({
    param: { name: "id", in: "path" },
    pattern: `^(pay|fdis)_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`,
  }),
});

export function adminProviderStatusRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/provider-statuses/held",
      operationId: "adminListHeldProviderStatuses",
      tags,
      summary: "Pay-ins and disbursements whose aggregator answered a status the gateway does not know",
      description: "Still open, oldest first. Nothing moved; the reconciliation job keeps asking on its " +
        "backoff, and a later known answer settles (and removes) the item.",
      security,
      middleware: [requireViewer],
      request: { query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(100) }) },
      responses: {
        200: jsonContent(successSchema(z.object({ items: z.array(HeldSchema) })), "Held statuses"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, { items: await listHeldStatuses(c.get("deps"), c.req.valid("query").limit) }),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/provider-statuses/held/{id}/resolve",
      operationId: "adminResolveHeldProviderStatus",
      tags,
      summary: "Settle a held pay-in or disbursement as the aggregator's back office shows it (once)",
      description: "SUCCEEDED credits the pay-in (or finishes the disbursement) through the normal path; " +
        "FAILED fails it. Audited. A second decision, or one after a known answer settled it: INVALID_STATE.",
      security,
      middleware: [requireReviewer],
      request: {
        params: SubjectIdParam,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                outcome: z.enum(["SUCCEEDED", "FAILED"]).openapi({
                  description: "what the aggregator's back office shows for this reference",
                }),
                note: z.string().min(1).max(1000).openapi({
                  description: "what the operator saw, and where (required)",
                }),
                reviewer: ReviewerField,
              }),
            },
          },
        },
      },
      responses: { 200: jsonContent(successSchema(ResolvedSchema), "Settled"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const input = { ...body, actor: c.get("operator") };
      const done = await resolveHeldStatus(c.get("deps"), c.req.valid("param").id, input);
      return ok(c, done as z.infer<typeof ResolvedSchema>);
    },
  );

  return r;
}
