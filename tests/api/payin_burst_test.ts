// Pay-in creation under a burst on an EMPTY address pool (a fresh server): every request is created, each
// with its own address, derived from indexes nobody else derived; the pool refills in the background and
// two processes sharing the database never derive the same index.
import { Buffer } from "node:buffer";
import jsQR from "jsqr";
import { PNG } from "pngjs";
import { nextIndex } from "../../db/deposit_addresses.ts";
import type { Db } from "../../db/mod.ts";
import {
  ACCOUNT_INDEX,
  addressPoolFree,
  addressPoolSettled,
  fillAddressPool,
  returnDepositAddress,
  takeDepositAddress,
} from "../../domain/payins/address_pool.ts";
import { updateMerchantSettings } from "../../domain/merchants/mod.ts";
import { createDeriver } from "../../rails/tron/hd.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

const decodeQr = jsQR as unknown as (d: Uint8ClampedArray, w: number, h: number) => { data: string } | null;

function qrText(dataUrl: string): string | undefined {
  const png = PNG.sync.read(Buffer.from(dataUrl.slice("data:image/png;base64,".length), "base64"));
  return decodeQr(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

type ClaimRow = { address: string; derivation_index: number; payin_id: string };

Deno.test("pay-in creation on an empty address pool", async (t) => {
  const gw = await startTestGateway();
  const m = await gw.createMerchant("Burst");
  // The operator lifts the merchant's limits: this test is about addresses, not the 429.
  await updateMerchantSettings(gw.deps, m.merchantId, {
    rateLimits: { "POST /v1/payments": 10_000, default: 10_000 },
  });
  const create = (body: Record<string, unknown> = { amount: "10" }) =>
    gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body });
  const live = createDeriver(gw.deps.config.tron.mnemonic!, ACCOUNT_INDEX.live);
  const claims = () =>
    gw.db.query<ClaimRow>(
      "SELECT address, derivation_index, payin_id FROM deposit_addresses WHERE NOT is_sandbox",
    );

  try {
    await t.step("50 concurrent creations all answer 201, each with its own address", async () => {
      assertEquals(addressPoolFree(gw.db).live, 0);
      assertEquals(await nextIndex(gw.db, ACCOUNT_INDEX.live), 0);
      const answers = await Promise.all(Array.from({ length: 50 }, () => create()));
      assertEquals(answers.map((a) => a.status), answers.map(() => 201));
      const addresses = new Set(answers.map((a) => a.json.data.address as string));
      assertEquals(addresses.size, 50);
      // Each address is the BIP44 address of the index recorded beside it, claimed by its pay-in.
      const byAddress = new Map((await claims()).map((r) => [r.address, r]));
      assertEquals(byAddress.size, 50);
      for (const a of answers) {
        const row = byAddress.get(a.json.data.address)!;
        assertEquals(row.payin_id, a.json.data.transactionId);
        assertEquals(live.derive(row.derivation_index).address, row.address);
      }
    });

    await t.step("the QR code handed back decodes to the pay-in's address", async () => {
      const res = await create();
      assertEquals(res.status, 201);
      assertEquals(qrText(res.json.data.qrCodeUrl), res.json.data.address);
      // Drawn for the answer, never stored.
      const stored = await gw.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM deposit_addresses WHERE qr_png IS NOT NULL",
      );
      assertEquals(stored[0].n, 0);
    });

    await t.step("the pool refills in the background from ranges this process reserved", async () => {
      await addressPoolSettled(gw.db);
      const target = gw.deps.config.addressPoolSize;
      // A refill starts only below half the target (the burst's last takes may come after one ended), so
      // the pool holds at least half; a take that drops it below half brings it back to the target.
      assert(addressPoolFree(gw.db).live >= target / 2, `${addressPoolFree(gw.db).live} < ${target / 2}`);
      const taken = [];
      while (addressPoolFree(gw.db).live >= target / 2) taken.push(await takeDepositAddress(gw.deps, false));
      await addressPoolSettled(gw.db);
      assert(addressPoolFree(gw.db).live >= target, `${addressPoolFree(gw.db).live} < ${target}`);
      // Handed back in order, so the next steps see the lowest free indexes first.
      for (const a of taken.reverse()) returnDepositAddress(gw.deps, false, a);
      // Nothing is written for an address until a pay-in claims it.
      const [{ n }] = await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM deposit_addresses");
      assertEquals(n, 51);
    });

    await t.step("with a full pool, creation reserves and derives nothing", async () => {
      const reserved = await nextIndex(gw.db, ACCOUNT_INDEX.live);
      const free = addressPoolFree(gw.db).live;
      const res = await create();
      assertEquals(res.status, 201);
      assertEquals(await nextIndex(gw.db, ACCOUNT_INDEX.live), reserved);
      assertEquals(addressPoolFree(gw.db).live, free - 1);
    });

    await t.step("a refused creation hands its address back for the next one", async () => {
      assertEquals((await create({ amount: "10", externalRef: "order-1" })).status, 201);
      const free = addressPoolFree(gw.db).live;
      const duplicate = await create({ amount: "10", externalRef: "order-1" });
      assertEquals(duplicate.json.error.code, "DUPLICATE_EXTERNAL_REF");
      assertEquals(addressPoolFree(gw.db).live, free);
      const claimedIndexes = (await claims()).map((r) => r.derivation_index);
      const next = await create();
      assertEquals(next.status, 201);
      // The next pay-in got the lowest index not yet claimed: the refused one's, not a skipped one.
      const row = (await claims()).find((r) => r.payin_id === next.json.data.transactionId)!;
      assertEquals(row.derivation_index, Math.max(...claimedIndexes) + 1);
    });

    await t.step("two processes on one database never derive the same index", async () => {
      // Another process's pools: the pool is per database handle, so a second handle on the same
      // database stands for a second gateway process.
      const other: Db = { ...gw.db };
      const otherDeps = { ...gw.deps, db: other };
      const both = await Promise.all([
        ...Array.from({ length: 300 }, () => takeDepositAddress(gw.deps, false)),
        ...Array.from({ length: 300 }, () => takeDepositAddress(otherDeps, false)),
        fillAddressPool(otherDeps, false),
      ]);
      const taken = both.filter((x) => typeof x === "object");
      assertEquals(new Set(taken.map((a) => a.derivationIndex)).size, 600);
      for (const a of taken.slice(0, 20)) assertEquals(live.derive(a.derivationIndex).address, a.address);
      const claimed = new Set((await claims()).map((r) => r.derivation_index));
      assert(taken.every((a) => !claimed.has(a.derivationIndex)), "an index already claimed was handed out");
      await addressPoolSettled(other);
    });

    await t.step("the database refuses a second pay-in on a claimed address", async () => {
      const [row] = await gw.db.query<{ id: string; address: string; merchant_id: string }>(
        "SELECT id, address, merchant_id FROM payins WHERE address IS NOT NULL LIMIT 1",
      );
      const refusal = async (sql: string, params: unknown[]) => {
        try {
          await gw.db.query(sql, params);
          return "";
        } catch (err) {
          return String(err);
        }
      };
      const twin = await refusal(
        `INSERT INTO payins (id, merchant_id, is_sandbox, payment_method, status, currency, amount,
           amount_expected, address, expires_at)
         VALUES ('pay_twin', $1, false, 'USDT_TRC20', 'AWAITING_PAYMENT', 'USDT_TRC20', 10, 11.5, $2, now())`,
        [row.merchant_id, row.address],
      );
      assert(twin.includes("payins_address_claimed"), twin);
      const reclaim = await refusal(
        `INSERT INTO deposit_addresses (address, address_hex, is_sandbox, account_index, derivation_index,
           payin_id, claimed_at, watch_until)
         SELECT address, address_hex, is_sandbox, account_index, derivation_index, 'pay_twin', now(), now()
           FROM deposit_addresses WHERE address = $1`,
        [row.address],
      );
      assert(reclaim.includes("deposit_addresses_pkey"), reclaim);
      const owner = await gw.db.query<{ payin_id: string }>(
        "SELECT payin_id FROM deposit_addresses WHERE address = $1",
        [row.address],
      );
      assertEquals(owner[0].payin_id, row.id);
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
