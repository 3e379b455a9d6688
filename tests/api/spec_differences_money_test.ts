// Answers that differed from the specification on the money-out side (issue 19): a repeated payout
// externalRef, the sandbox reset with money out in it, /v1/transfers under the payout limit, the
// Idempotency-Key checked before any domain work, the bulk item limit's code, and the default bulk rail.
import { findWallet } from "../../db/ledger.ts";
import { manualClock } from "../../domain/clock.ts";
import { newId } from "../../domain/ids.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals } from "../assert.ts";
import { csvOf, upload, XLSX } from "../bulk_helpers.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import {
  creditUsdt,
  creditWallet,
  eventTypes,
  idem,
  inFlight,
  randomTronAddress,
  usdtBalance,
  whitelist,
} from "../money_out_helpers.ts";

async function count(gw: TestGateway, sql: string, params: unknown[]): Promise<number> {
  return Number((await gw.db.query<{ n: string }>(sql, params))[0].n);
}

Deno.test("a repeated payout externalRef is 409 DUPLICATE_EXTERNAL_REF on both names, never a 500", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Ref Shop");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { "POST /v1/payout": 1000 },
    });
    await creditUsdt(gw, m.merchantId, false, "1000");
    const dest = randomTronAddress();
    await whitelist(gw, key, dest, ["PAYOUT"]);
    const pay = (path: string, externalRef: string) =>
      gw.request("POST", path, {
        key,
        headers: idem(),
        body: { amount: "10", destinationAddress: dest, externalRef },
      });

    await t.step("the second use of a reference is refused on /v1/payout and /v1/transfers", async () => {
      const first = await pay("/v1/payout", "inv-2026-001");
      assertEquals(first.status, 201, first.text);
      const debited = new Decimal(10).plus(first.json.data.processingFee);
      for (const path of ["/v1/payout", "/v1/transfers"]) {
        const again = await pay(path, "inv-2026-001");
        assertEquals([again.status, again.json.error.code], [409, "DUPLICATE_EXTERNAL_REF"], path);
      }
      assertEquals(await usdtBalance(gw, m.merchantId, false), new Decimal(1000).minus(debited).toFixed(6));
      assertEquals(await inFlight(gw, false), debited.toFixed(6));
      // Another merchant may use the same reference.
      const other = await gw.createMerchant("Other Ref Shop");
      await creditUsdt(gw, other.merchantId, false, "100");
      await whitelist(gw, other.keys.liveSecret, dest, ["PAYOUT"]);
      const theirs = await gw.request("POST", "/v1/transfers", {
        key: other.keys.liveSecret,
        headers: idem(),
        body: { amount: "10", destinationAddress: dest, externalRef: "inv-2026-001" },
      });
      assertEquals(theirs.status, 201, theirs.text);
    });

    await t.step(
      "20 concurrent payouts with one reference and 20 keys: one 201, 19 409, paid once",
      async () => {
        const before = new Decimal(await usdtBalance(gw, m.merchantId, false));
        const inFlightBefore = new Decimal(await inFlight(gw, false));
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => pay(i % 2 ? "/v1/transfers" : "/v1/payout", "inv-2026-race")),
        );
        const statuses = answers.map((a) => a.status).sort();
        assertEquals(statuses, [201, ...Array(19).fill(409)]);
        for (const a of answers.filter((a) => a.status === 409)) {
          assertEquals(a.json.error.code, "DUPLICATE_EXTERNAL_REF");
        }
        const won = answers.find((a) => a.status === 201)!;
        const debited = new Decimal(10).plus(won.json.data.processingFee);
        assertEquals(await usdtBalance(gw, m.merchantId, false), before.minus(debited).toFixed(6));
        assertEquals(await inFlight(gw, false), inFlightBefore.plus(debited).toFixed(6));
        assertEquals(
          await count(
            gw,
            "SELECT count(*) AS n FROM outbound_transfers WHERE merchant_id = $1 AND external_ref = 'inv-2026-race'",
            [m.merchantId],
          ),
          1,
        );
      },
    );
  } finally {
    await gw.close();
  }
});

Deno.test("POST /v1/transfers and POST /v1/payout share one 10-a-minute limit", async () => {
  const clock = manualClock(new Date("2026-03-02T10:00:00.000Z"));
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Limit Shop");
    const key = m.keys.liveSecret;
    await creditUsdt(gw, m.merchantId, false, "500");
    const address = randomTronAddress();
    await whitelist(gw, key, address, ["PAYOUT"]);
    const pay = (path: string) =>
      gw.request("POST", path, { key, headers: idem(), body: { amount: "5", destinationAddress: address } });
    for (let i = 0; i < 10; i++) {
      const res = await pay(i < 5 ? "/v1/payout" : "/v1/transfers");
      assertEquals(res.status, 201, `payout ${i + 1}: ${res.text}`);
    }
    for (const path of ["/v1/transfers", "/v1/payout"]) {
      const res = await pay(path);
      assertEquals([res.status, res.json.error.code], [429, "RATE_LIMIT_EXCEEDED"], path);
    }
    clock.advance(60_000);
    assertEquals((await pay("/v1/transfers")).status, 201);
  } finally {
    await gw.close();
  }
});

Deno.test("the Idempotency-Key is checked before any domain work", async (t) => {
  const dir = await Deno.makeTempDir();
  const listed = randomTronAddress();
  await Deno.writeTextFile(`${dir}/blocked.txt`, `${listed}\n`);
  const gw = await startTestGateway({ env: { AML_BLOCKLIST_PATH: `${dir}/blocked.txt` } });
  try {
    const m = await gw.createMerchant("Key First Shop");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { "POST /v1/payout": 1000 },
    });
    await creditUsdt(gw, m.merchantId, false, "100");
    await whitelist(gw, key, listed, ["PAYOUT", "WITHDRAWAL"]);

    await t.step("payouts and withdrawals: no screening, no aml.flagged, before the key", async () => {
      const cases: Array<[string, unknown, Record<string, string>, string]> = [
        ["/v1/payout", { amount: "10", destinationAddress: listed }, {}, "MISSING_IDEMPOTENCY_KEY"],
        ["/v1/transfers", { amount: "10", destinationAddress: listed }, {}, "MISSING_IDEMPOTENCY_KEY"],
        [
          "/v1/payout",
          { amount: "10", destinationAddress: randomTronAddress() },
          {},
          "MISSING_IDEMPOTENCY_KEY",
        ],
        [
          "/v1/payout",
          { amount: "10", destinationAddress: listed },
          { "idempotency-key": "nope" },
          "IDEMPOTENCY_KEY_INVALID",
        ],
        ["/v1/withdrawals", { amount: "10" }, {}, "MISSING_IDEMPOTENCY_KEY"],
        ["/v1/withdrawals", { amount: "10" }, { "idempotency-key": "12345" }, "IDEMPOTENCY_KEY_INVALID"],
      ];
      for (const [path, body, headers, code] of cases) {
        const res = await gw.request("POST", path, { key, body, headers });
        assertEquals([res.status, res.json.error.code], [400, code], `${path} ${JSON.stringify(headers)}`);
      }
      assertEquals(await eventTypes(gw, m.merchantId), []);
      // With a key the screening runs and reports, as before.
      const screened = await gw.request("POST", "/v1/payout", {
        key,
        headers: idem(),
        body: { amount: "10", destinationAddress: listed },
      });
      assertEquals(screened.json.error.code, "AML_BLOCKED");
      assertEquals(await eventTypes(gw, m.merchantId), ["aml.flagged"]);
      assertEquals(await usdtBalance(gw, m.merchantId, false), "100.000000");
    });

    await t.step("an empty or malformed key on a conversion or a bulk execution moves nothing", async () => {
      const usdt = await findWallet(gw.db, m.merchantId, false, "USDT_TRC20", "TRC20");
      const momo = await findWallet(gw.db, m.merchantId, false, "XOF", "MOMO");
      for (const bad of ["", "not-a-uuid"]) {
        const res = await gw.request("POST", "/v1/conversions/wallet", {
          key,
          headers: { "idempotency-key": bad },
          body: { fromWalletId: usdt!.id, toWalletId: momo!.id, fromAmount: "10" },
        });
        assertEquals([res.status, res.json.error.code], [400, "IDEMPOTENCY_KEY_INVALID"], `"${bad}"`);
      }
      const dest = randomTronAddress();
      await whitelist(gw, key, dest, ["PAYOUT"]);
      const batch = await gw.request("POST", "/v1/bulk-payments", { key, body: { rail: "USDT_TRC20" } });
      const id = batch.json.data.id;
      await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
        key,
        body: { items: [{ walletAddress: dest, amount: "10" }] },
      });
      assertEquals((await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key })).status, 200);
      for (const bad of ["", "not-a-uuid"]) {
        const res = await gw.request("POST", `/v1/bulk-payments/${id}/execute`, {
          key,
          headers: { "idempotency-key": bad },
        });
        assertEquals([res.status, res.json.error.code], [400, "IDEMPOTENCY_KEY_INVALID"], `"${bad}"`);
      }
      const after = await gw.request("GET", `/v1/bulk-payments/${id}`, { key });
      assertEquals(after.json.data.status, "VALIDATED");
      assertEquals(await usdtBalance(gw, m.merchantId, false), "100.000000");
      // Sent properly, or not at all (the key is optional there), it runs.
      const run = await gw.request("POST", `/v1/bulk-payments/${id}/execute`, { key, headers: idem() });
      assertEquals(run.status, 202, run.text);
    });
  } finally {
    await gw.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bulk: over 1,000 items is LIMIT_EXCEEDED_BULK_BATCH (403) in one call or across calls", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Big Batch Shop");
    const key = m.keys.liveSecret;
    const id =
      (await gw.request("POST", "/v1/bulk-payments", { key, body: { rail: "USDT_TRC20" } })).json.data
        .id;
    const item = { walletAddress: randomTronAddress(), amount: "5" };
    const tooMany = await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
      key,
      body: { items: Array(1001).fill(item) },
    });
    assertEquals([tooMany.status, tooMany.json.error.code], [403, "LIMIT_EXCEEDED_BULK_BATCH"], tooMany.text);
    // The count decides even when the items are also wrong.
    const wrongAndMany = await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
      key,
      body: { items: Array(1001).fill({ walletAddress: 7 }) },
    });
    assertEquals([wrongAndMany.status, wrongAndMany.json.error.code], [403, "LIMIT_EXCEEDED_BULK_BATCH"]);
    // Wrong items within the limit stay a validation error naming the field.
    const wrong = await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
      key,
      body: { items: [{ walletAddress: 7 }] },
    });
    assertEquals([wrong.status, wrong.json.error.code], [400, "VALIDATION_ERROR"]);
    const header = ["walletAddress", "amount", "recipientName", "reference"];
    const file = csvOf([header, ...Array(1001).fill([item.walletAddress, "5", "", ""])]);
    const imported = await upload(gw, key, id, file, "items.csv", "text/csv");
    assertEquals([imported.status, imported.json.error.code], [403, "LIMIT_EXCEEDED_BULK_BATCH"]);
    assertEquals((await gw.request("GET", `/v1/bulk-payments/${id}`, { key })).json.data.itemCount, 0);
    const doc = await (await gw.app.request("/v1/openapi.json")).json();
    assertEquals(doc.components.schemas.AddBulkItems.properties.items.maxItems, 1000);
  } finally {
    await gw.close();
  }
});

Deno.test("bulk: a batch or template that names no rail is USDT_TRC20", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Default Rail Shop");
    const key = m.keys.liveSecret;
    for (const body of [{}, { label: "March suppliers" }]) {
      const res = await gw.request("POST", "/v1/bulk-payments", { key, body });
      assertEquals(res.status, 201, res.text);
      assertEquals([res.json.data.rail, res.json.data.currency], ["USDT_TRC20", "USDT_TRC20"]);
    }
    const bad = await gw.request("POST", "/v1/bulk-payments", { key, body: { rail: "CARD" } });
    assertEquals([bad.status, bad.json.error.code], [400, "VALIDATION_ERROR"]);
    const template = await gw.app.request("/v1/bulk-payments/template", { headers: { "x-api-key": key } });
    assertEquals(template.status, 200);
    assertEquals(template.headers.get("content-type"), XLSX);
    assertEquals(
      template.headers.get("content-disposition"),
      'attachment; filename="bulk-usdt-trc20-template.xlsx"',
    );
    await template.body?.cancel();
    const csv = await gw.app.request("/v1/bulk-payments/template?format=csv", {
      headers: { "x-api-key": key },
    });
    assert((await csv.text()).startsWith("walletAddress"));
    const doc = await (await gw.app.request("/v1/openapi.json")).json();
    assert(!(doc.components.schemas.CreateBulkPayment.required ?? []).includes("rail"));
    const query = doc.paths["/v1/bulk-payments/template"].get.parameters;
    assertEquals(query.find((p: { name: string }) => p.name === "rail").required ?? false, false);
  } finally {
    await gw.close();
  }
});

/** One merchant's money out in one mode: a payout, a withdrawal, a conversion, an executed bulk batch. */
async function moveMoneyOut(gw: TestGateway, merchantId: string, key: string, isSandbox: boolean) {
  await creditUsdt(gw, merchantId, isSandbox, "1000");
  await creditWallet(gw, merchantId, isSandbox, "CARD", "100000");
  const dest = randomTronAddress();
  await whitelist(gw, key, dest, ["PAYOUT", "WITHDRAWAL"]);
  const payout = await gw.request("POST", "/v1/payout", {
    key,
    headers: idem(),
    body: { amount: "10", destinationAddress: dest, externalRef: "ref-1" },
  });
  assertEquals(payout.status, 201, payout.text);
  const withdrawal = await gw.request("POST", "/v1/withdrawals", {
    key,
    headers: idem(),
    body: { amount: "20" },
  });
  assertEquals(withdrawal.status, 201, withdrawal.text);
  const usdt = await findWallet(gw.db, merchantId, isSandbox, "USDT_TRC20", "TRC20");
  const card = await findWallet(gw.db, merchantId, isSandbox, "XOF", "CARD");
  const conversion = await gw.request("POST", "/v1/conversions/wallet", {
    key,
    headers: idem(),
    body: { fromWalletId: card!.id, toWalletId: usdt!.id, fromAmount: "10000" },
  });
  assertEquals(conversion.status, 201, conversion.text);
  const batch = await gw.request("POST", "/v1/bulk-payments", {
    key,
    body: { rail: "USDT_TRC20", label: "salaries" },
  });
  const batchId = batch.json.data.id;
  await gw.request("POST", `/v1/bulk-payments/${batchId}/items`, {
    key,
    body: { items: [{ walletAddress: dest, amount: "5" }, { walletAddress: dest, amount: "6" }] },
  });
  assertEquals((await gw.request("POST", `/v1/bulk-payments/${batchId}/validate`, { key })).status, 200);
  const run = await gw.request("POST", `/v1/bulk-payments/${batchId}/execute`, { key, headers: idem() });
  assertEquals(run.status, 202, run.text);
  // A disbursement of an XOF withdrawal, as the fiat-out path records it.
  await gw.db.query(
    `INSERT INTO fiat_disbursements (id, reference, owner_kind, owner_id, merchant_id, is_sandbox, channel, amount,
                                     destination, status, created_at, updated_at)
     VALUES ($1, $1, 'WITHDRAWAL', $2, $3, $4, 'MOMO', 5000, '{}', 'QUEUED', now(), now())`,
    [newId("fdis"), withdrawal.json.data.transactionId ?? withdrawal.json.data.id, merchantId, isSandbox],
  );
}

const MONEY_OUT_TABLES = ["outbound_transfers", "bulk_batches", "conversions", "fiat_disbursements"];

async function moneyOutRows(gw: TestGateway, merchantId: string, isSandbox: boolean) {
  const counts: Record<string, number> = {};
  for (const table of MONEY_OUT_TABLES) {
    counts[table] = await count(
      gw,
      `SELECT count(*) AS n FROM ${table} WHERE merchant_id = $1 AND is_sandbox = $2`,
      [merchantId, isSandbox],
    );
  }
  counts.bulk_items = await count(
    gw,
    `SELECT count(*) AS n FROM bulk_items i JOIN bulk_batches b ON b.id = i.batch_id
      WHERE b.merchant_id = $1 AND b.is_sandbox = $2`,
    [merchantId, isSandbox],
  );
  return counts;
}

Deno.test("POST /v1/sandbox/reset wipes sandbox payouts, withdrawals, conversions, batches, disbursements", async (t) => {
  const gw = await startTestGateway();
  try {
    const a = await gw.createMerchant("Reset Shop");
    const b = await gw.createMerchant("Neighbour Shop");
    await moveMoneyOut(gw, a.merchantId, a.keys.testSecret, true);
    await moveMoneyOut(gw, a.merchantId, a.keys.liveSecret, false);
    await moveMoneyOut(gw, b.merchantId, b.keys.testSecret, true);
    const full = {
      outbound_transfers: 2,
      bulk_batches: 1,
      conversions: 1,
      fiat_disbursements: 1,
      bulk_items: 2,
    };
    assertEquals(await moneyOutRows(gw, a.merchantId, true), full);
    const aLiveBalance = await usdtBalance(gw, a.merchantId, false);
    const bSandboxBalance = await usdtBalance(gw, b.merchantId, true);

    await t.step("the reset answers 200 and counts what it deleted", async () => {
      const res = await gw.request("POST", "/v1/sandbox/reset", { key: a.keys.testSecret });
      assertEquals(res.status, 200, res.text);
      const d = res.json.data.deleted;
      assertEquals(
        [d.payoutsAndWithdrawals, d.bulkBatches, d.bulkItems, d.conversions, d.fiatDisbursements],
        [2, 1, 2, 1, 1],
      );
    });

    await t.step("A's sandbox is empty; A's live data and B's sandbox are untouched", async () => {
      const none = {
        outbound_transfers: 0,
        bulk_batches: 0,
        conversions: 0,
        fiat_disbursements: 0,
        bulk_items: 0,
      };
      assertEquals(await moneyOutRows(gw, a.merchantId, true), none);
      assertEquals(await moneyOutRows(gw, a.merchantId, false), full);
      assertEquals(await moneyOutRows(gw, b.merchantId, true), full);
      assertEquals(await usdtBalance(gw, a.merchantId, true), "0.000000");
      assertEquals(await usdtBalance(gw, a.merchantId, false), aLiveBalance);
      assertEquals(await usdtBalance(gw, b.merchantId, true), bSandboxBalance);
      const balances = await gw.request("GET", "/v1/wallets/balance", { key: a.keys.testSecret });
      assertEquals(balances.json.data.totals, { USDT_TRC20: "0.000000", XOF: "0" });
      for (const path of ["/v1/payout", "/v1/withdrawals", "/v1/conversions"]) {
        const list = await gw.request("GET", path, { key: a.keys.testSecret });
        assertEquals([list.status, list.json.data.items.length], [200, 0], path);
      }
      // Every wallet's cached balance still equals the sum of its entries.
      assertEquals(
        await count(
          gw,
          `SELECT count(*) AS n FROM accounts a
             LEFT JOIN (SELECT account_id, sum(amount) AS total FROM entries GROUP BY account_id) e
               ON e.account_id = a.id
            WHERE a.kind = 'WALLET' AND a.balance <> coalesce(e.total, 0)`,
          [],
        ),
        0,
      );
    });

    await t.step(
      "settings stay: the whitelist entries are still there, and the sandbox starts again",
      async () => {
        const entries = await gw.request("GET", "/v1/wallets/whitelist", { key: a.keys.testSecret });
        assertEquals(entries.json.data.items.length, 1);
        // The wiped payout's externalRef is free again; a second reset is harmless.
        assertEquals((await gw.request("POST", "/v1/sandbox/reset", { key: a.keys.testSecret })).status, 200);
        await creditUsdt(gw, a.merchantId, true, "50");
        const again = await gw.request("POST", "/v1/payout", {
          key: a.keys.testSecret,
          headers: idem(),
          body: {
            amount: "10",
            destinationAddress: entries.json.data.items[0].address,
            externalRef: "ref-1",
          },
        });
        assertEquals(again.status, 201, again.text);
      },
    );
  } finally {
    await gw.close();
  }
});
