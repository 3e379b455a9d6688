// The dispute record as merchants and operators read it (domain/disputes/view.ts), and the evidence form.
import { z } from "@hono/zod-openapi";
import { DISPUTE_STATUSES } from "../../domain/disputes/states.ts";
import { FilePart } from "../shape_schemas.ts";

const nullableText = z.string().nullable();

export const DisputeFileSchema = z.object({
  id: z.string(),
  fileName: z.string(),
  contentType: z.enum(["application/pdf", "image/png", "image/jpeg"]),
  sizeBytes: z.number().int(),
  createdAt: z.string(),
}).openapi("DisputeFile");

export const DisputeSchema = z.object({
  id: z.string().openapi({ example: "dsp_01k0000000000000000000000" }),
  transactionId: z.string().openapi({ description: "the disputed pay-in" }),
  status: z.enum(DISPUTE_STATUSES),
  source: z.enum(["PROVIDER", "OPERATOR"]).openapi({
    description: "PROVIDER: the card acquirer's chargeback; OPERATOR: opened by the gateway's staff",
  }),
  caseRef: z.string().openapi({ description: "the acquirer's case id (or the gateway's own)" }),
  reason: z.string().openapi({ example: "FRAUD_CARD_ABSENT" }),
  cardOrigin: z.enum(["LOCAL", "INTERNATIONAL"]).openapi({ description: "sets the evidence deadline" }),
  amount: z.string().openapi({ description: "disputed, in the pay-in's currency" }),
  currency: z.enum(["USDT_TRC20", "XOF"]),
  heldAmount: z.string().openapi({ description: "held from the wallet now (0 once decided)" }),
  shortfall: z.string().openapi({
    description: "what the wallet could not cover yet; taken from its next credits",
  }),
  evidenceDueAt: z.string().openapi({ description: "evidence after this is refused; none by then loses" }),
  evidence: z.object({
    text: nullableText,
    submittedAt: nullableText,
    files: z.array(DisputeFileSchema),
  }),
  outcome: z.enum([
    "MERCHANT_WON",
    "OPERATOR_REJECTED",
    "ACCEPTED",
    "DEADLINE_MISSED",
    "PROVIDER_LOST",
    "PROVIDER_WON",
  ])
    .nullable(),
  decisionNote: nullableText,
  isSandbox: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  closedAt: nullableText,
}).openapi("Dispute");

export const AdminDisputeSchema = DisputeSchema.extend({ merchantId: z.string() }).openapi("AdminDispute");

/** Printable text: no NUL or other control characters but line breaks and tabs, no lone surrogates. */
export const EvidenceText = z.string().max(20_000).refine(
  // deno-lint-ignore no-control-regex -- control characters are exactly what is refused
  (v) => v.isWellFormed() && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(v),
  { message: "control characters or a broken character" },
).openapi({ description: "the merchant's account of the facts (replaces earlier text)" });

export const EvidenceForm = z.object({
  text: EvidenceText.optional(),
  file1: FilePart.optional(),
  file2: FilePart.optional(),
  file3: FilePart.optional(),
}).openapi("DisputeEvidence");
