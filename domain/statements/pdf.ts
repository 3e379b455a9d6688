// The statement as a PDF, made synchronously for a bounded period: one section per currency (header,
// summary that adds up from the opening to the closing balance, the ledger's balance beside it, then
// every movement with its running balance). French or English.
import { findMerchant } from "../../db/merchants.ts";
import type { Deps } from "../deps.ts";
import { type Currency, Decimal, formatAmount } from "../money.ts";
import { ACCENT, type Column, CONTENT_WIDTH, MARGIN, MUTED, PdfWriter } from "../pdf/doc.ts";
import {
  CURRENCY_LABEL,
  formatInstant,
  formatMoney,
  labels,
  type Lang,
  printable,
  typeLabel,
} from "../pdf/text.ts";
import { parsePeriod } from "./period.ts";
import { type BalanceStatement, balanceStatement, type StatementTotals } from "./statement.ts";

/** The synchronous PDF covers at most a quarter; longer periods go through the CSV export job. */
export const PDF_MAX_DAYS = 93;
/** Movements per currency the synchronous PDF holds at most (about 80 pages). */
export const PDF_MAX_MOVEMENTS = 4000;

export type StatementPdfInput = {
  merchantId: string;
  isSandbox: boolean;
  from?: string;
  to?: string;
  currency?: Currency;
  lang: Lang;
};

export async function statementPdf(
  deps: Pick<Deps, "db" | "clock">,
  input: StatementPdfInput,
): Promise<{ bytes: Uint8Array; filename: string; statements: BalanceStatement[] }> {
  const period = parsePeriod(input, {
    maxDays: PDF_MAX_DAYS,
    tooLongCause: "RANGE_TOO_LARGE_FOR_PDF",
    tooLongHint: "use the CSV export (GET /v1/transactions/export) for longer periods",
  });
  const currencies: Currency[] = input.currency ? [input.currency] : ["USDT_TRC20", "XOF"];
  const statements: BalanceStatement[] = [];
  for (const currency of currencies) {
    statements.push(
      await balanceStatement(deps, {
        merchantId: input.merchantId,
        mode: input.isSandbox ? "sandbox" : "live",
        currency,
        ...period,
        maxDays: PDF_MAX_DAYS,
        maxMovements: PDF_MAX_MOVEMENTS,
      }),
    );
  }
  const merchant = await findMerchant(deps.db, input.merchantId);
  const bytes = await renderStatementPdf(statements, {
    merchantName: merchant?.display_name ?? merchant?.name ?? input.merchantId,
    lang: input.lang,
  });
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return { bytes, filename: `statement-${day(period.from)}-${day(period.to)}.pdf`, statements };
}

const SUMMARY_ROWS: Array<keyof StatementTotals> = [
  "payinGross",
  "deposits",
  "fees",
  "networkFees",
  "payouts",
  "withdrawals",
  "refunds",
  "conversionsOut",
  "conversionsIn",
  "bulk",
  "customerRefunds",
  "disputes",
  "other",
];

const COLUMNS: Column[] = [
  { width: 60 },
  { width: 66 },
  { width: 145 },
  { width: 60, align: "right" },
  { width: 48, align: "right" },
  { width: 60, align: "right" },
  { width: CONTENT_WIDTH - 439, align: "right" },
];

export async function renderStatementPdf(
  statements: BalanceStatement[],
  ctx: { merchantName: string; lang: Lang },
): Promise<Uint8Array> {
  const t = labels(ctx.lang);
  const first = statements[0];
  const w = await PdfWriter.create({
    title: `${t.statementTitle} ${first.from.slice(0, 10)} - ${first.to.slice(0, 10)}`,
    subject: ctx.merchantName,
    date: new Date(first.generatedAt),
  });
  const money = (v: string) => formatMoney(v, ctx.lang);
  statements.forEach((s, index) => {
    if (index > 0) w.addPage();
    w.onNewPage = undefined;
    const cur = CURRENCY_LABEL[s.currency];
    w.text(`${t.statementTitle} - ${cur}`, MARGIN, { size: 18, font: w.bold, color: ACCENT });
    w.down(22);
    const facts: Array<[string, string]> = [
      [t.merchant, `${ctx.merchantName} (${s.merchantId})`],
      [t.period, `${formatInstant(s.from)} -> ${formatInstant(s.to)}`],
      [t.currency, `${cur} (${s.wallets.map((x) => x.rail).join(", ")})`],
      [t.mode, s.mode === "live" ? t.live : t.sandbox],
      [t.generated, formatInstant(s.generatedAt)],
    ];
    for (const [k, v] of facts) {
      w.text(k, MARGIN, { color: MUTED });
      w.text(v, MARGIN + 90, { width: CONTENT_WIDTH - 90 });
      w.down(12);
    }
    w.down(8);
    w.text(t.summary, MARGIN, { size: 11, font: w.bold });
    w.down(16);
    const summary: Column[] = [{ width: 260 }, { width: 120, align: "right" }];
    w.row([t.opening, `${money(s.openingBalance)} ${cur}`], summary, { font: w.bold });
    for (const name of SUMMARY_ROWS) {
      if (s.totals[name].replace(/[-0.]/g, "") === "") continue; // nothing of that kind
      w.row([t[name], money(s.totals[name])], summary);
    }
    w.rule();
    w.row([t.closing, `${money(s.closingBalance)} ${cur}`], summary, { font: w.bold });
    const reconciled = s.closingBalance === s.ledgerBalance ? ` (${t.reconciled})` : "";
    w.row([t.ledger, `${money(s.ledgerBalance)} ${cur}${reconciled}`], [{ width: 260 }, {
      width: 160,
      align: "right",
    }], {
      color: MUTED,
      size: 8,
    });
    w.down(10);
    w.text(`${t.movements} (${s.lines.length})`, MARGIN, { size: 11, font: w.bold });
    w.down(16);
    const header = () => {
      w.row([t.date, t.type, t.reference, t.gross, t.feeCol, t.net, t.balance], COLUMNS, {
        font: w.bold,
        size: 8,
      });
      w.rule();
    };
    header();
    w.onNewPage = header;
    if (s.lines.length === 0) w.row([t.noMovement], [{ width: CONTENT_WIDTH }], { color: MUTED });
    for (const l of s.lines) {
      const allFees = new Decimal(l.fee).plus(l.networkFee);
      const fees = allFees.isZero() ? "" : money(formatAmount(allFees, s.currency));
      w.row(
        [
          formatInstant(l.at).replace(" UTC", ""),
          typeLabel(l.type, ctx.lang),
          printable([l.sourceId, l.externalRef].filter(Boolean).join(" / ") || l.reference),
          money(l.gross),
          fees,
          money(l.amount),
          money(l.balanceAfter),
        ],
        COLUMNS,
        { size: 7, height: 11 },
      );
    }
  });
  return await w.finish(
    `${ctx.merchantName} - ${t.statementTitle} ${first.from.slice(0, 10)} / ${first.to.slice(0, 10)} (UTC)`,
    t.page,
    t.of,
  );
}
