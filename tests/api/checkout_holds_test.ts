// Stock and promo holds are short and bounded (issue 18, item 8): an unpaid order holds its units and its
// promo code's use for CHECKOUT_HOLD_MINUTES (10 by default), not for its pay-in's 30 minutes; one client
// address holds at most max(1, 20 %) of a product's unsold stock or of a code's uses at once; and a
// payment that arrives after the hold was released still pays the order (taking back what is left).
import { parseConfig } from "../../config.ts";
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { manualClock } from "../../domain/clock.ts";
import { handlePaylinkReleaseSweep } from "../../jobs/paylinks.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { makePaylink, stockOf } from "../shop_fixture.ts";

const MINUTE = 60_000;
const units = (usdt: string) => BigInt(Math.round(Number(usdt) * 1e6));

async function promoUses(gw: TestGateway, code: string): Promise<number> {
  const [row] = await gw.db.query<{ use_count: number }>(
    "SELECT use_count FROM paylink_promo_codes WHERE code = $1",
    [code],
  );
  return row.use_count;
}

Deno.test("checkout holds: short, bounded per client address, released on time, late payments honoured", async (t) => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock });
  const scan = () => {
    clock.advance(10);
    return scanChain(gw.deps);
  };
  try {
    const m = await gw.createMerchant("Boutique Awa");
    const shop = await makePaylink(gw, m.merchantId, {
      isSandbox: false,
      currency: "USDT_TRC20",
      methods: ["USDT_TRC20"],
      products: [
        { name: "Masque bobo", price: "20", stockEnabled: true, stockQty: 3 },
        { name: "Pagne wax", price: "10", stockEnabled: true, stockQty: 10 },
        { name: "Carte postale", price: "6" },
      ],
      promos: [
        { code: "UNIQUE", type: "FIXED", value: "1", maxUses: 1 },
        { code: "CINQ", type: "FIXED", value: "1", maxUses: 5 },
      ],
    });
    const [masque, pagne, carte] = shop.products;
    const slug = shop.paylink.slug;
    const checkout = (from: string, items: Array<[string, number]>, promoCode?: string) =>
      gw.request("POST", `/v1/pay/link/${slug}/checkout`, {
        clientAddress: from,
        body: { items: items.map(([productId, quantity]) => ({ productId, quantity })), promoCode },
      });
    await scan(); // the scanner follows from the head

    await t.step("three checkouts from one address cannot take a product's whole stock", async () => {
      // Not one checkout asking for all of it at once.
      const all = await checkout("10.0.0.9", [[masque.id, 3]]);
      assertEquals(all.json.error.cause, "HOLD_LIMIT_REACHED");
      const first = await checkout("10.0.0.1", [[masque.id, 1]]);
      assertEquals(first.status, 201, first.text);
      for (let i = 0; i < 2; i++) {
        const more = await checkout("10.0.0.1", [[masque.id, 1]]);
        assertEquals(more.status, 409, more.text);
        assertEquals(more.json.error.code, "CONFLICT");
        assertEquals(more.json.error.cause, "HOLD_LIMIT_REACHED");
        assertEquals(more.json.error.details[0].field, "items.0.quantity");
      }
      assertEquals(await stockOf(gw, masque.id), 2);
      // Another customer buys as usual; products without stock tracking are not bounded.
      assertEquals((await checkout("10.0.0.2", [[masque.id, 1]])).status, 201);
      assertEquals((await checkout("10.0.0.1", [[carte.id, 5]])).status, 201);
      assertEquals((await checkout("10.0.0.1", [[carte.id, 5]])).status, 201);
      // 10 unsold pagnes: 2 each.
      assertEquals((await checkout("10.0.0.3", [[pagne.id, 2]])).status, 201);
      assertEquals((await checkout("10.0.0.3", [[pagne.id, 1]])).json.error.cause, "HOLD_LIMIT_REACHED");
      assertEquals(await stockOf(gw, pagne.id), 8);
    });

    await t.step(
      "a single-use code is held by one checkout; one address holds one use of a code of five",
      async () => {
        assertEquals((await checkout("10.0.0.4", [[carte.id, 1]], "UNIQUE")).status, 201);
        const other = await checkout("10.0.0.5", [[carte.id, 1]], "UNIQUE");
        assertEquals(other.json.error.code, "PROMO_CODE_USAGE_LIMIT_REACHED");
        const again = await checkout("10.0.0.4", [[carte.id, 1]], "UNIQUE");
        assertEquals(again.json.error.code, "PROMO_CODE_USAGE_LIMIT_REACHED");
        assertEquals((await checkout("10.0.0.4", [[carte.id, 1]], "CINQ")).status, 201);
        const second = await checkout("10.0.0.4", [[carte.id, 1]], "CINQ");
        assertEquals(second.status, 409);
        assertEquals(second.json.error.cause, "HOLD_LIMIT_REACHED");
        assertEquals(second.json.error.details[0].field, "promoCode");
        assertEquals((await checkout("10.0.0.5", [[carte.id, 1]], "CINQ")).status, 201);
        assertEquals([await promoUses(gw, "UNIQUE"), await promoUses(gw, "CINQ")], [1, 2]);
      },
    );

    let late = { transactionId: "", orderId: "", address: "", amountExpected: "", expiresAt: "" };
    await t.step(
      "holds end after CHECKOUT_HOLD_MINUTES (10), though the pay-ins last 30 minutes",
      async () => {
        const res = await checkout("10.0.0.6", [[pagne.id, 2]]);
        assertEquals(res.status, 201, res.text);
        late = res.json.data;
        assert(
          new Date(late.expiresAt).getTime() - clock.now().getTime() >= 29 * MINUTE,
          "the pay-in lasts 30 min",
        );
        assertEquals(await stockOf(gw, pagne.id), 6);
        clock.advance(9 * MINUTE);
        await handlePaylinkReleaseSweep(gw.deps);
        assertEquals(await stockOf(gw, pagne.id), 6, "still held at 9 minutes");
        clock.advance(MINUTE + 1000);
        await handlePaylinkReleaseSweep(gw.deps);
        // Every hold placed above is back: masques, pagnes, both codes.
        assertEquals(await stockOf(gw, masque.id), 3);
        assertEquals(await stockOf(gw, pagne.id), 10);
        assertEquals([await promoUses(gw, "UNIQUE"), await promoUses(gw, "CINQ")], [0, 0]);
        const [order] = await gw.db.query<{ status: string; released_at: Date | null }>(
          "SELECT status, released_at FROM paylink_orders WHERE id = $1",
          [late.orderId],
        );
        assertEquals(order.status, "AWAITING_PAYMENT");
        assert(order.released_at, "released although its pay-in still runs");
        // The single-use code is free for another customer now, and the first address may hold again.
        assertEquals((await checkout("10.0.0.5", [[carte.id, 1]], "UNIQUE")).status, 201);
        assertEquals((await checkout("10.0.0.1", [[masque.id, 1]])).status, 201);
      },
    );

    await t.step(
      "a payment after the release still pays the order; what is missing marks it oversold",
      async () => {
        // Meanwhile other customers took 9 of the 10 pagnes (and paid nothing yet): one is left of the two.
        for (let i = 0; i < 4; i++) {
          assertEquals((await checkout(`10.0.1.${i}`, [[pagne.id, 2]])).status, 201);
        }
        assertEquals((await checkout("10.0.1.9", [[pagne.id, 1]])).status, 201);
        assertEquals(await stockOf(gw, pagne.id), 1);
        gw.devnet.transferUsdt(late.address, units(late.amountExpected));
        gw.devnet.mine(5);
        await scan();
        const [order] = await gw.db.query<{ status: string; paid_at: Date | null; oversold: boolean }>(
          "SELECT status, paid_at, oversold FROM paylink_orders WHERE id = $1",
          [late.orderId],
        );
        assertEquals(order.status, "CONFIRMED");
        assert(order.paid_at, "paid");
        assertEquals(order.oversold, true);
        assertEquals(await stockOf(gw, pagne.id), 0, "the last unit is taken, never below zero");
        const list = await gw.request("GET", `/v1/paylinks/${shop.paylink.id}/orders?limit=100`, {
          key: m.keys.liveSecret,
        });
        assertEquals(list.status, 200, list.text);
        const seen = list.json.data.items.find((o: { id: string }) => o.id === late.orderId);
        assertEquals([seen.status, seen.oversold], ["CONFIRMED", true]);
        assert(gw.logLines.some((l) => JSON.stringify(l).includes("paid after its hold was released")));
      },
    );

    await t.step("paid after the release with the stock still there: taken back, not oversold", async () => {
      const res = await checkout("10.0.2.1", [[masque.id, 1]], "CINQ");
      assertEquals(res.status, 201, res.text);
      clock.advance(11 * MINUTE);
      await handlePaylinkReleaseSweep(gw.deps);
      const stock = await stockOf(gw, masque.id);
      const uses = await promoUses(gw, "CINQ");
      gw.devnet.transferUsdt(res.json.data.address, units(res.json.data.amountExpected));
      gw.devnet.mine(5);
      await scan();
      const [order] = await gw.db.query<{ status: string; oversold: boolean }>(
        "SELECT status, oversold FROM paylink_orders WHERE id = $1",
        [res.json.data.orderId],
      );
      assertEquals([order.status, order.oversold], ["CONFIRMED", false]);
      assertEquals(await stockOf(gw, masque.id), stock - 1);
      assertEquals(await promoUses(gw, "CINQ"), uses + 1);
    });

    await t.step("a pay-in whose money is on its way keeps its hold past the hold time", async () => {
      const res = await checkout("10.0.3.1", [[masque.id, 1]]);
      assertEquals(res.status, 201, res.text);
      const stock = await stockOf(gw, masque.id);
      gw.devnet.transferUsdt(res.json.data.address, units(res.json.data.amountExpected));
      gw.devnet.mine(1);
      await scan();
      clock.advance(11 * MINUTE);
      await handlePaylinkReleaseSweep(gw.deps);
      assertEquals(await stockOf(gw, masque.id), stock, "CONFIRMING: still held");
    });
  } finally {
    await gw.close();
  }
});

Deno.test("CHECKOUT_HOLD_MINUTES: 10 by default, 1 to 120", () => {
  const base = { APP_ENV: "development", APP_SECRET: "test-app-secret-0123456789-abcdefghij" };
  assertEquals(parseConfig(base).checkoutHoldMinutes, 10);
  assertEquals(parseConfig({ ...base, CHECKOUT_HOLD_MINUTES: "3" }).checkoutHoldMinutes, 3);
  for (const bad of ["0", "121", "ten", "1.5"]) {
    let refused = false;
    try {
      parseConfig({ ...base, CHECKOUT_HOLD_MINUTES: bad });
    } catch {
      refused = true;
    }
    assert(refused, `CHECKOUT_HOLD_MINUTES=${bad} must be refused`);
  }
});

Deno.test("a shorter CHECKOUT_HOLD_MINUTES releases sooner", async () => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock, env: { CHECKOUT_HOLD_MINUTES: "2" } });
  try {
    const m = await gw.createMerchant("Vite");
    const { paylink, products } = await makePaylink(gw, m.merchantId, {
      currency: "USDT_TRC20",
      methods: ["USDT_TRC20"],
      products: [{ name: "Lot", price: "10", stockEnabled: true, stockQty: 5 }],
    });
    const res = await gw.request("POST", `/v1/pay/link/${paylink.slug}/checkout`, {
      clientAddress: "10.9.0.1",
      body: { items: [{ productId: products[0].id, quantity: 1 }] },
    });
    assertEquals(res.status, 201, res.text);
    clock.advance(2 * MINUTE + 1000);
    await handlePaylinkReleaseSweep(gw.deps);
    assertEquals(await stockOf(gw, products[0].id), 5);
  } finally {
    await gw.close();
  }
});
