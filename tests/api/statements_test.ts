// The balance statement reconciles to the ledger over a history on every rail.
import { balanceStatement } from "../../domain/statements/statement.ts";
import { walletEntriesSum } from "../../db/statements.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals } from "../assert.ts";
import { withGateway } from "../helpers.ts";
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
