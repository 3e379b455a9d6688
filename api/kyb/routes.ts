// The merchant's side of going live: its KYB review (business details, documents, submission, replies to
// an operator's questions) and the merchant agreement (read, sign). Secret or test keys alike: a merchant
// prepares going live from the sandbox.
import { createRoute, z } from "@hono/zod-openapi";
import { getKyb, saveBusinessDetails, submitKyb, uploadDocument } from "../../domain/kyb/review.ts";
import { merchantReply } from "../../domain/kyb/threads.ts";
import { DOCUMENT_KINDS } from "../../domain/kyb/documents.ts";
import { agreementStatusOf, signAgreement } from "../../domain/kyb/agreement.ts";
import { clientAddress } from "../../http/client_address.ts";
import { errorResponses, jsonContent, KEY_SECURITY, ok, successSchema } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import { newRouter } from "../router.ts";
import { FilePart } from "../shape_schemas.ts";
import { fileBytes, formOf, uploadLimit } from "../paylinks/media.ts";
import {
  AgreementStatusSchema,
  BusinessDetailsSchema,
  KybDocumentSchema,
  KybReviewSchema,
  KybThreadSchema,
  MessageBody,
  ThreadIdParam,
} from "./schemas.ts";

const tags = ["Merchant"];
const security = KEY_SECURITY;
const read = [requireKey("payments_read", "read")];
const write = [requireKey("payments_write", "write")];
const json = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { "application/json": { schema } } },
});
/** Largest multipart body: the document limit is checked again on the bytes (KYB_MAX_DOCUMENT_BYTES). */
const MAX_UPLOAD = 26_214_400;

export function kybRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/merchant/kyb",
      operationId: "getMerchantKyb",
      tags,
      summary: "The business verification (KYB) review: details, documents, status and operator threads",
      security,
      middleware: read,
      responses: { 200: jsonContent(successSchema(KybReviewSchema), "The review"), ...errorResponses },
    }),
    async (c) => ok(c, await getKyb(c.get("deps"), c.get("auth").merchantId)),
  );

  r.openapi(
    createRoute({
      method: "put",
      path: "/merchant/kyb",
      operationId: "saveMerchantKyb",
      tags,
      summary: "Save the business details (while DRAFT, or after a rejection)",
      security,
      middleware: write,
      request: json(z.strictObject({ business: BusinessDetailsSchema })),
      responses: { 200: jsonContent(successSchema(KybReviewSchema), "The review"), ...errorResponses },
    }),
    async (c) =>
      ok(c, await saveBusinessDetails(c.get("deps"), c.get("auth").merchantId, c.req.valid("json").business)),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/merchant/kyb/documents",
      operationId: "uploadMerchantKybDocument",
      tags,
      summary:
        "Upload a document (PDF, PNG, JPEG or WebP judged by its bytes; at most KYB_MAX_DOCUMENT_BYTES)",
      security,
      middleware: [...write, uploadLimit(MAX_UPLOAD)],
      request: {
        body: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: z.object({
                file: FilePart.openapi({ description: "the document" }),
                kind: z.enum(DOCUMENT_KINDS).optional().openapi({ description: "default OTHER" }),
              }),
              encoding: { file: { contentType: "application/pdf, image/png, image/jpeg, image/webp" } },
            },
          },
        },
      },
      responses: { 201: jsonContent(successSchema(KybDocumentSchema), "The document"), ...errorResponses },
    }),
    async (c) => {
      const form = formOf(c) as { file?: unknown; kind?: (typeof DOCUMENT_KINDS)[number] } | undefined;
      const bytes = await fileBytes(form);
      const fileName = form?.file instanceof File ? form.file.name : undefined;
      const doc = await uploadDocument(c.get("deps"), c.get("auth").merchantId, {
        kind: form?.kind ?? "OTHER",
        fileName,
        bytes,
      });
      return ok(c, doc, 201);
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/merchant/kyb/submit",
      operationId: "submitMerchantKyb",
      tags,
      summary: "Submit the review to an operator (every required detail and at least one document)",
      security,
      middleware: write,
      responses: {
        200: jsonContent(successSchema(KybReviewSchema), "The review, SUBMITTED"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await submitKyb(c.get("deps"), c.get("auth").merchantId)),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/merchant/kyb/threads/{threadId}/replies",
      operationId: "replyMerchantKybThread",
      tags,
      summary: "Answer an operator's question on the review (the thread must be OPEN)",
      security,
      middleware: write,
      request: { params: ThreadIdParam, ...json(MessageBody) },
      responses: { 201: jsonContent(successSchema(KybThreadSchema), "The thread"), ...errorResponses },
    }),
    async (c) => {
      const auth = c.get("auth");
      const thread = await merchantReply(c.get("deps"), {
        merchantId: auth.merchantId,
        threadId: c.req.valid("param").threadId,
        message: c.req.valid("json").message,
        keyId: auth.keyId,
      });
      return ok(c, thread, 201);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/merchant/agreement",
      operationId: "getMerchantAgreement",
      tags,
      summary: "The current merchant agreement and where the merchant stands with it",
      security,
      middleware: read,
      responses: {
        200: jsonContent(successSchema(AgreementStatusSchema), "The agreement"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await agreementStatusOf(c.get("deps"), c.get("auth").merchantId)),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/merchant/agreement/sign",
      operationId: "signMerchantAgreement",
      tags,
      summary: "Sign the current agreement: name its version and SHA-256 (CONFLICT if a newer one exists)",
      security,
      middleware: write,
      request: json(z.strictObject({
        version: z.number().int().min(1).max(1_000_000),
        sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, "64 hex digits"),
        signedBy: z.string().trim().min(1).max(200).openapi({
          description: "the person signing for the merchant (name and role)",
        }),
      })),
      responses: { 200: jsonContent(successSchema(AgreementStatusSchema), "Signed"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const auth = c.get("auth");
      return ok(
        c,
        await signAgreement(c.get("deps"), {
          merchantId: auth.merchantId,
          version: body.version,
          sha256: body.sha256,
          signedBy: `${body.signedBy} (api key ${auth.keyId})`,
          signedFrom: clientAddress(c),
        }),
      );
    },
  );
  return r;
}
