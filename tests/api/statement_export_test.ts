// The itemized balance statement as an export job (GET /v1/transactions/export?form=balance_statement):
// per currency an opening row, every change with the balance after it, a closing row; the lines add up
// from the opening to the closing, the closing is the ledger's, and the lines are the statement's own,
// also when the file is written in pages of a few rows (a restart resumes mid-currency).
import { parse } from "csv-parse/sync";
import { walletEntriesSum } from "../../db/statements.ts";
import { runExportJob } from "../../domain/exports/run.ts";
import { Decimal } from "../../domain/money.ts";
import { balanceStatement } from "../../domain/statements/statement.ts";
import { assert, assertEquals } from "../assert.ts";
import { download, drainExports } from "../export_helpers.ts";
import { withGateway } from "../helpers.ts";
import { assertDecimalEquals, buildHistory, cachedBalance, HISTORY_ENV } from "../statement_fixture.ts";

type Line = Record<string, string>;

Deno.test(
  "itemized statement CSV: opening + every line = closing = the ledger, in pages or not",
  withGateway(async (gw) => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const { merchant } = await buildHistory(gw);
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const key = merchant.keys.liveSecret;
    const start = async (query: string) => {
      const res = await gw.request("GET", `/v1/transactions/export?from=${from}&to=${to}${query}`, { key });
      assertEquals(res.status, 202, res.text);
      return res.json.data.jobId as string;
    };
    const read = async (jobId: string) => {
      const status = await gw.request("GET", `/v1/exports/${jobId}/status`, { key });
      assertEquals([status.json.data.status, status.json.data.kind], ["COMPLETED", "BALANCE_STATEMENT_CSV"]);
      const { res, text } = await download(gw, key, jobId);
      assertEquals(res.status, 200);
      assert(res.headers.get("content-disposition")?.includes("balance_statement_"));
      return parse(text, { columns: true }) as Line[];
    };
    const whole = await start("&form=balance_statement");
    await drainExports(gw);
    const lines = await read(whole);
    // The same file written three rows at a time, as a job restarted at every page would write it.
    const paged = await start("&form=balance_statement&currency=USDT_TRC20");
    for (let guard = 0; guard < 1_000; guard++) {
      const outcome = await runExportJob(gw.deps, paged, { pageRows: 3, sliceMs: 0 });
      if (outcome === "COMPLETED") break;
      assertEquals(outcome, "CONTINUE");
    }
    gw.enqueued.length = 0;
    const pagedLines = await read(paged);
    // (The closing row is dated the job's end of period: capped at its creation, so the two differ there.)
    const usdt = lines.filter((l) => l.currency === "USDT_TRC20");
    const dated = (ls: Line[]) => ls.map((l) => l.type === "CLOSING_BALANCE" ? { ...l, at: "" } : l);
    assertEquals(dated(pagedLines), dated(usdt));

    for (const currency of ["USDT_TRC20", "XOF"] as const) {
      const mine = lines.filter((l) => l.currency === currency);
      assertEquals(mine[0].type, "OPENING_BALANCE");
      assertEquals(mine[mine.length - 1].type, "CLOSING_BALANCE");
      const changes = mine.slice(1, -1);
      let running = new Decimal(mine[0].balanceAfter);
      for (const l of changes) {
        // Each line: gross - fee - network fee is what moved, and the balance after follows.
        assertDecimalEquals(new Decimal(l.gross).minus(l.fee).minus(l.networkFee), new Decimal(l.amount));
        running = running.plus(l.amount);
        assertDecimalEquals(l.balanceAfter, running);
      }
      assertDecimalEquals(mine[mine.length - 1].balanceAfter, running);
      // The closing balance is the ledger's: its cached balance and the sum of its entries.
      assertDecimalEquals(running, await cachedBalance(gw, merchant.merchantId, currency));
      assertDecimalEquals(
        running,
        await walletEntriesSum(gw.db, { merchantId: merchant.merchantId, isSandbox: false, currency }),
      );
      // The lines are the statement's own, one for one.
      const s = await balanceStatement(gw.deps, {
        merchantId: merchant.merchantId,
        mode: "live",
        currency,
        from: new Date(from),
        to: new Date(new Date(to).getTime() + 1),
      });
      assertEquals(
        changes.map((
          l,
        ) => [l.type, l.journalId, l.sourceId, l.gross, l.fee, l.networkFee, l.amount, l.balanceAfter]),
        s.lines.map((
          l,
        ) => [l.type, l.journalId, l.sourceId ?? "", l.gross, l.fee, l.networkFee, l.amount, l.balanceAfter]),
      );
      assertEquals(mine[0].balanceAfter, s.openingBalance);
    }
    const types = new Set(lines.map((l) => l.type));
    for (
      const t of [
        "PAYIN",
        "PAYOUT",
        "PAYOUT_REFUND",
        "WITHDRAWAL",
        "CONVERSION_OUT",
        "CONVERSION_IN",
        "BULK_ITEM",
      ]
    ) {
      assert(types.has(t), `the file lacks a ${t} line`);
    }
    assert(lines.some((l) => l.networkFee !== "" && !new Decimal(l.networkFee).isZero()), "no network cost");

    // Bad input: an unknown form, a currency with the list form, another merchant's job.
    const bad = [
      [`&form=ledger`, "VALIDATION_ERROR"],
      [`&currency=XOF`, "VALIDATION_ERROR"],
      [`&form=balance_statement&currency=EUR`, "VALIDATION_ERROR"],
    ];
    for (const [query, code] of bad) {
      const res = await gw.request("GET", `/v1/transactions/export?from=${from}&to=${to}${query}`, { key });
      assertEquals([res.status, res.json.error.code], [400, code], query);
    }
    const other = await gw.createMerchant("Other");
    const theirs = await gw.request("GET", `/v1/exports/${whole}/status`, { key: other.keys.liveSecret });
    assertEquals(theirs.status, 404);
  }, HISTORY_ENV),
);
