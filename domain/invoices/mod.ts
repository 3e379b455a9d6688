// Invoices: the signed PDF of a paid sale for its merchant, and the public check of a signature.
import type { Deps } from "../deps.ts";
import type { Lang } from "../pdf/text.ts";
import { contentOf, findSale, type InvoiceContent, invoiceContent } from "./invoice.ts";
import { renderInvoicePdf } from "./pdf.ts";
import { invoiceSigningKey, signatureMatches, signInvoice } from "./signing.ts";
import { AppError } from "../errors.ts";

export { invoiceSigningKey };

/** Where the printed signature is checked: the public route, on this deployment's public address. */
export function verificationUrl(deps: Pick<Deps, "config">, number: string, signature: string): string {
  const base = deps.config.publicUrl.replace(/\/+$/, "");
  return `${base}/v1/invoices/verify?id=${encodeURIComponent(number)}&signature=${
    encodeURIComponent(signature)
  }`;
}

export async function invoicePdf(
  deps: Pick<Deps, "db" | "config">,
  input: { merchantId: string; isSandbox: boolean; id: string; lang: Lang },
): Promise<
  { bytes: Uint8Array; filename: string; content: InvoiceContent; signature: string; digest: string }
> {
  const content = await invoiceContent(deps, input, input.id);
  const signed = signInvoice(deps, content);
  const bytes = await renderInvoicePdf(content, signed, {
    lang: input.lang,
    verifyUrl: verificationUrl(deps, content.number, signed.signature),
    publicKey: invoiceSigningKey(deps).publicKey,
  });
  const filename = `${input.lang === "fr" ? "facture" : "invoice"}-${content.number}.pdf`;
  return { bytes, filename, content, signature: signed.signature, digest: signed.digest };
}

export type Verification =
  | {
    valid: true;
    invoice: Pick<InvoiceContent, "number" | "kind" | "issuedAt" | "total" | "currency"> & {
      seller: string;
      mode: string;
      digest: string;
    };
  }
  | { valid: false };

/**
 * Public: whether `signature` is this gateway's signature of the invoice `id` as it stands. Answers the
 * few facts printed on it to compare (seller, number, date, total) only for a valid signature, which
 * nobody without the document can produce; anything else, an unknown or unpaid id included, is
 * `{valid: false}`, so the route tells a guesser nothing.
 */
export async function verifyInvoice(
  deps: Pick<Deps, "db" | "config">,
  input: { id: string; signature: string },
): Promise<Verification> {
  const sale = await findSale(deps, input.id);
  if (!sale) return { valid: false };
  let content: InvoiceContent;
  try {
    content = await contentOf(deps, sale);
  } catch (err) {
    if (err instanceof AppError) return { valid: false };
    throw err;
  }
  if (content.number !== input.id || !signatureMatches(deps, content, input.signature)) {
    return { valid: false };
  }
  return {
    valid: true,
    invoice: {
      number: content.number,
      kind: content.kind,
      issuedAt: content.issuedAt,
      total: content.total,
      currency: content.currency,
      seller: content.seller.name,
      mode: content.mode,
      digest: signInvoice(deps, content).digest,
    },
  };
}
