// GET /v1/invoices/:id/pdf (the signed invoice of a paid pay-in or paylink order), and the public checks:
// GET /v1/invoices/verify?id&signature and GET /v1/invoices/signing-key.
import { createRoute, z } from "@hono/zod-openapi";
import { invoicePdf, invoiceSigningKey, verifyInvoice } from "../../domain/invoices/mod.ts";
import { ID_ALPHABET, ID_BODY_LENGTH, isWellFormedId } from "../../domain/ids.ts";
import { chooseLang } from "../../domain/pdf/text.ts";
import { newRouter } from "../router.ts";
import {
  errorResponses,
  errorResponsesWith,
  jsonContent,
  KEY_SECURITY,
  ok,
  successSchema,
} from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import { publicRateLimit } from "../shop/routes.ts";
import { LangQuery, PDF_CONTENT, pdfAnswer } from "../statements/routes.ts";

const SALE_ID = `^(pay|ord)_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`;

/** A pay-in (pay_) or paylink order (ord_) id; anything else is NOT_FOUND like an unknown id. */
const InvoiceId = z.object({
  id: z.string().refine((v) => isWellFormedId("pay", v) || isWellFormedId("ord", v), {
    message: "not a pay_ or ord_ id",
    params: { notFound: "NOT_FOUND" },
  }).openapi({
    param: { name: "id", in: "path" },
    pattern: SALE_ID,
    example: `ord_01k${"0".repeat(ID_BODY_LENGTH - 3)}`,
    description: "the pay-in (pay_) or paylink order (ord_) invoiced",
  }),
});

const VerifyQuery = z.object({
  id: z.string().min(1).max(64).openapi({
    description: "the invoice number printed on it",
    example: "ord_01k0...",
  }),
  signature: z.string().min(1).max(128).openapi({ description: "the signature printed on it (base64url)" }),
});

const VerificationSchema = z.object({
  valid: z.boolean(),
  invoice: z.object({
    number: z.string(),
    kind: z.enum(["ORDER", "PAYIN"]),
    issuedAt: z.string(),
    total: z.string(),
    currency: z.enum(["USDT_TRC20", "XOF"]),
    seller: z.string(),
    mode: z.enum(["live", "sandbox"]),
    digest: z.string().openapi({ description: "SHA-256 of the signed content, as printed" }),
  }).optional().openapi({ description: "only for a valid signature: what to compare with the document" }),
}).openapi("InvoiceVerification");

const SigningKeySchema = z.object({
  algorithm: z.literal("Ed25519"),
  publicKey: z.string().openapi({ description: "base64url, 32 bytes" }),
  publicKeyHex: z.string(),
  signedData: z.string(),
  signatureEncoding: z.string(),
}).openapi("InvoiceSigningKey");

export function invoiceRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/invoices/{id}/pdf",
      tags: ["Invoices"],
      summary: "Signed printable invoice of a paid pay-in or paylink order (PDF)",
      operationId: "getInvoicePdf",
      description:
        "French or English (`lang`, else Accept-Language, else French). Only a sale paid in full " +
        "(CONFIRMED or OVERPAID) has one: otherwise INVALID_TRANSACTION_STATUS. A pay-in that paid an order " +
        "is invoiced as that order, under the order's number. The content is signed with Ed25519; the " +
        "signature, its digest and the verification address are printed, and the signed content is attached " +
        "as invoice.json. A publishable key is refused (customer data).",
      security: KEY_SECURITY,
      middleware: [requireKey("payments_read", "merchant")],
      request: { params: InvoiceId, query: z.object({ lang: LangQuery }) },
      responses: {
        200: { description: "The invoice (application/pdf)", content: PDF_CONTENT },
        ...errorResponsesWith(["INVALID_TRANSACTION_STATUS", "NOT_FOUND"]),
      },
    }),
    async (c) => {
      const auth = c.get("auth");
      const { bytes, filename } = await invoicePdf(c.get("deps"), {
        merchantId: auth.merchantId,
        isSandbox: auth.isSandbox,
        id: c.req.valid("param").id,
        lang: chooseLang(c.req.valid("query").lang, c.req.header("accept-language")),
      });
      return pdfAnswer(bytes, filename);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/invoices/verify",
      tags: ["Invoices"],
      summary: "Check an invoice's printed signature (public)",
      operationId: "verifyInvoice",
      description: "No key. `valid: true` with the facts to compare (seller, number, date, total) when the " +
        "signature is this gateway's over the invoice as it stands; anything else is `valid: false`. " +
        "Limited per client address (PUBLIC_RATE_LIMIT a minute).",
      security: [],
      middleware: [publicRateLimit("invoice-verify")],
      request: { query: VerifyQuery },
      responses: {
        200: jsonContent(successSchema(VerificationSchema), "The verdict"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await verifyInvoice(c.get("deps"), c.req.valid("query"))),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/invoices/signing-key",
      tags: ["Invoices"],
      summary: "The public key invoices are signed with (public)",
      operationId: "getInvoiceSigningKey",
      description:
        "To verify offline: Ed25519 verify(signature, bytes of the attached invoice.json, publicKey).",
      security: [],
      middleware: [publicRateLimit("invoice-verify")],
      responses: { 200: jsonContent(successSchema(SigningKeySchema), "The key"), ...errorResponses },
    }),
    (c) => ok(c, invoiceSigningKey(c.get("deps"))),
  );
  return r;
}
