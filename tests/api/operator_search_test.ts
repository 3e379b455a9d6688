// The operator's reads (issue 22): merchants listed and searched; any pay-in, payout, withdrawal,
// conversion, bulk item or sweep found by id, transaction hash, externalRef, provider reference, customer
// e-mail or phone, recipient or address; hostile queries answered cleanly.
import { assert, assertEquals } from "../assert.ts";
import { withGateway } from "../helpers.ts";
import { creditUsdt, idem, randomTronAddress, whitelist } from "../money_out_helpers.ts";
import { OPERATOR_TEST_ENV, operatorClient } from "../operator_helpers.ts";

type Found = { type: string; id: string; matched: string; merchantId: string | null };

Deno.test("merchants: list, search by id or name (LIKE characters are plain), filters, pages", async () => {
  await withGateway(async (gw) => {
    const ouaga = await gw.createMerchant("Boutique Ouaga");
    await gw.createMerchant("Café Bobo", "PENDING");
    await gw.createMerchant("100% Coton");
    const viewer = await operatorClient(gw, "viewer");
    const list = async (query: string) => (await viewer.call("GET", `/admin/api/merchants${query}`)).json;
    const names = (body: { data: { items: Array<{ name: string }> } }) => body.data.items.map((m) => m.name);
    assertEquals(names(await list("")), ["100% Coton", "Café Bobo", "Boutique Ouaga"]);
    assertEquals(names(await list("?q=ouaga")), ["Boutique Ouaga"]);
    assertEquals(names(await list(`?q=${ouaga.merchantId}`)), ["Boutique Ouaga"]);
    assertEquals(names(await list("?q=%25")), ["100% Coton"]);
    assertEquals(names(await list("?q=_")), []);
    assertEquals(names(await list("?kybStatus=PENDING")), ["Café Bobo"]);
    const paged = await list("?limit=2&page=2");
    assertEquals([names(paged), paged.data.meta.total, paged.data.meta.hasPrev], [
      ["Boutique Ouaga"],
      3,
      true,
    ]);
    for (const bad of ["?status=NOPE", "?limit=1000", "?q=%00", `?q=${"x".repeat(300)}`]) {
      const res = await viewer.call("GET", `/admin/api/merchants${bad}`);
      assertEquals([res.status, res.json.error.code], [400, "VALIDATION_ERROR"], bad);
    }
    assertEquals((await gw.request("GET", "/admin/api/merchants")).status, 401);
    assertEquals(
      (await gw.request("GET", "/admin/api/merchants", { key: ouaga.keys.liveSecret })).status,
      401,
    );
  }, { env: OPERATOR_TEST_ENV })();
});

Deno.test("search finds every kind of record by its references", async () => {
  await withGateway(async (gw) => {
    const m = await gw.createMerchant("Searchable");
    const key = m.keys.liveSecret;
    const viewer = await operatorClient(gw, "viewer");
    const search = async (q: string) =>
      (await viewer.call("GET", `/admin/api/search?q=${encodeURIComponent(q)}`)).json.data.items as Found[];

    const usdt = await gw.request("POST", "/v1/payments", {
      key,
      body: { amount: "10", externalRef: "order-42" },
    });
    assertEquals(usdt.status, 201, usdt.text);
    const usdtId = usdt.json.data.transactionId as string;
    await gw.db.query("UPDATE payins SET tx_hash = $2 WHERE id = $1", [usdtId, "ab".repeat(32)]);
    const momo = await gw.request("POST", "/v1/payments", {
      key,
      body: {
        amount: "5000",
        paymentMethod: "MOBILE_MONEY",
        customerPhone: "+22670123456",
        customerEmail: "Awa@Example.com",
      },
    });
    assertEquals(momo.status, 201, momo.text);
    const momoId = momo.json.data.transactionId as string;

    await creditUsdt(gw, m.merchantId, false, "1000");
    const dest = randomTronAddress();
    await whitelist(gw, key, dest, ["PAYOUT", "WITHDRAWAL"]);
    const payout = await gw.request("POST", "/v1/payout", {
      key,
      body: { amount: "20", destinationAddress: dest, externalRef: "supplier-7" },
      headers: idem(),
    });
    assertEquals(payout.status, 201, payout.text);
    const payoutId = payout.json.data.transactionId as string;
    const withdrawal = await gw.request("POST", "/v1/withdrawals", {
      key,
      body: { amount: "30" },
      headers: idem(),
    });
    const withdrawalId = withdrawal.json.data.id as string;
    const batch = await gw.request("POST", "/v1/bulk-payments", { key, body: { label: "salaries" } });
    const batchId = batch.json.data.id as string;
    const items = await gw.request("POST", `/v1/bulk-payments/${batchId}/items`, {
      key,
      body: { items: [{ walletAddress: dest, amount: "5", reference: "salary-awa" }] },
    });
    assertEquals(items.status, 200, items.text);
    const bulkItemId = (await gw.db.query<{ id: string }>("SELECT id FROM bulk_items WHERE batch_id = $1", [
      batchId,
    ]))[0].id;
    const sweepAddress = randomTronAddress();
    await gw.db.query(
      `INSERT INTO sweeps (id, address, account_index, derivation_index, units, method, steps, status, tx_ids,
         created_at, updated_at) VALUES ('swp_01m8bs0t1s5jf9eftm3bxdbwmg', $1, 0, 7, 12000000, 'DELEGATE',
         '{DELEGATE}', 'DONE', $2, now(), now())`,
      [sweepAddress, ["cd".repeat(32)]],
    );

    const hit = async (q: string, type: string, id: string, matched: string) => {
      const found = await search(q);
      const one = found.find((f) => f.type === type && f.id === id);
      assert(one, `${q}: ${JSON.stringify(found)}`);
      assertEquals(one.matched, matched, q);
    };
    await hit(usdtId, "PAYIN", usdtId, "id");
    await hit("order-42", "PAYIN", usdtId, "externalRef");
    await hit("ab".repeat(32), "PAYIN", usdtId, "txHash");
    await hit("awa@example.COM", "PAYIN", momoId, "customerEmail");
    await hit("+22670123456", "PAYIN", momoId, "customerPhone");
    await hit("22670123456", "PAYIN", momoId, "customerPhone");
    await hit("supplier-7", "PAYOUT", payoutId, "externalRef");
    await hit(withdrawalId, "WITHDRAWAL", withdrawalId, "id");
    await hit(dest, "PAYOUT", payoutId, "destination");
    await hit(dest, "WITHDRAWAL", withdrawalId, "destination");
    await hit(dest, "BULK_ITEM", bulkItemId, "recipient");
    await hit("salary-awa", "BULK_ITEM", bulkItemId, "reference");
    await hit("cd".repeat(32), "SWEEP", "swp_01m8bs0t1s5jf9eftm3bxdbwmg", "txHash");
    await hit(sweepAddress, "SWEEP", "swp_01m8bs0t1s5jf9eftm3bxdbwmg", "address");
    // Issue 22 (migration 055): the provider references, a sweep's current step and a phone number as a
    // recipient, each through its own index now, answer as before.
    await gw.db.query("UPDATE outbound_transfers SET provider_ref = 'mm-out-77' WHERE id = $1", [payoutId]);
    await gw.db.query("UPDATE payins SET provider_ref = 'mm-in-42' WHERE id = $1", [momoId]);
    await gw.db.query("UPDATE outbound_transfers SET destination_address = '+22670999888' WHERE id = $1", [
      withdrawalId,
    ]);
    await gw.db.query("UPDATE sweeps SET step_tx_id = $1 WHERE id = 'swp_01m8bs0t1s5jf9eftm3bxdbwmg'", [
      "ef".repeat(32),
    ]);
    await hit("mm-out-77", "PAYOUT", payoutId, "providerRef");
    await hit("mm-in-42", "PAYIN", momoId, "providerRef");
    await hit("226 70 99 98 88", "WITHDRAWAL", withdrawalId, "destination");
    await hit("ef".repeat(32), "SWEEP", "swp_01m8bs0t1s5jf9eftm3bxdbwmg", "txHash");
    assertEquals((await search("mm-out-7")).length, 0, "a provider reference is matched whole");
    assertEquals(await search("nothing-like-this"), []);
    for (const bad of ["ab", "%00abc", "x".repeat(201), "", "abc&q=def"]) {
      const res = await viewer.call("GET", `/admin/api/search?q=${bad}`);
      assertEquals([res.status, res.json.error.code], [400, "VALIDATION_ERROR"], bad);
    }
    assertEquals((await viewer.call("GET", "/admin/api/search?q=%25%25%25")).json.data.items, []);
    assertEquals((await gw.request("GET", "/admin/api/search?q=order-42", { key })).status, 401);
  }, { env: OPERATOR_TEST_ENV })();
});
