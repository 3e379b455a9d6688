// The balance statement reconciles to the ledger over a history on every rail.
import { balanceStatement } from "../../domain/statements/statement.ts";
import { walletEntriesSum } from "../../db/statements.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { withGateway } from "../helpers.ts";
import { pdfText } from "../pdf_text.ts";
import { assertDecimalEquals, buildHistory, cachedBalance, HISTORY_ENV } from "../statement_fixture.ts";

Deno.test(
  "balance statement: every movement itemized, closing equals the ledger",
  withGateway(async (gw) => {
    const start = new Date(Date.now() - 60_000);
    const { merchant } = await buildHistory(gw);
    const end = new Date(Date.now() + 60_000);
    for (const currency of ["USDT_TRC20", "XOF"] as const) {
      const s = await balanceStatement(gw.deps, {
        merchantId: merchant.merchantId,
        mode: "live",
        currency,
        from: start,
        to: end,
      });
      assertEquals(s.openingBalance, currency === "XOF" ? "0" : "0.000000");
      assertDecimalEquals(s.closingBalance, await cachedBalance(gw, merchant.merchantId, currency));
      assertDecimalEquals(
        s.closingBalance,
        await walletEntriesSum(gw.db, { merchantId: merchant.merchantId, isSandbox: false, currency }),
      );
      assertEquals(s.closingBalance, s.ledgerBalance);
      const sum = s.lines.reduce((a, l) => a.plus(l.amount), new Decimal(0));
      assertDecimalEquals(sum, new Decimal(s.closingBalance).minus(s.openingBalance));
      assert(s.lines.length > 0);
    }
  }, HISTORY_ENV),
);

Deno.test(
  "statement PDF: parses, prints the totals, reads back the closing balance",
  withGateway(async (gw) => {
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
    // The closing balance printed is the ledger's, in both currencies (English grouping).
    for (const currency of ["USDT_TRC20", "XOF"] as const) {
      const balance = await cachedBalance(gw, merchant.merchantId, currency);
      const printed = currency === "XOF"
        ? `${balance.toFixed(0).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} XOF`
        : `${balance.toFixed(6).replace(/\B(?=(\d{3})+(?=\.))/g, ",")} USDT`;
      assertMatch(text, new RegExp(`Closing balance\n${printed.replace(".", "\\.")}\n`));
      assertMatch(
        text,
        new RegExp(
          `Ledger balance at the end of the period\n${printed.replace(".", "\\.")} \\(reconciled\\)`,
        ),
      );
    }
    for (
      const word of [
        "Pay-in",
        "Payout",
        "Payout refund",
        "Withdrawal",
        "Conversion (in)",
        "Bulk item",
        "Network fees",
      ]
    ) {
      assert(text.includes(word), `the statement lacks ${word}`);
    }
  }, HISTORY_ENV),
);

Deno.test(
  "statement: consecutive periods chain (closing of one = opening of the next)",
  withGateway(async (gw) => {
    const start = new Date(Date.now() - 60_000);
    const { merchant } = await buildHistory(gw);
    const end = new Date(Date.now() + 60_000);
    const times = await gw.db.query<{ t: Date }>(
      "SELECT DISTINCT created_at AS t FROM journals WHERE merchant_id = $1 ORDER BY 1",
      [merchant.merchantId],
    );
    assert(times.length >= 6);
    const q = { merchantId: merchant.merchantId, mode: "live" as const };
    for (const currency of ["USDT_TRC20", "XOF"] as const) {
      for (const cut of [times[2].t, times[5].t, times[times.length - 1].t]) {
        const a = await balanceStatement(gw.deps, { ...q, currency, from: start, to: new Date(cut) });
        const b = await balanceStatement(gw.deps, { ...q, currency, from: new Date(cut), to: end });
        assertEquals(a.closingBalance, b.openingBalance);
        assertEquals(a.closingBalance, a.ledgerBalance);
        assertDecimalEquals(b.closingBalance, await cachedBalance(gw, merchant.merchantId, currency));
        assertEquals(
          a.lines.length + b.lines.length,
          (await balanceStatement(gw.deps, { ...q, currency, from: start, to: end })).lines.length,
        );
      }
    }
    // Another merchant's statement over the same period holds none of these movements.
    const other = await gw.createMerchant("Other");
    const theirs = await balanceStatement(gw.deps, {
      merchantId: other.merchantId,
      mode: "live",
      currency: "USDT_TRC20",
      from: start,
      to: end,
    });
    assertEquals([theirs.lines.length, theirs.closingBalance], [0, "0.000000"]);
    // The sandbox ledger is another ledger.
    const sandbox = await balanceStatement(gw.deps, {
      ...q,
      mode: "sandbox",
      currency: "USDT_TRC20",
      from: start,
      to: end,
    });
    assertEquals(sandbox.lines.length, 0);
  }, HISTORY_ENV),
);

Deno.test(
  "statement PDF: bad periods and keys answer clear codes",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Boutique");
    const key = m.keys.liveSecret;
    const cases: Array<[string, number, string, string?]> = [
      ["", 400, "VALIDATION_ERROR"],
      ["?from=2026-01-01", 400, "VALIDATION_ERROR"],
      ["?to=2026-01-01", 400, "VALIDATION_ERROR"],
      ["?from=2026-02-01&to=2026-01-01", 400, "VALIDATION_ERROR"],
      ["?from=2026-01-01&to=2026-01-01", 400, "VALIDATION_ERROR"],
      ["?from=2025-01-01&to=2026-01-01", 400, "VALIDATION_ERROR", "RANGE_TOO_LARGE_FOR_PDF"],
      ["?from=2026-01-01&to=2026-04-04T00:00:01Z", 400, "VALIDATION_ERROR", "RANGE_TOO_LARGE_FOR_PDF"],
      ["?from=2026-02-31&to=2026-03-10", 400, "VALIDATION_ERROR"],
      ["?from=yesterday&to=2026-03-10", 400, "VALIDATION_ERROR"],
      ["?from=2026-01-01T10:00:00&to=2026-03-10", 400, "VALIDATION_ERROR"], // no zone
      ["?from=2026-01-01%00&to=2026-03-10", 400, "VALIDATION_ERROR"],
      [`?from=${"9".repeat(5000)}&to=2026-03-10`, 400, "VALIDATION_ERROR"],
      ["?from=2026-01-01&to=2026-02-01&currency=EUR", 400, "VALIDATION_ERROR"],
      ["?from=2026-01-01&to=2026-02-01&lang=de", 400, "VALIDATION_ERROR"],
    ];
    for (const [query, status, code, cause] of cases) {
      const res = await gw.request("GET", `/v1/transactions/export/pdf${query}`, { key });
      assertEquals([res.status, res.json?.error?.code], [status, code], query.slice(0, 80));
      if (cause) assertEquals(res.json.error.cause, cause);
    }
    const ok = await gw.app.request(
      "/v1/transactions/export/pdf?from=2026-01-01&to=2026-04-03&currency=XOF",
      {
        headers: { "x-api-key": key },
      },
    );
    assertEquals(ok.status, 200); // exactly 92 days: fine, and an empty period is a valid statement
    const text = await pdfText(new Uint8Array(await ok.arrayBuffer()));
    assert(text.includes("Aucun mouvement sur la période."), text); // French by default
    for (
      const [k, status] of [[m.keys.livePublishable, 403], ["svc_live_sk_" + "x".repeat(30), 401]] as const
    ) {
      const res = await gw.request("GET", "/v1/transactions/export/pdf?from=2026-01-01&to=2026-02-01", {
        key: k,
      });
      assertEquals(res.status, status);
    }
  }),
);

Deno.test(
  "statement: the opening balance at any cut equals the ledger's entries before it, near the start or near now",
  withGateway(async (gw) => {
    const start = new Date(Date.now() - 60_000);
    const { merchant } = await buildHistory(gw);
    const end = new Date(Date.now() + 60_000);
    // Every entry carries its journal's time (migration 037): what the statement's sums read.
    const [{ n }] = await gw.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM entries e JOIN journals j ON j.id = e.journal_id
        WHERE e.created_at IS DISTINCT FROM j.created_at`,
    );
    assertEquals(n, 0);
    const times = await gw.db.query<{ t: Date }>(
      "SELECT DISTINCT created_at AS t FROM journals WHERE merchant_id = $1 ORDER BY 1",
      [merchant.merchantId],
    );
    // A cut just after the first journal is summed from before it, one just before the last from now back.
    const cuts = [new Date(times[1].t), new Date(times[times.length - 1].t), new Date(times[3].t)];
    for (const currency of ["USDT_TRC20", "XOF"] as const) {
      for (const cut of cuts) {
        // The oracle: the wallets' entries of journals booked before the cut, by the journals' own time.
        const [{ s }] = await gw.db.query<{ s: string }>(
          `SELECT COALESCE(sum(e.amount), 0)::text AS s FROM entries e
             JOIN journals j ON j.id = e.journal_id JOIN accounts a ON a.id = e.account_id
            WHERE a.merchant_id = $1 AND NOT a.is_sandbox AND a.kind = 'WALLET' AND a.currency = $2
              AND j.created_at < $3`,
          [merchant.merchantId, currency, cut],
        );
        const q = { merchantId: merchant.merchantId, mode: "live" as const, currency };
        const after = await balanceStatement(gw.deps, { ...q, from: cut, to: end });
        assertDecimalEquals(after.openingBalance, new Decimal(s));
        assertDecimalEquals(after.closingBalance, await cachedBalance(gw, merchant.merchantId, currency));
        const before = await balanceStatement(gw.deps, { ...q, from: start, to: cut });
        assertEquals(before.ledgerBalance, after.openingBalance);
      }
    }
  }, HISTORY_ENV),
);
