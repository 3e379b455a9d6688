// Pay-in creation under a burst on an EMPTY address pool (a fresh server): every request is created, each
// with its own address, derived from indexes nobody else derived; the pool refill is asked for on the
// queue and runs safely twice at once.
import { Buffer } from "node:buffer";
import jsQR from "jsqr";
import { PNG } from "pngjs";
import { countFree } from "../../db/deposit_addresses.ts";
import { ACCOUNT_INDEX, fillAddressPool } from "../../domain/address_pool.ts";
import { updateMerchantSettings } from "../../domain/merchants.ts";
import { dispatchJob } from "../../jobs/mod.ts";
import { createDeriver } from "../../rails/tron/hd.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

const decodeQr = jsQR as unknown as (d: Uint8ClampedArray, w: number, h: number) => { data: string } | null;

function qrText(dataUrl: string): string | undefined {
  const png = PNG.sync.read(Buffer.from(dataUrl.slice("data:image/png;base64,".length), "base64"));
  return decodeQr(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

Deno.test("pay-in creation on an empty address pool", async (t) => {
  const gw = await startTestGateway();
  const m = await gw.createMerchant("Burst");
  // The operator lifts the merchant's limits: this test is about addresses, not the 429.
  await updateMerchantSettings(gw.deps, m.merchantId, {
    rateLimits: { "POST /v1/payments": 10_000, default: 10_000 },
  });
  const create = () => gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body: { amount: "10" } });
  const live = createDeriver(gw.deps.config.tron.mnemonic!, ACCOUNT_INDEX.live);

  try {
    await t.step("50 concurrent creations all answer 201, each with its own address", async () => {
      assertEquals((await countFree(gw.db, false)).free, 0);
      const answers = await Promise.all(Array.from({ length: 50 }, create));
      assertEquals(answers.map((a) => a.status), answers.map(() => 201));
      const addresses = new Set(answers.map((a) => a.json.data.address as string));
      assertEquals(addresses.size, 50);
      // Each address is the BIP44 address of the index recorded beside it, and no index was used twice.
      const rows = await gw.db.query<{ address: string; derivation_index: number; payin_id: string }>(
        "SELECT address, derivation_index, payin_id FROM deposit_addresses WHERE NOT is_sandbox",
      );
      const byAddress = new Map(rows.map((r) => [r.address, r]));
      for (const a of answers) {
        const row = byAddress.get(a.json.data.address)!;
        assertEquals(row.payin_id, a.json.data.transactionId);
        assertEquals(live.derive(row.derivation_index).address, row.address);
      }
      assertEquals(new Set(rows.map((r) => r.derivation_index)).size, rows.length);
    });

    await t.step("the QR code handed back decodes to the pay-in's address", async () => {
      const res = await create();
      assertEquals(res.status, 201);
      assertEquals(qrText(res.json.data.qrCodeUrl), res.json.data.address);
      // Drawn for the answer, never stored in the pool (migration 015): its rows stay small.
      const stored = await gw.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM deposit_addresses WHERE qr_png IS NOT NULL",
      );
      assertEquals(stored[0].n, 0);
    });

    await t.step("an empty or low pool asks for a refill on the queue", () => {
      const refills = gw.enqueued.filter((e) => e.message.type === "address-pool.refill");
      assert(refills.length >= 1, "no refill requested");
      assertEquals(refills[0].message, { type: "address-pool.refill", isSandbox: false });
    });

    await t.step("two refills at once fill the pool without deriving any index twice", async () => {
      const message = { type: "address-pool.refill" as const, isSandbox: false };
      await Promise.all([dispatchJob(message, gw.deps), dispatchJob(message, gw.deps)]);
      const { free, nextIndex } = await countFree(gw.db, false);
      const target = gw.deps.config.addressPoolSize;
      assert(free >= target, `free ${free} < target ${target}`);
      // No index derived twice; the few reserved but unused ones (this process's spare range) are gaps.
      const [{ rows, distinct }] = await gw.db.query<{ rows: number; distinct: number }>(
        `SELECT count(*)::int AS rows, count(DISTINCT derivation_index)::int AS distinct
           FROM deposit_addresses WHERE account_index = $1`,
        [ACCOUNT_INDEX.live],
      );
      assertEquals(distinct, rows);
      assert(nextIndex - rows < 16, `${nextIndex - rows} indexes unused`);
      for (
        const r of await gw.db.query<{ address: string; derivation_index: number }>(
          "SELECT address, derivation_index FROM deposit_addresses WHERE NOT is_sandbox AND payin_id IS NULL",
        )
      ) assertEquals(live.derive(r.derivation_index).address, r.address);
    });

    await t.step("with a full pool, creation claims from it and derives nothing", async () => {
      const before = await countFree(gw.db, false);
      const res = await create();
      assertEquals(res.status, 201);
      const after = await countFree(gw.db, false);
      assertEquals(after.nextIndex, before.nextIndex);
      assertEquals(after.free, before.free - 1);
    });

    await t.step("a failed creation leaves its address free for the next one", async () => {
      const first = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        body: { amount: "10", externalRef: "order-1" },
      });
      assertEquals(first.status, 201);
      const duplicate = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        body: { amount: "10", externalRef: "order-1" },
      });
      assertEquals(duplicate.json.error.code, "DUPLICATE_EXTERNAL_REF");
      const [{ unclaimedGap }] = await gw.db.query<{ unclaimedGap: number }>(
        `SELECT count(*)::int AS "unclaimedGap" FROM deposit_addresses
          WHERE NOT is_sandbox AND payin_id IS NULL
            AND derivation_index < (SELECT max(derivation_index) FROM deposit_addresses WHERE payin_id IS NOT NULL)`,
      );
      const next = await create();
      assertEquals(next.status, 201);
      const [{ after }] = await gw.db.query<{ after: number }>(
        `SELECT count(*)::int AS after FROM deposit_addresses
          WHERE NOT is_sandbox AND payin_id IS NULL
            AND derivation_index < (SELECT max(derivation_index) FROM deposit_addresses WHERE payin_id IS NOT NULL)`,
      );
      assert(
        after <= unclaimedGap,
        `the refused creation's address was skipped (${unclaimedGap} -> ${after})`,
      );
    });

    await t.step("the database refuses a second pay-in on a claimed address", async () => {
      const [row] = await gw.db.query<{ id: string; address: string; merchant_id: string }>(
        "SELECT id, address, merchant_id FROM payins WHERE address IS NOT NULL LIMIT 1",
      );
      let refused = "";
      try {
        await gw.db.query(
          `INSERT INTO payins (id, merchant_id, is_sandbox, payment_method, status, currency, amount,
             amount_expected, address, expires_at)
           VALUES ('pay_twin', $1, false, 'USDT_TRC20', 'AWAITING_PAYMENT', 'USDT_TRC20', 10, 11.5, $2, now())`,
          [row.merchant_id, row.address],
        );
      } catch (err) {
        refused = String(err);
      }
      assert(refused.includes("already claimed"), refused);
      const owner = await gw.db.query<{ payin_id: string }>(
        "SELECT payin_id FROM deposit_addresses WHERE address = $1",
        [row.address],
      );
      assertEquals(owner[0].payin_id, row.id);
    });

    await t.step("a full pool is left alone by the refill", async () => {
      await fillAddressPool(gw.deps, { isSandbox: false });
      assertEquals(await fillAddressPool(gw.deps, { isSandbox: false }), 0);
    });
  } finally {
    await gw.close();
  }
});

Deno.test("a pay-in answer under 1 KB goes out plain even to a gzip client; a large list is still gzipped", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Small answers");
    await updateMerchantSettings(gw.deps, m.merchantId, { rateLimits: { "POST /v1/payments": 1_000 } });
    const headers = {
      "content-type": "application/json",
      "x-api-key": m.keys.liveSecret,
      "accept-encoding": "gzip, deflate, br",
    };
    const created = await gw.app.request("/v1/payments", {
      method: "POST",
      headers,
      body: JSON.stringify({ amount: "10" }),
    });
    assertEquals(created.status, 201);
    assertEquals(created.headers.get("content-encoding"), null);
    const text = await created.text();
    assertEquals(Number(created.headers.get("content-length")), new TextEncoder().encode(text).length);
    assert(text.length < 1024, `${text.length} bytes`);
    const payin = JSON.parse(text).data;
    assertEquals(qrText(payin.qrCodeUrl), payin.address);
    for (let i = 0; i < 9; i++) {
      const more = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        body: { amount: "10" },
      });
      assertEquals(more.status, 201);
    }
    const list = await gw.app.request("/v1/payments?limit=10", { headers });
    assertEquals([list.status, list.headers.get("content-encoding")], [200, "gzip"]);
    const plain = await gw.app.request("/v1/payments?limit=10", {
      headers: { "x-api-key": m.keys.liveSecret },
    });
    const unzipped = await new Response(list.body!.pipeThrough(new DecompressionStream("gzip"))).json();
    assertEquals(unzipped.data.items.length, 10);
    assertEquals(unzipped, await plain.json());
  } finally {
    await gw.close();
  }
});
