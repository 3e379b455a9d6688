// The invoice as a PDF: seller and customer, the lines, totals, how it was paid, and a signature block
// (digest, Ed25519 signature, the verification address). The signed content is attached as invoice.json
// so anyone can check the signature offline with the published public key.
import { ACCENT, type Column, CONTENT_WIDTH, MARGIN, MUTED, PdfWriter } from "../pdf/doc.ts";
import { rgb } from "pdf-lib";
import {
  CURRENCY_LABEL,
  formatInstant,
  formatMoney,
  labels,
  type Lang,
  methodLabel,
  printable,
} from "../pdf/text.ts";
import type { InvoiceContent } from "./invoice.ts";
import type { SignedContent } from "./signing.ts";

const LINE_COLUMNS: Column[] = [
  { width: CONTENT_WIDTH - 250 },
  { width: 50, align: "right" },
  { width: 100, align: "right" },
  { width: 100, align: "right" },
];

const NETWORK_FEE_LABEL: Record<Lang, string> = { fr: "Frais de réseau TRON", en: "TRON network fee" };
const DEFAULT_ITEM: Record<Lang, string> = { fr: "Paiement", en: "Payment" };

export async function renderInvoicePdf(
  content: InvoiceContent,
  signed: SignedContent,
  ctx: { lang: Lang; verifyUrl: string; publicKey: string },
): Promise<Uint8Array> {
  const t = labels(ctx.lang);
  const cur = CURRENCY_LABEL[content.currency];
  const money = (v: string) => formatMoney(v, ctx.lang);
  const w = await PdfWriter.create({
    title: `${t.invoiceTitle} ${content.number}`,
    subject: content.seller.name,
    date: new Date(content.issuedAt),
  });
  w.text(content.seller.name, MARGIN, { size: 16, font: w.bold, width: 300 });
  w.text(t.invoiceTitle.toUpperCase(), MARGIN + 300, {
    size: 18,
    font: w.bold,
    color: ACCENT,
    width: CONTENT_WIDTH - 300,
    align: "right",
  });
  w.down(22);
  const right = (label: string, value: string) => {
    w.text(label, MARGIN + 260, { color: MUTED, width: 80, size: 8 });
    w.text(value, MARGIN + 340, { width: CONTENT_WIDTH - 340, align: "right" });
    w.down(12);
  };
  right(t.invoiceNumber, content.number);
  right(t.issued, formatInstant(content.issuedAt));
  if (content.mode === "sandbox") right(t.mode, t.sandbox);
  w.down(8);
  w.text(t.seller, MARGIN, { color: MUTED, size: 8 });
  w.text(t.billedTo, MARGIN + 260, { color: MUTED, size: 8 });
  w.down(12);
  const given = [content.customer.name, content.customer.email, content.customer.phone].filter(
    Boolean,
  ) as string[];
  const customer = given.length > 0 ? given : ["—"];
  const seller = [content.seller.name, content.seller.merchantId];
  for (let i = 0; i < Math.max(customer.length, seller.length, 1); i++) {
    if (seller[i]) w.text(seller[i], MARGIN, { width: 250 });
    if (customer[i]) w.text(customer[i], MARGIN + 260, { width: CONTENT_WIDTH - 260 });
    w.down(12);
  }
  w.down(14);
  w.row([t.description, t.quantity, t.unitPrice, t.lineTotal], LINE_COLUMNS, { font: w.bold });
  w.rule();
  for (const l of content.lines) {
    const description = l.kind === "NETWORK_FEE"
      ? NETWORK_FEE_LABEL[ctx.lang]
      : l.description || DEFAULT_ITEM[ctx.lang];
    w.row([description, String(l.quantity), money(l.unitPrice), money(l.total)], LINE_COLUMNS, {
      height: 14,
    });
  }
  w.rule();
  const totals: Column[] = [{ width: CONTENT_WIDTH - 200 }, { width: 100, align: "right" }, {
    width: 100,
    align: "right",
  }];
  w.row(["", t.subtotal, money(content.subtotal)], totals);
  if (content.discount.replace(/[0.]/g, "") !== "") {
    const code = content.promoCode ? ` (${content.promoCode})` : "";
    w.row(["", `${t.discount}${code}`, `-${money(content.discount)}`], totals);
  }
  w.row(["", t.total, `${money(content.total)} ${cur}`], totals, { font: w.bold, size: 11, height: 16 });
  w.text(t.paid, MARGIN, { size: 14, font: w.bold, color: rgb(0.1, 0.5, 0.25) });
  w.down(26);

  w.text(t.payment, MARGIN, { size: 11, font: w.bold });
  w.down(15);
  const p = content.payment;
  const facts: Array<[string, string]> = [
    [t.paidWith, methodLabel(p.method, ctx.lang)],
    [t.amountPaid, `${money(p.amountReceived)} ${CURRENCY_LABEL[p.currency]}`],
    ...(p.rate && p.currency !== content.currency ? [[t.rate, p.rate] as [string, string]] : []),
    [t.transaction, p.payinId],
    ...(p.reference ? [["Ref.", p.reference] as [string, string]] : []),
    [t.issued, formatInstant(p.confirmedAt)],
  ];
  for (const [k, v] of facts) {
    w.text(k, MARGIN, { color: MUTED });
    w.text(v, MARGIN + 110, {
      width: CONTENT_WIDTH - 110,
      font: k === "Ref." ? w.mono : w.font,
      size: k === "Ref." ? 7.5 : 9,
    });
    w.down(12);
  }

  // The signature block, kept together on one page.
  w.ensure(130);
  w.down(14);
  w.rule(ACCENT, 1);
  w.text(t.signatureTitle, MARGIN, { size: 11, font: w.bold, color: ACCENT });
  w.down(14);
  w.text(t.signatureText, MARGIN, { size: 8, width: CONTENT_WIDTH });
  w.down(12);
  for (const part of w.wrap(`GET ${ctx.verifyUrl}`, w.mono, 7, CONTENT_WIDTH)) {
    w.text(part, MARGIN, { size: 7, font: w.mono });
    w.down(9);
  }
  w.down(5);
  const mono = (label: string, value: string) => {
    w.text(label, MARGIN, { color: MUTED, size: 8 });
    w.text(value, MARGIN + 90, { size: 7, font: w.mono, width: CONTENT_WIDTH - 90 });
    w.down(11);
  };
  mono(t.digest, signed.digest);
  mono(t.signature, signed.signature.slice(0, 64));
  mono("", signed.signature.slice(64));
  mono(`${t.publicKey} (Ed25519)`, ctx.publicKey);
  await w.doc.attach(new TextEncoder().encode(signed.canonical), "invoice.json", {
    mimeType: "application/json",
    description: "Signed content of this invoice (canonical JSON)",
    creationDate: new Date(content.issuedAt),
    modificationDate: new Date(content.issuedAt),
  });
  w.doc.setKeywords([`signature:${signed.signature}`, `sha256:${signed.digest}`]);
  return await w.finish(
    `${printable(content.seller.name)} - ${t.invoiceTitle} ${content.number}`,
    t.page,
    t.of,
  );
}
