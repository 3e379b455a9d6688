// Shapes of the KYB review and the merchant agreement, shared by the merchant and operator routes.
import { z } from "@hono/zod-openapi";
import { DOCUMENT_KINDS } from "../../domain/kyb/documents.ts";
import { MAX_MESSAGE_CHARS } from "../../domain/kyb/threads.ts";
import { EMAIL_PATTERN } from "../shape_schemas.ts";
import { HttpUrl } from "../envelope.ts";
import { ID_ALPHABET, ID_BODY_LENGTH, type IdPrefix, isWellFormedId } from "../../domain/ids.ts";

const text = (max: number) => z.string().trim().min(1).max(max);

export const BusinessDetailsSchema = z.strictObject({
  legalName: text(200),
  tradingName: text(200).optional(),
  registrationNumber: text(100).openapi({ description: "company register number (RCCM in UEMOA states)" }),
  country: z.string().regex(/^[A-Z]{2}$/, "ISO 3166-1 alpha-2, upper case").openapi({ example: "BF" }),
  address: text(500),
  representativeName: text(200),
  contactEmail: z.string().max(254).regex(new RegExp(EMAIL_PATTERN), "an e-mail address"),
  website: HttpUrl.optional(),
  description: text(2000).optional(),
}).openapi("KybBusinessDetails");

export const KybDocumentSchema = z.object({
  id: z.string(),
  kind: z.enum(DOCUMENT_KINDS),
  fileName: z.string().openapi({ description: "as sent, for display only: the type comes from the bytes" }),
  contentType: z.enum(["application/pdf", "image/png", "image/jpeg", "image/webp"]),
  sizeBytes: z.number().int(),
  uploadedAt: z.string(),
}).openapi("KybDocument");

export const KybThreadSchema = z.object({
  id: z.string(),
  status: z.enum(["OPEN", "RESOLVED", "DISMISSED"]),
  createdAt: z.string(),
  closedAt: z.string().nullable(),
  messages: z.array(z.object({
    id: z.string(),
    author: z.enum(["MERCHANT", "ADMIN"]),
    authorName: z.string(),
    body: z.string(),
    createdAt: z.string(),
  })),
}).openapi("KybThread");

export const KybReviewSchema = z.object({
  merchantId: z.string(),
  status: z.enum(["DRAFT", "SUBMITTED", "APPROVED", "REJECTED"]),
  business: z.record(z.string(), z.unknown()),
  submittedAt: z.string().nullable(),
  decidedAt: z.string().nullable(),
  decisionNote: z.string().nullable(),
  documents: z.array(KybDocumentSchema),
  threads: z.array(KybThreadSchema),
}).openapi("KybReview");

export const MessageBody = z.strictObject({
  message: z.string().max(MAX_MESSAGE_CHARS + 100).openapi({
    description: `plain text, 1 to ${MAX_MESSAGE_CHARS} characters once trimmed`,
  }),
});

export const AgreementSchema = z.object({
  version: z.number().int(),
  sha256: z.string(),
  body: z.string(),
  publishedAt: z.string(),
}).openapi("MerchantAgreement");

export const AgreementStatusSchema = z.object({
  current: AgreementSchema,
  state: z.enum(["SIGNED", "NOT_SIGNED", "RESIGN_REQUESTED", "RESIGN_OVERDUE"]),
  signedVersion: z.number().int().nullable(),
  resignBy: z.string().nullable().openapi({
    description: "end of the 30-day re-sign window, if one is open",
  }),
  signatures: z.array(z.object({
    version: z.number().int(),
    sha256: z.string(),
    signedAt: z.string(),
    signedFrom: z.string(),
    signedBy: z.string(),
  })),
}).openapi("MerchantAgreementStatus");

/** A path id of `prefix` named `name`: anything malformed answers NOT_FOUND before any query (as idParam). */
function pathId(name: string, prefix: IdPrefix) {
  return z.string().refine((value) => isWellFormedId(prefix, value), {
    message: `not a ${prefix}_ id`,
    params: { notFound: "NOT_FOUND" },
  }).openapi({
    param: { name, in: "path" },
    pattern: `^${prefix}_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`,
    description: `${prefix}_ followed by ${ID_BODY_LENGTH} characters`,
  });
}

export const ThreadIdParam = z.object({ threadId: pathId("threadId", "kth") });
export const MerchantDocumentParams = z.object({
  id: pathId("id", "mch"),
  documentId: pathId("documentId", "kyd"),
});
