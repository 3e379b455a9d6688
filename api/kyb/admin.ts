// Operators review KYB under /admin/api: the list (waiting first), one review with its documents and
// threads, a document's bytes, approve or reject (a note is required to reject), questions in threads,
// and publishing a new merchant agreement. Reviewer role to decide and ask; admin to publish.
import { createRoute, z } from "@hono/zod-openapi";
import { decideKyb, getKyb, listKybReviews, readKybDocument } from "../../domain/kyb/review.ts";
import { closeKybThread, openThread, operatorReply } from "../../domain/kyb/threads.ts";
import { publishAgreement } from "../../domain/kyb/agreement.ts";
import { errorResponses, idParam, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireAdmin, requireReviewer, requireViewer } from "../middleware/admin_auth.ts";
import { newRouter } from "../router.ts";
import { NoteField, ReviewerField } from "../admin/reviewer.ts";
import {
  AgreementSchema,
  KybReviewSchema,
  KybThreadSchema,
  MerchantDocumentParams,
  MessageBody,
  ThreadIdParam,
} from "./schemas.ts";

const tags = ["Admin"];
const security = OPERATOR_SECURITY;
const MerchantId = idParam("mch", "MERCHANT_NOT_FOUND");
const json = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { "application/json": { schema } } },
});

const ReviewItem = z.object({
  merchantId: z.string(),
  merchantName: z.string(),
  status: z.enum(["DRAFT", "SUBMITTED", "APPROVED", "REJECTED"]),
  submittedAt: z.string().nullable(),
  decidedAt: z.string().nullable(),
  documents: z.number().int(),
  openThreads: z.number().int(),
}).openapi("AdminKybReviewItem");

export function adminKybRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/kyb",
      operationId: "adminListKybReviews",
      tags,
      summary: "KYB reviews, submitted ones first-come first-served (filter by status; default SUBMITTED)",
      security,
      middleware: [requireViewer],
      request: {
        query: z.object({ status: z.enum(["DRAFT", "SUBMITTED", "APPROVED", "REJECTED", "ALL"]).optional() }),
      },
      responses: { 200: jsonContent(successSchema(z.array(ReviewItem)), "The reviews"), ...errorResponses },
    }),
    async (c) => {
      const status = c.req.valid("query").status ?? "SUBMITTED";
      return ok(c, await listKybReviews(c.get("deps"), status === "ALL" ? null : status));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/kyb/{id}",
      operationId: "adminGetKybReview",
      tags,
      summary: "One merchant's KYB review: business details, documents, threads",
      security,
      middleware: [requireViewer],
      request: { params: MerchantId },
      responses: { 200: jsonContent(successSchema(KybReviewSchema), "The review"), ...errorResponses },
    }),
    async (c) => ok(c, await getKyb(c.get("deps"), c.req.valid("param").id)),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/kyb/{id}/documents/{documentId}",
      operationId: "adminGetKybDocument",
      tags,
      summary: "A document's bytes, as a download (never rendered by the console's origin)",
      security,
      middleware: [requireViewer],
      request: { params: MerchantDocumentParams },
      responses: {
        200: {
          description: "The document",
          content: {
            "application/pdf": { schema: z.any().openapi({ type: "string", format: "binary" }) },
            "image/png": { schema: z.any().openapi({ type: "string", format: "binary" }) },
            "image/jpeg": { schema: z.any().openapi({ type: "string", format: "binary" }) },
            "image/webp": { schema: z.any().openapi({ type: "string", format: "binary" }) },
          },
        },
        ...errorResponses,
      },
    }),
    // deno-lint-ignore no-explicit-any
    async (c): Promise<any> => {
      const { id, documentId } = c.req.valid("param");
      const doc = await readKybDocument(c.get("deps"), id, documentId);
      return c.body(doc.bytes as Uint8Array<ArrayBuffer>, 200, {
        "Content-Type": doc.contentType,
        "Content-Disposition": `attachment; filename="${documentId}.${doc.contentType.split("/")[1]}"`,
        "Content-Security-Policy": "sandbox; default-src 'none'",
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-store",
      });
    },
  );

  for (const decision of ["approve", "reject"] as const) {
    r.openapi(
      createRoute({
        method: "post",
        path: `/kyb/{id}/${decision}`,
        operationId: decision === "approve" ? "adminApproveKyb" : "adminRejectKyb",
        tags,
        summary: decision === "approve"
          ? "Approve a SUBMITTED review: live processing opens once the agreement is signed (kyb.approved)"
          : "Reject a SUBMITTED review with a note the merchant sees (kyb.rejected)",
        security,
        middleware: [requireReviewer],
        request: {
          params: MerchantId,
          ...json(z.strictObject({ reviewer: ReviewerField, note: NoteField })),
        },
        responses: { 200: jsonContent(successSchema(KybReviewSchema), "The review"), ...errorResponses },
      }),
      async (c) => {
        const body = c.req.valid("json");
        return ok(
          c,
          await decideKyb(c.get("deps"), c.get("operator"), {
            merchantId: c.req.valid("param").id,
            decision: decision === "approve" ? "APPROVED" : "REJECTED",
            note: body.note,
            reviewer: body.reviewer,
          }),
        );
      },
    );
  }

  r.openapi(
    createRoute({
      method: "post",
      path: "/kyb/{id}/threads",
      operationId: "adminOpenKybThread",
      tags,
      summary: "Ask the merchant a question on its review (kyb.thread.created)",
      security,
      middleware: [requireReviewer],
      request: { params: MerchantId, ...json(MessageBody) },
      responses: { 201: jsonContent(successSchema(KybThreadSchema), "The thread"), ...errorResponses },
    }),
    async (c) => {
      const thread = await openThread(c.get("deps"), c.get("operator"), {
        merchantId: c.req.valid("param").id,
        message: c.req.valid("json").message,
      });
      return ok(c, thread, 201);
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/kyb/threads/{threadId}/replies",
      operationId: "adminReplyKybThread",
      tags,
      summary: "Reply on an OPEN thread (kyb.thread.replied, author ADMIN)",
      security,
      middleware: [requireReviewer],
      request: { params: ThreadIdParam, ...json(MessageBody) },
      responses: { 201: jsonContent(successSchema(KybThreadSchema), "The thread"), ...errorResponses },
    }),
    async (c) => {
      const thread = await operatorReply(c.get("deps"), c.get("operator"), {
        threadId: c.req.valid("param").threadId,
        message: c.req.valid("json").message,
      });
      return ok(c, thread, 201);
    },
  );

  for (const outcome of ["resolve", "dismiss"] as const) {
    r.openapi(
      createRoute({
        method: "post",
        path: `/kyb/threads/{threadId}/${outcome}`,
        operationId: outcome === "resolve" ? "adminResolveKybThread" : "adminDismissKybThread",
        tags,
        summary: outcome === "resolve"
          ? "Close an OPEN thread as answered (kyb.thread.resolved)"
          : "Close an OPEN thread as not needed (kyb.thread.dismissed)",
        security,
        middleware: [requireReviewer],
        request: { params: ThreadIdParam },
        responses: { 200: jsonContent(successSchema(KybThreadSchema), "The thread"), ...errorResponses },
      }),
      async (c) =>
        ok(
          c,
          await closeKybThread(c.get("deps"), c.get("operator"), {
            threadId: c.req.valid("param").threadId,
            outcome: outcome === "resolve" ? "RESOLVED" : "DISMISSED",
          }),
        ),
    );
  }

  r.openapi(
    createRoute({
      method: "post",
      path: "/agreements",
      operationId: "adminPublishAgreement",
      tags,
      summary: "Publish a new merchant agreement: merchants on an older one get 30 days to sign it " +
        "(agreement.resign_requested), then live processing stops until they do",
      security,
      middleware: [requireAdmin],
      request: json(z.strictObject({
        body: z.string().min(20).max(200_000).regex(/\S(.*\S){18}/s, "at least 20 characters besides spaces")
          .openapi({ description: "the agreement's text (at least 20 characters once trimmed)" }),
      })),
      responses: {
        201: jsonContent(
          successSchema(z.object({
            agreement: AgreementSchema,
            resignRequested: z.number().int(),
            deadline: z.string(),
          })),
          "Published",
        ),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await publishAgreement(c.get("deps"), c.get("operator"), c.req.valid("json")), 201),
  );
  return r;
}
