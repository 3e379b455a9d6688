// Bulk payments through the API: creation, JSON items and file imports (every bad row listed with its
// line, hostile files refused with a clear code, nothing stored half), templates, validate with its
// balance check, cancel with no balance impact, execute debiting once under 50 concurrent calls, and
// another merchant's batch staying invisible.
import ExcelJS from "exceljs";
import { assert, assertEquals } from "../assert.ts";
import { batchOf, createBatch, csvOf, upload, whitelistMany, XLSX, xlsxOf } from "../bulk_helpers.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditUsdt, inFlight, randomTronAddress, usdtBalance } from "../money_out_helpers.ts";

const HEADER = ["walletAddress", "amount", "recipientName", "reference"];

async function setup() {
  const gw = await startTestGateway();
  const m = await gw.createMerchant("Bulk Shop");
  await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 100_000 } });
  const key = m.keys.liveSecret;
  const addresses = await whitelistMany(gw, key, 5);
  return { gw, m, key, addresses };
}

async function run(fn: (ctx: Awaited<ReturnType<typeof setup>>) => Promise<void>) {
  const ctx = await setup();
  try {
    await fn(ctx);
  } finally {
    await ctx.gw.close();
  }
}

const itemCount = async (gw: TestGateway, key: string, id: string) => (await batchOf(gw, key, id)).itemCount;

Deno.test("bulk: JSON items, validate with balance check and total fee, cancel moves nothing", () =>
  run(async ({ gw, m, key, addresses }) => {
    const id = await createBatch(gw, key, "USDT_TRC20");
    const created = await batchOf(gw, key, id);
    assertEquals([created.status, created.rail, created.currency, created.itemCount], [
      "DRAFT",
      "USDT_TRC20",
      "USDT_TRC20",
      0,
    ]);
    const add = await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
      key,
      body: {
        items: [
          { walletAddress: addresses[0], amount: "10", recipientName: "Awa" },
          { walletAddress: addresses[1], amount: "20.5", reference: "inv-7" },
        ],
      },
    });
    assertEquals(add.status, 200);
    assertEquals(add.json.data.itemCount, 2);

    // Short: the live ledger is empty.
    const short = await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key });
    assertEquals([short.status, short.json.error.code], [400, "INSUFFICIENT_BALANCE"]);
    assertEquals((await batchOf(gw, key, id)).status, "DRAFT");

    await creditUsdt(gw, m.merchantId, false, "100");
    const valid = await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key });
    assertEquals(valid.status, 200);
    assertEquals(valid.json.data.status, "VALIDATED");
    assertEquals(valid.json.data.totalFee, "2.000000"); // 1.00 flat per payout, two items
    assertEquals(valid.json.data.balanceCheck, {
      sufficient: true,
      required: "32.500000",
      available: "100.000000",
    });
    assertEquals(await usdtBalance(gw, m.merchantId, false), "100.000000"); // nothing reserved

    // Items go only into a DRAFT.
    const late = await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
      key,
      body: { items: [{ walletAddress: addresses[2], amount: "10" }] },
    });
    assertEquals([late.status, late.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);

    const cancel = await gw.request("POST", `/v1/bulk-payments/${id}/cancel`, { key });
    assertEquals([cancel.status, cancel.json.data.status, cancel.json.data.counts.cancelled], [
      200,
      "CANCELLED",
      2,
    ]);
    assertEquals(await usdtBalance(gw, m.merchantId, false), "100.000000");
    assertEquals(await inFlight(gw, false), "0.000000");
    const again = await gw.request("POST", `/v1/bulk-payments/${id}/cancel`, { key });
    assertEquals([again.status, again.json.error.code], [400, "CANNOT_CANCEL"]);
    const exec = await gw.request("POST", `/v1/bulk-payments/${id}/execute`, { key });
    assertEquals([exec.status, exec.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
  }));

Deno.test("bulk: sandbox validate skips the balance check; mobile money items name the operator", () =>
  run(async ({ gw, m }) => {
    const key = m.keys.testSecret;
    const id = await createBatch(gw, key, "MOBILE_MONEY");
    const add = await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
      key,
      body: {
        items: [
          { walletAddress: "+22670123456", amount: "15000" },
          { walletAddress: "+22605123456", amount: "1000" },
        ],
      },
    });
    assertEquals(add.status, 200);
    const valid = await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key });
    assertEquals(valid.status, 200);
    // 2 % mobile money fee, rounded up to the franc: 300 + 20.
    assertEquals(valid.json.data.balanceCheck, { sandbox: true, skipped: true, required: "16320" });
    assertEquals(valid.json.data.totalFee, "320");
    const batch = await batchOf(gw, key, id);
    assertEquals(batch.items.map((i: { operator: string }) => i.operator), [
      "OPERATOR_B_BF",
      "OPERATOR_A_BF",
    ]);

    const bad = await gw.request(
      "POST",
      `/v1/bulk-payments/${await createBatch(gw, key, "MOBILE_MONEY")}/items`,
      {
        key,
        body: {
          items: [
            { walletAddress: "+2267012345", amount: "1000" }, // 7 digits
            { walletAddress: "+22699123456", amount: "1000" }, // no operator has 99
            { walletAddress: "+22670123456", amount: "10.5" }, // XOF has no decimals
            { walletAddress: "+22670123456", amount: "100" }, // below 500
            { walletAddress: "+33612345678", amount: "1000" }, // not Burkina Faso
          ],
        },
      },
    );
    assertEquals([bad.status, bad.json.error.code], [400, "IMPORT_VALIDATION_FAILED"]);
    assertEquals(bad.json.error.details.map((d: { field: string }) => d.field), [
      "items.0.walletAddress",
      "items.1.walletAddress",
      "items.2.amount",
      "items.3.amount",
      "items.4.walletAddress",
    ]);
  }));

Deno.test("bulk: a CSV with bad rows lists every one with its line and stores nothing", () =>
  run(async ({ gw, key, addresses }) => {
    const id = await createBatch(gw, key, "USDT_TRC20");
    const notListed = randomTronAddress();
    const file = csvOf([
      HEADER,
      [addresses[0], "10", "Awa", "r1"], // line 2: fine
      ["Tnotanaddress", "10", "", ""], // line 3
      [addresses[1], "4.99", "", ""], // line 4: below the minimum
      [notListed, "10", "", ""], // line 5: not whitelisted
      [addresses[2], "1.1234567", "", ""], // line 6: 7 decimals
      [addresses[3], "12", "x".repeat(101), ""], // line 7: name too long
      [addresses[4], "", "", ""], // line 8: amount missing
    ]);
    const res = await upload(gw, key, id, file, "items.csv", "text/csv");
    assertEquals([res.status, res.json.error.code], [400, "IMPORT_VALIDATION_FAILED"]);
    const details = res.json.error.details.map((d: { line: number; field: string }) => [d.line, d.field]);
    assertEquals(details, [
      [3, "walletAddress"],
      [4, "amount"],
      [6, "amount"],
      [7, "recipientName"],
      [8, "amount"],
      [5, "walletAddress"],
    ]);
    assertEquals(await itemCount(gw, key, id), 0);

    const good = csvOf([HEADER, [addresses[0], "10", "Awa", "r1"], [addresses[1], "5", "", ""]]);
    const ok = await upload(gw, key, id, good, "items.csv", "text/csv");
    assertEquals([ok.status, ok.json.data.itemCount], [200, 2]);
    // The raw body works too (curl --data-binary), and appends.
    const raw = await gw.app.request(`/v1/bulk-payments/${id}/import`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "text/csv" },
      body: csvOf([HEADER, [addresses[2], "7", "", ""]]) as Uint8Array<ArrayBuffer>,
    });
    assertEquals(raw.status, 200, await raw.clone().text());
    const batch = await batchOf(gw, key, id);
    assertEquals(batch.items.map((i: { position: number; amount: string }) => [i.position, i.amount]), [
      [1, "10.000000"],
      [2, "5.000000"],
      [3, "7.000000"],
    ]);
  }));

Deno.test("bulk: hostile files each get a clear code naming the row or field, nothing stored", () =>
  run(async ({ gw, key, addresses }) => {
    const id = await createBatch(gw, key, "USDT_TRC20");
    const refuse = async (bytes: Uint8Array, name: string, code: string, expect?: RegExp) => {
      const res = await upload(gw, key, id, bytes, name);
      assertEquals([res.status, res.json.error.code], [
        code === "LIMIT_EXCEEDED_BULK_BATCH" ? 403 : 400,
        code,
      ], name);
      if (expect) assert(expect.test(JSON.stringify(res.json.error)), `${name}: ${res.text}`);
      return res.json.error;
    };
    // A binary file named .csv (a PNG header and NUL bytes; then bytes that are not UTF-8).
    await refuse(
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      "items.csv",
      "IMPORT_VALIDATION_FAILED",
      /"field":"file"/,
    );
    await refuse(
      new Uint8Array([0xff, 0xfe, 0x41, 0xc3, 0x28]),
      "items.csv",
      "IMPORT_VALIDATION_FAILED",
      /UTF-8/,
    );
    // A ZIP that is no workbook.
    await refuse(
      new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5]),
      "items.xlsx",
      "IMPORT_VALIDATION_FAILED",
      /not a readable XLSX/,
    );
    // Wrong columns.
    const wrong = await refuse(
      csvOf([["address_wallet", "sum", "iban"], ["x", "1", "y"]]),
      "items.csv",
      "IMPORT_VALIDATION_FAILED",
    );
    assert(wrong.details.some((d: { reason: string }) => /unknown column "iban"/.test(d.reason)));
    assert(wrong.details.some((d: { reason: string }) => /missing column amount/.test(d.reason)));
    // Formulas are never evaluated: refused with their line.
    const formulas = await refuse(
      await xlsxOf([HEADER, [addresses[0], 10, null, null], [
        addresses[1],
        { formula: "B2*1000" },
        null,
        null,
      ]]),
      "items.xlsx",
      "IMPORT_VALIDATION_FAILED",
    );
    assertEquals(formulas.details, [{
      field: "column 2",
      line: 3,
      reason: "line 3: a formula (formulas are not evaluated: paste the values)",
    }]);
    // 10,000 rows.
    const many = Array.from({ length: 10_000 }, () => [addresses[0], "5", "", ""]);
    await refuse(csvOf([HEADER, ...many]), "items.csv", "LIMIT_EXCEEDED_BULK_BATCH", /more than 1000 rows/);
    await refuse(
      await xlsxOf([HEADER, ...many]),
      "items.xlsx",
      "LIMIT_EXCEEDED_BULK_BATCH",
      /more than 1000 rows/,
    );
    // A huge cell.
    const huge = await refuse(
      csvOf([HEADER, [addresses[0], "5", "z".repeat(50_000), ""]]),
      "items.csv",
      "IMPORT_VALIDATION_FAILED",
    );
    assertEquals(huge.details[0].line, 2);
    assertEquals(huge.details[0].field, "recipientName");
    // A header only, an empty file, no file field.
    await refuse(csvOf([HEADER]), "items.csv", "IMPORT_VALIDATION_FAILED", /no rows/);
    await refuse(new Uint8Array(), "items.csv", "IMPORT_VALIDATION_FAILED", /empty/);
    const noFile = await gw.app.request(`/v1/bulk-payments/${id}/import`, {
      method: "POST",
      headers: { "x-api-key": key },
      body: new FormData(),
    });
    assertEquals(noFile.status, 400);
    // A NUL byte inside an otherwise fine CSV: binary, refused as a whole (text columns cannot hold it).
    await refuse(
      csvOf([HEADER, [addresses[0], "5", "a\u0000b", ""]]),
      "items.csv",
      "IMPORT_VALIDATION_FAILED",
      /binary/,
    );
    // A control character in a name is refused for that field.
    const ctl = await refuse(
      csvOf([HEADER, [addresses[0], "5", "a\u0007b", "ok"]]),
      "items.csv",
      "IMPORT_VALIDATION_FAILED",
    );
    assertEquals(ctl.details.map((d: { field: string; line: number }) => [d.line, d.field]), [[
      2,
      "recipientName",
    ]]);
    assertEquals(await itemCount(gw, key, id), 0);
  }));

Deno.test("bulk: templates per rail are real spreadsheets that import back", () =>
  run(async ({ gw, key, addresses }) => {
    for (const rail of ["USDT_TRC20", "MOBILE_MONEY"]) {
      const res = await gw.app.request(`/v1/bulk-payments/template?rail=${rail}`, {
        headers: { "x-api-key": key },
      });
      assertEquals([res.status, res.headers.get("content-type")], [200, XLSX]);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(await res.arrayBuffer());
      assertEquals((workbook.worksheets[0].getRow(1).values as unknown[]).slice(1), HEADER);
      const csv = await gw.app.request(`/v1/bulk-payments/template?rail=${rail}&format=csv`, {
        headers: { "x-api-key": key },
      });
      assertEquals(await csv.text(), `${HEADER.join(",")}\n`);
    }
    // Fill the USDT template's first sheet and import it.
    const res = await gw.app.request(`/v1/bulk-payments/template?rail=USDT_TRC20`, {
      headers: { "x-api-key": key },
    });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await res.arrayBuffer());
    workbook.worksheets[0].addRow([addresses[0], 12.5, "Awa", "nov"]);
    const id = await createBatch(gw, key, "USDT_TRC20");
    const filled = new Uint8Array(await workbook.xlsx.writeBuffer());
    const imported = await upload(gw, key, id, filled, "filled.xlsx", XLSX);
    assertEquals([imported.status, imported.json.data.itemCount], [200, 1]);
    const bad = await gw.request("GET", "/v1/bulk-payments/template?rail=CARD", { key });
    assertEquals([bad.status, bad.json.error.code], [400, "VALIDATION_ERROR"]);
  }));

Deno.test("bulk: 50 concurrent executes debit once; another merchant sees nothing", () =>
  run(async ({ gw, m, key, addresses }) => {
    await creditUsdt(gw, m.merchantId, false, "1000");
    const id = await createBatch(gw, key, "USDT_TRC20");
    await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
      key,
      body: { items: addresses.map((walletAddress, i) => ({ walletAddress, amount: `${10 + i}.25` })) },
    });
    const early = await gw.request("POST", `/v1/bulk-payments/${id}/execute`, { key });
    assertEquals([early.status, early.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]); // not validated
    assertEquals((await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key })).status, 200);

    const other = await gw.createMerchant("Other");
    for (const path of ["", "/export"]) {
      const res = await gw.request("GET", `/v1/bulk-payments/${id}${path}`, { key: other.keys.liveSecret });
      assertEquals(res.status, 404);
    }
    const foreign = await gw.request("POST", `/v1/bulk-payments/${id}/execute`, {
      key: other.keys.liveSecret,
    });
    assertEquals(foreign.status, 404);

    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        gw.request("POST", `/v1/bulk-payments/${id}/execute`, {
          key,
          // Half share one Idempotency-Key, half send none.
          headers: i % 2 === 0 ? { "idempotency-key": "7d1f6f0e-8f55-4b8e-9a43-6d0d2c1c0a11" } : {},
        })),
    );
    const statuses = results.map((r) => r.status);
    assert(statuses.every((s) => s !== 500), JSON.stringify(statuses));
    const accepted = results.filter((r) =>
      r.status === 202 && r.headers.get("idempotent-replayed") !== "true"
    );
    assertEquals(accepted.length, 1);
    for (const r of results.filter((r) => r.status !== 202)) {
      assert(["INVALID_TRANSACTION_STATUS", "CONFLICT"].includes(r.json.error.code), r.text);
    }
    // 10.25 + 11.25 + 12.25 + 13.25 + 14.25 = 61.25, plus 5 x 1.00 fee.
    assertEquals(await usdtBalance(gw, m.merchantId, false), "933.750000");
    assertEquals(await inFlight(gw, false), "66.250000");
    const journals = await gw.db.query("SELECT reference FROM journals WHERE reference LIKE 'bulk:%'");
    assertEquals(journals.length, 1);
    const batch = await batchOf(gw, key, id);
    assertEquals([batch.status, batch.counts.queued, batch.totalDebited], ["PROCESSING", 5, "66.250000"]);
    const cancel = await gw.request("POST", `/v1/bulk-payments/${id}/cancel`, { key });
    assertEquals([cancel.status, cancel.json.error.code], [400, "CANNOT_CANCEL"]);
  }));
