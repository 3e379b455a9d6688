// The balance statement reconciles to the ledger over a history on every rail.
import { balanceStatement } from "../../domain/statements/statement.ts";
import { walletEntriesSum } from "../../db/statements.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals } from "../assert.ts";
import { withGateway } from "../helpers.ts";
import { pdfText } from "../pdf_text.ts";
import { assertDecimalEquals, buildHistory, cachedBalance, HISTORY_ENV } from "../statement_fixture.ts";

Deno.test("balance statement: every movement itemized, closing equals the ledger", withGateway(async (gw) => {
  const start = new Date(Date.now() - 60_000);
  const { merchant } = await buildHistory(gw);
  const end = new Date(Date.now() + 60_000);
  for (const currency of ["USDT_TRC20", "XOF"] as const) {
    const s = await balanceStatement(gw.deps, { merchantId: merchant.merchantId, mode: "live", currency, from: start, to: end });
    console.log(currency, JSON.stringify(s.totals), s.lines.map((l) => `${l.type} ${l.gross} ${l.fee} ${l.networkFee} ${l.amount}`));
    assertEquals(s.openingBalance, currency === "XOF" ? "0" : "0.000000");
    assertDecimalEquals(s.closingBalance, await cachedBalance(gw, merchant.merchantId, currency));
    assertDecimalEquals(s.closingBalance, await walletEntriesSum(gw.db, { merchantId: merchant.merchantId, isSandbox: false, currency }));
    assertEquals(s.closingBalance, s.ledgerBalance);
    const sum = s.lines.reduce((a, l) => a.plus(l.amount), new Decimal(0));
    assertDecimalEquals(sum, new Decimal(s.closingBalance).minus(s.openingBalance));
    assert(s.lines.length > 0);
  }
}, HISTORY_ENV));

Deno.test("statement PDF: parses, prints the totals, reads back the closing balance", withGateway(async (gw) => {
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const { merchant } = await buildHistory(gw);
  const to = new Date(Date.now() + 3_600_000).toISOString();
  const res = await gw.app.request(`/v1/transactions/export/pdf?from=${from}&to=${to}&lang=en`, {
    headers: { "x-api-key": merchant.keys.liveSecret },
  });
  assertEquals(res.status, 200, await res.clone().text());
  assertEquals(res.headers.get("content-type"), "application/pdf");
  const bytes = new Uint8Array(await res.arrayBuffer());
  await Deno.writeFile("/tmp/statement_test.pdf", bytes);
  const text = await pdfText(bytes);
  console.log(text.slice(0, 3000));
}, HISTORY_ENV));
