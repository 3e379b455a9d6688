// GET /v1/transactions/export/pdf: the balance statement of a bounded period as a PDF, made at once.
import { createRoute, z } from "@hono/zod-openapi";
import { statementPdf } from "../../domain/statements/pdf.ts";
import { PDF_MAX_DAYS, PDF_MAX_MOVEMENTS } from "../../domain/statements/pdf.ts";
import { chooseLang } from "../../domain/pdf/text.ts";
import { newRouter } from "../router.ts";
import { errorResponsesWith, KEY_SECURITY } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";

/** ISO 8601 date or date-time, as the period parser takes it (domain/statements/period.ts). */
const INSTANT_PATTERN =
  "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$";
export const Instant = z.string().min(1).max(40).regex(
  new RegExp(INSTANT_PATTERN),
  "an ISO 8601 date or date-time with a zone",
).openapi({
  pattern: INSTANT_PATTERN,
  description: "ISO 8601 date (2026-01-31, midnight UTC) or date-time with a zone (2026-01-31T10:00:00Z)",
  example: "2026-11-01",
});

export const LangQuery = z.enum(["fr", "en"]).optional().openapi({
  description: "Language of the document; without it, Accept-Language (fr or en), else French",
});

export const PDF_CONTENT = {
  "application/pdf": { schema: z.string().openapi({ format: "binary" }) },
};

const StatementQuery = z.object({
  from: Instant.openapi({ description: "start of the period, included (ISO 8601)", example: "2026-11-01" }),
  to: Instant.openapi({ description: "end of the period, excluded (ISO 8601)", example: "2026-12-01" }),
  currency: z.enum(["USDT_TRC20", "XOF"]).optional().openapi({
    description: "one currency's wallets; without it, a section per currency",
  }),
  lang: LangQuery,
});

export function statementRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/transactions/export/pdf",
      tags: ["Transactions"],
      summary: "Balance statement of a period as a PDF (synchronous)",
      operationId: "exportStatementPdf",
      description:
        `Opening balance, every wallet movement (pay-in credits with their fees and network fees, ` +
        `payouts, withdrawals, refunds, conversion legs, bulk items) with the running balance, and the ` +
        `closing balance, which equals the ledger's at \`to\`. The key's mode decides live or sandbox. ` +
        `At most ${PDF_MAX_DAYS} days and ${PDF_MAX_MOVEMENTS} movements per currency: a longer period is ` +
        `VALIDATION_ERROR with cause RANGE_TOO_LARGE_FOR_PDF (use the CSV export), a busier one cause ` +
        `STATEMENT_TOO_LARGE. Both from and to are required, from before to.`,
      security: KEY_SECURITY,
      middleware: [requireKey("transactions_read", "merchant")],
      request: { query: StatementQuery },
      responses: {
        200: { description: "The statement (application/pdf)", content: PDF_CONTENT },
        ...errorResponsesWith(["VALIDATION_ERROR"]),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const auth = c.get("auth");
      const { bytes, filename } = await statementPdf(c.get("deps"), {
        merchantId: auth.merchantId,
        isSandbox: auth.isSandbox,
        from: q.from,
        to: q.to,
        currency: q.currency,
        lang: chooseLang(q.lang, c.req.header("accept-language")),
      });
      return pdfAnswer(bytes, filename);
    },
  );
  return r;
}

/** A PDF answer: inline (a browser shows it), never cached by intermediaries. */
// deno-lint-ignore no-explicit-any
export function pdfAnswer(bytes: Uint8Array, filename: string): any {
  return new Response(bytes as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: {
      "Content-Type": "application/pdf",
      "Content-Length": String(bytes.length),
      "Content-Disposition": `inline; filename="${filename}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
