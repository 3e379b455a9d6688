// What the PDFs print: French and English labels, amounts and dates written the reader's way, and text
// made printable in the standard Helvetica font (WinAnsi): a character it cannot show becomes "?", so a
// customer's name in any script never breaks a document (the signed data keeps the original text).

export type Lang = "fr" | "en";

/** `lang` (fr or en) wins; else the first of Accept-Language's languages we have; else French. */
export function chooseLang(query: string | undefined, acceptLanguage: string | undefined): Lang {
  const q = query?.trim().toLowerCase();
  if (q === "fr" || q === "en") return q;
  const ranked = (acceptLanguage ?? "").split(",").map((part, i) => {
    const [tag, ...params] = part.trim().toLowerCase().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = qParam ? Number(qParam.slice(2)) : 1;
    return { base: tag.split("-")[0], weight: Number.isFinite(weight) ? weight : 0, i };
  }).filter((t) => t.weight > 0).sort((a, b) => b.weight - a.weight || a.i - b.i);
  for (const t of ranked) if (t.base === "fr" || t.base === "en") return t.base;
  return "fr";
}

// WinAnsi (Windows-1252) beyond Latin-1: the characters Helvetica can draw in 0x80-0x9F.
const CP1252_EXTRA = "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ";
const EXTRA = new Set([...CP1252_EXTRA].map((c) => c.codePointAt(0)!));

/** Text Helvetica can draw: controls become spaces, other characters it lacks "?"; at most `max` characters. */
export function printable(value: string | null | undefined, max = 200): string {
  if (!value) return "";
  let out = "";
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x202f || cp === 0x2009 || cp === 0x00a0) out += " ";
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += " ";
    else if (cp <= 0xff || EXTRA.has(cp)) out += ch;
    else out += "?";
    if (out.length >= max) return out.slice(0, max - 1) + "…";
  }
  return out;
}

/** An exact decimal string written as the reader expects: 1 234 567,50 (fr) or 1,234,567.50 (en). */
export function formatMoney(amount: string, lang: Lang): string {
  const negative = amount.startsWith("-");
  const [int, frac] = (negative ? amount.slice(1) : amount).split(".");
  const group = lang === "fr" ? " " : ",";
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  const text = frac ? `${grouped}${lang === "fr" ? "," : "."}${frac}` : grouped;
  return negative ? `-${text}` : text;
}

export const CURRENCY_LABEL: Record<string, string> = { USDT_TRC20: "USDT", XOF: "XOF" };

/** A date-time in UTC, to the minute: 2026-11-26 10:25 UTC. */
export function formatInstant(iso: string | Date): string {
  const text = (iso instanceof Date ? iso : new Date(iso)).toISOString();
  return `${text.slice(0, 10)} ${text.slice(11, 16)} UTC`;
}

const LABELS = {
  fr: {
    statementTitle: "Relevé de compte",
    merchant: "Marchand",
    period: "Période",
    currency: "Devise",
    mode: "Mode",
    live: "Production",
    sandbox: "Bac à sable (test)",
    generated: "Établi le",
    opening: "Solde d'ouverture",
    closing: "Solde de clôture",
    ledger: "Solde du grand livre à la fin de la période",
    reconciled: "rapproché",
    summary: "Résumé",
    payinGross: "Encaissements (brut)",
    deposits: "Dépôts",
    fees: "Frais de service",
    networkFees: "Frais de réseau",
    payouts: "Paiements sortants",
    withdrawals: "Retraits",
    refunds: "Remboursements (sorties annulées)",
    conversionsOut: "Conversions (débit)",
    conversionsIn: "Conversions (crédit)",
    bulk: "Paiements groupés",
    customerRefunds: "Remboursements aux clients",
    disputes: "Litiges (retenues et levées)",
    other: "Autres mouvements",
    movements: "Mouvements",
    date: "Date",
    type: "Type",
    reference: "Référence",
    gross: "Brut",
    feeCol: "Frais",
    net: "Net",
    balance: "Solde",
    noMovement: "Aucun mouvement sur la période.",
    page: "Page",
    of: "sur",
    wallets: "Portefeuilles",
    invoiceTitle: "Facture",
    invoiceNumber: "Facture n°",
    issued: "Date de paiement",
    billedTo: "Client",
    seller: "Vendeur",
    description: "Désignation",
    quantity: "Qté",
    unitPrice: "Prix unitaire",
    lineTotal: "Montant",
    subtotal: "Sous-total",
    discount: "Remise",
    total: "Total",
    paidWith: "Payé par",
    amountPaid: "Montant reçu",
    rate: "Taux appliqué",
    transaction: "Transaction",
    paid: "PAYÉE",
    signatureTitle: "Authenticité",
    signatureText:
      "Cette facture est signée (Ed25519) sur son contenu canonique, joint au PDF (invoice.json). Pour la vérifier :",
    digest: "Empreinte SHA-256",
    signature: "Signature",
    publicKey: "Clé publique",
    payment: "Paiement",
  },
  en: {
    statementTitle: "Account statement",
    merchant: "Merchant",
    period: "Period",
    currency: "Currency",
    mode: "Mode",
    live: "Live",
    sandbox: "Sandbox (test)",
    generated: "Generated",
    opening: "Opening balance",
    closing: "Closing balance",
    ledger: "Ledger balance at the end of the period",
    reconciled: "reconciled",
    summary: "Summary",
    payinGross: "Pay-ins (gross)",
    deposits: "Deposits",
    fees: "Service fees",
    networkFees: "Network fees",
    payouts: "Payouts",
    withdrawals: "Withdrawals",
    refunds: "Refunds (returned money out)",
    conversionsOut: "Conversions (debit)",
    conversionsIn: "Conversions (credit)",
    bulk: "Bulk payments",
    customerRefunds: "Refunds to customers",
    disputes: "Disputes (held and released)",
    other: "Other movements",
    movements: "Movements",
    date: "Date",
    type: "Type",
    reference: "Reference",
    gross: "Gross",
    feeCol: "Fees",
    net: "Net",
    balance: "Balance",
    noMovement: "No movement in the period.",
    page: "Page",
    of: "of",
    wallets: "Wallets",
    invoiceTitle: "Invoice",
    invoiceNumber: "Invoice no.",
    issued: "Paid on",
    billedTo: "Billed to",
    seller: "Seller",
    description: "Description",
    quantity: "Qty",
    unitPrice: "Unit price",
    lineTotal: "Amount",
    subtotal: "Subtotal",
    discount: "Discount",
    total: "Total",
    paidWith: "Paid with",
    amountPaid: "Amount received",
    rate: "Rate applied",
    transaction: "Transaction",
    paid: "PAID",
    signatureTitle: "Authenticity",
    signatureText:
      "This invoice is signed (Ed25519) over its canonical content, attached to the PDF (invoice.json). To verify it:",
    digest: "SHA-256 digest",
    signature: "Signature",
    publicKey: "Public key",
    payment: "Payment",
  },
} as const;

export type Labels = { [K in keyof typeof LABELS.fr]: string };

export function labels(lang: Lang): Labels {
  return LABELS[lang];
}

const TYPE_LABELS: Record<Lang, Record<string, string>> = {
  fr: {
    PAYIN: "Encaissement",
    DEPOSIT: "Dépôt",
    PAYOUT: "Paiement sortant",
    WITHDRAWAL: "Retrait",
    PAYOUT_REFUND: "Remb. paiement",
    WITHDRAWAL_REFUND: "Remb. retrait",
    CONVERSION_OUT: "Conversion (débit)",
    CONVERSION_IN: "Conversion (crédit)",
    BULK_ITEM: "Paiement groupé",
    BULK_DEBIT: "Paiement groupé",
    BULK_REFUND: "Remb. groupé",
    CUSTOMER_REFUND: "Remb. client",
    DISPUTE: "Litige",
    OTHER: "Autre",
  },
  en: {
    PAYIN: "Pay-in",
    DEPOSIT: "Deposit",
    PAYOUT: "Payout",
    WITHDRAWAL: "Withdrawal",
    PAYOUT_REFUND: "Payout refund",
    WITHDRAWAL_REFUND: "Withdrawal refund",
    CONVERSION_OUT: "Conversion (out)",
    CONVERSION_IN: "Conversion (in)",
    BULK_ITEM: "Bulk item",
    BULK_DEBIT: "Bulk payment",
    BULK_REFUND: "Bulk refund",
    CUSTOMER_REFUND: "Customer refund",
    DISPUTE: "Dispute",
    OTHER: "Other",
  },
};

export function typeLabel(type: string, lang: Lang): string {
  return TYPE_LABELS[lang][type] ?? type;
}

const METHOD_LABELS: Record<Lang, Record<string, string>> = {
  fr: { USDT_TRC20: "USDT (TRON)", CARD: "Carte bancaire", MOBILE_MONEY: "Mobile money" },
  en: { USDT_TRC20: "USDT (TRON)", CARD: "Bank card", MOBILE_MONEY: "Mobile money" },
};

export function methodLabel(method: string, lang: Lang): string {
  return METHOD_LABELS[lang][method] ?? method;
}
