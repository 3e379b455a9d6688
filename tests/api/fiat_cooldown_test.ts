// The fiat destination cooldown comes from FIAT_DESTINATION_COOLDOWN_SECONDS: a development server with a
// short one (or 0, its default) lets a merchant withdraw XOF as soon as the time has passed; a changed
// number restarts it; the wallet is untouched while it runs.
import { findWallet } from "../../db/ledger.ts";
import { manualClock } from "../../domain/clock.ts";
import { Decimal } from "../../domain/money.ts";
import { assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditWallet, idem } from "../money_out_helpers.ts";

async function momoBalance(gw: TestGateway, merchantId: string): Promise<string> {
  return new Decimal((await findWallet(gw.db, merchantId, false, "XOF", "MOMO"))!.balance).toFixed(0);
}

Deno.test("a 60-second cooldown: refused until it has passed, restarted by a new number", async (t) => {
  const start = new Date("2026-11-20T08:00:00Z");
  const clock = manualClock(start);
  const gw = await startTestGateway({ clock, env: { FIAT_DESTINATION_COOLDOWN_SECONDS: "60" } });
  try {
    const m = await gw.createMerchant("Ouaga Shop");
    const key = m.keys.liveSecret;
    await creditWallet(gw, m.merchantId, false, "MOMO", "20000");
    const withdraw = () =>
      gw.request("POST", "/v1/withdrawals", {
        key,
        body: { amount: "5000", currency: "XOF", rail: "MOMO" },
        headers: idem(),
      });
    const reg = await gw.request("POST", "/v1/merchants/fiat-destinations", {
      key,
      body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456" },
    });
    assertEquals(reg.status, 201, reg.text);
    const dest = reg.json.data;

    await t.step("availableAt is registration + 60 s, and the withdrawal waits for it", async () => {
      assertEquals(dest.availableAt, new Date(start.getTime() + 60_000).toISOString());
      clock.advance(59_000);
      const early = await withdraw();
      assertEquals([early.status, early.json.error.code], [403, "BENEFICIARY_COOLDOWN"]);
      assertEquals(await momoBalance(gw, m.merchantId), "20000");
      clock.advance(1_000);
      const ok = await withdraw();
      assertEquals([ok.status, ok.json.data.status, ok.json.data.netAmount], [201, "PENDING_REVIEW", "4500"]);
      assertEquals(await momoBalance(gw, m.merchantId), "15000");
      // The merchant sees the reservation on the wallet it left (XOF/MOMO), not on the USDT one.
      const shown = await gw.request("GET", "/v1/wallets/balance", { key });
      const byRail = Object.fromEntries(
        shown.json.data.balances.map((
          b: { rail: string; reservedInReview: string },
        ) => [b.rail, b.reservedInReview]),
      );
      assertEquals(byRail, { MOMO: "5000", CARD: "0", TRC20: "0.000000" });
    });

    await t.step("a new number restarts the 60 s; a new label does not", async () => {
      const relabel = await gw.request("PATCH", `/v1/merchants/fiat-destinations/${dest.id}`, {
        key,
        body: { label: "Shop" },
      });
      assertEquals([relabel.status, relabel.json.data.availableAt], [200, dest.availableAt]);
      const changed = await gw.request("PATCH", `/v1/merchants/fiat-destinations/${dest.id}`, {
        key,
        body: { momoPhone: "+22670654321" },
      });
      assertEquals(changed.status, 200, changed.text);
      assertEquals(changed.json.data.availableAt, new Date(clock.now().getTime() + 60_000).toISOString());
      const refused = await withdraw();
      assertEquals([refused.status, refused.json.error.code], [403, "BENEFICIARY_COOLDOWN"]);
      assertEquals(await momoBalance(gw, m.merchantId), "15000");
      clock.advance(60_000);
      assertEquals((await withdraw()).status, 201);
      assertEquals(await momoBalance(gw, m.merchantId), "10000");
    });
  } finally {
    await gw.close();
  }
});

Deno.test("cooldown 0 (development's default): a destination is usable at once", async () => {
  const clock = manualClock(new Date("2026-11-20T08:00:00Z"));
  const gw = await startTestGateway({ clock, env: { FIAT_DESTINATION_COOLDOWN_SECONDS: "0" } });
  try {
    const m = await gw.createMerchant("Ouaga Shop");
    await creditWallet(gw, m.merchantId, false, "MOMO", "20000");
    const reg = await gw.request("POST", "/v1/merchants/fiat-destinations", {
      key: m.keys.liveSecret,
      body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456" },
    });
    assertEquals(reg.json.data.availableAt, reg.json.data.createdAt);
    const res = await gw.request("POST", "/v1/withdrawals", {
      key: m.keys.liveSecret,
      body: { amount: "5000", currency: "XOF", rail: "MOMO" },
      headers: idem(),
    });
    assertEquals([res.status, res.json.data.status], [201, "PENDING_REVIEW"]);
    assertEquals(await momoBalance(gw, m.merchantId), "15000");
  } finally {
    await gw.close();
  }
});

Deno.test("production without a real aggregator refuses live mobile money withdrawals, debiting nothing", async () => {
  const gw = await startTestGateway({
    env: { APP_ENV: "production", FIAT_DESTINATION_COOLDOWN_SECONDS: "86400" },
  });
  try {
    const m = await gw.createMerchant("Prod Payouts");
    const key = m.keys.liveSecret;
    await creditWallet(gw, m.merchantId, false, "MOMO", "20000");
    const dest = await gw.request("POST", "/v1/merchants/fiat-destinations", {
      key,
      body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456" },
    });
    assertEquals(dest.status, 201, dest.text);
    await gw.db.query("UPDATE fiat_destinations SET available_at = now() - interval '1 hour' WHERE id = $1", [
      dest.json.data.id,
    ]);
    const res = await gw.request("POST", "/v1/withdrawals", {
      key,
      body: { amount: "5000", currency: "XOF", rail: "MOMO" },
      headers: { "idempotency-key": crypto.randomUUID() },
    });
    assertEquals([res.status, res.json.error.code], [500, "CONFIG_MISSING"]);
    const after = await findWallet(gw.db, m.merchantId, false, "XOF", "MOMO");
    assertEquals(new Decimal(after!.balance).toFixed(0), "20000");
  } finally {
    await gw.close();
  }
});
