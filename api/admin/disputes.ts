// Operators and disputes: the list (every merchant), one dispute, opening one on a complaint, and the
// decisions: resolve (merchant wins), reject (cardholder wins), escalate. Reviewer or above for changes,
// a note always required (REASON_NOTE_REQUIRED), each recorded in the audit trail with the change.
import { createRoute, z } from "@hono/zod-openapi";
import { decideDispute, openDisputeByOperator } from "../../domain/disputes/decide.ts";
import {
  findDisputeForOperator,
  listDisputesForOperator,
  readDisputeFile,
} from "../../domain/disputes/queries.ts";
import { ID_ALPHABET, ID_BODY_LENGTH, isWellFormedId } from "../../domain/ids.ts";
import { DISPUTE_STATUSES } from "../../domain/disputes/states.ts";
import { newRouter } from "../router.ts";
import { errorResponses, idParam, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireReviewer, requireViewer } from "../middleware/admin_auth.ts";
import { DecimalAmount } from "../shape_schemas.ts";
import { AdminDisputeSchema } from "../disputes/schemas.ts";
import { ReviewerField } from "./reviewer.ts";

const security = OPERATOR_SECURITY;
const tags = ["Admin"];
const IdParam = idParam("dsp");

const Note = z.string().max(1000).openapi({ description: "why; required" });

const DecisionBody = z.strictObject({ note: Note.optional(), reviewer: ReviewerField });

const OpenBody = z.strictObject({
  transactionId: z.string().max(64).openapi({ description: "the paid pay-in the customer complains about" }),
  reason: z.string().regex(/^[A-Z][A-Z0-9_]{0,49}$/).openapi({ example: "NOT_RECEIVED" }),
  amount: DecimalAmount.optional().openapi({ description: "disputed; default all that is not yet disputed" }),
  note: Note.optional(),
  reviewer: ReviewerField,
});

const one = (description: string) => ({
  200: jsonContent(successSchema(AdminDisputeSchema), description),
  ...errorResponses,
});

export function adminDisputeRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/disputes",
      operationId: "adminListDisputes",
      tags,
      summary: "Disputes of every merchant, newest first",
      security,
      middleware: [requireViewer],
      request: {
        query: z.object({
          status: z.enum(DISPUTE_STATUSES).optional(),
          merchantId: z.string().max(64).optional(),
          limit: z.coerce.number().int().min(1).max(200).default(50),
        }),
      },
      responses: {
        200: jsonContent(successSchema(z.object({ items: z.array(AdminDisputeSchema) })), "Disputes"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, { items: await listDisputesForOperator(c.get("deps"), c.req.valid("query")) }),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/disputes/{id}",
      operationId: "adminGetDispute",
      tags,
      summary: "One dispute with the merchant's evidence",
      security,
      middleware: [requireViewer],
      request: { params: IdParam },
      responses: one("The dispute"),
    }),
    async (c) => ok(c, await findDisputeForOperator(c.get("deps"), c.req.valid("param").id)),
  );

  const binary = z.any().openapi({ type: "string", format: "binary" });
  r.openapi(
    createRoute({
      method: "get",
      path: "/disputes/{id}/files/{fileId}",
      operationId: "adminGetDisputeFile",
      tags,
      summary: "Download one evidence file of a dispute (as an attachment, never rendered inline)",
      security,
      middleware: [requireViewer],
      request: {
        params: IdParam.extend({
          fileId: z.string().refine((v) => isWellFormedId("dsf", v), {
            message: "not a dsf_ id",
            params: { notFound: "NOT_FOUND" },
          }).openapi({
            param: { name: "fileId", in: "path" },
            pattern: `^dsf_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`,
          }),
        }),
      },
      responses: {
        200: {
          description: "The file's bytes",
          content: {
            "application/pdf": { schema: binary },
            "image/png": { schema: binary },
            "image/jpeg": { schema: binary },
          },
        },
        ...errorResponses,
      },
    }),
    // deno-lint-ignore no-explicit-any
    async (c): Promise<any> => {
      const { id, fileId } = c.req.valid("param");
      const file = await readDisputeFile(c.get("deps"), id, fileId);
      // The merchant chose the name: only a plain ASCII form of it goes in the header.
      const name = file.fileName.replace(/[^A-Za-z0-9 ._()-]/g, "_");
      return new Response(file.bytes as Uint8Array<ArrayBuffer>, {
        headers: {
          "content-type": file.contentType,
          "content-disposition": `attachment; filename="${name}"`,
          "x-content-type-options": "nosniff",
          "content-security-policy": "sandbox; default-src 'none'",
          "cache-control": "no-store",
        },
      });
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/disputes",
      operationId: "adminOpenDispute",
      tags,
      summary: "Open a dispute on a paid pay-in (a mobile money or USDT complaint); the amount is held",
      security,
      middleware: [requireReviewer],
      request: { body: { required: true, content: { "application/json": { schema: OpenBody } } } },
      responses: {
        ...one("The dispute, OPEN"),
        201: jsonContent(successSchema(AdminDisputeSchema), "Opened"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const opened = await openDisputeByOperator(c.get("deps"), { ...body, actor: c.get("operator") });
      return ok(c, opened, 201);
    },
  );

  for (const action of ["resolve", "reject", "escalate"] as const) {
    r.openapi(
      createRoute({
        method: "post",
        path: `/disputes/{id}/${action}`,
        operationId: `admin${action[0].toUpperCase()}${action.slice(1)}Dispute`,
        tags,
        summary: {
          resolve: "Decide for the merchant: RESOLVED, the hold released (dispute.resolved)",
          reject: "Decide for the cardholder: REJECTED, the held amount debited (dispute.rejected)",
          escalate: "Send to the provider's next tier: ESCALATED, the hold stays (dispute.escalated)",
        }[action],
        security,
        middleware: [requireReviewer],
        request: {
          params: IdParam,
          body: { required: true, content: { "application/json": { schema: DecisionBody } } },
        },
        responses: one("The dispute"),
      }),
      async (c) => {
        const body = c.req.valid("json");
        const input = { action, note: body.note, reviewer: body.reviewer, actor: c.get("operator") };
        return ok(c, await decideDispute(c.get("deps"), c.req.valid("param").id, input));
      },
    );
  }

  return r;
}
