// The history follows the real write paths (triggers, not a generator): sandbox pay-ins on the three rails
// settled by the simulator, a payout, a USDT withdrawal then cancelled, an XOF withdrawal, a conversion,
// USDT and mobile money bulk batches (items appear when the batch is executed), and a sandbox reset.
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditUsdt, creditWallet, idem, randomTronAddress, whitelist } from "../money_out_helpers.ts";
import { findWallet } from "../../db/ledger.ts";

type Item = { id: string; type: string; status: string; paymentMethod: string | null; [k: string]: unknown };

async function history(gw: TestGateway, key: string, query = ""): Promise<Item[]> {
  const res = await gw.request("GET", `/v1/transactions?limit=100${query}`, { key });
  assertEquals(res.status, 200, res.text);
  return res.json.data.items;
}

async function projectionMatchesSources(gw: TestGateway): Promise<void> {
  const [d] = await gw.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ((SELECT * FROM transaction_rows EXCEPT SELECT * FROM transactions)
      UNION ALL (SELECT * FROM transactions EXCEPT SELECT * FROM transaction_rows)) d`,
  );
  assertEquals(d.n, 0, "the projection equals what its sources say");
}

async function payin(gw: TestGateway, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await gw.request("POST", "/v1/payments?sandbox=true", { key, body });
  assertEquals(res.status, 201, res.text);
  const id = res.json.data.transactionId;
  const sim = await gw.request("POST", `/v1/sandbox/payments/${id}/simulate`, { key });
  assertEquals(sim.status, 200, sim.text);
  return id;
}

Deno.test("every type and rail reaches the history through its own write path", async (t) => {
  const gw = await startTestGateway({ env: { FIAT_DESTINATION_COOLDOWN_SECONDS: "0" } });
  try {
    const m = await gw.createMerchant("Flow Shop");
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 100_000 } });
    const key = m.keys.testSecret;
    const ids: Record<string, string> = {};

    await t.step("pay-ins on USDT, card and mobile money, settled", async () => {
      ids.usdt = await payin(gw, key, { amount: "25", externalRef: "cmd-usdt-1" });
      ids.card = await payin(gw, key, {
        amount: "10000",
        paymentMethod: "CARD",
        customerName: "Éloïse Kaboré",
        customerEmail: "eloise@example.com",
      });
      ids.momo = await payin(gw, key, {
        amount: "50000",
        paymentMethod: "MOBILE_MONEY",
        customerPhone: "+22670123456",
        metadata: { note: "Commande 100% coton" },
      });
      const items = await history(gw, key, "&type=PAYIN");
      assertEquals(
        items.map((i) => [i.id, i.status, i.paymentMethod]).sort(),
        [
          [ids.card, "CONFIRMED", "CARD"],
          [ids.momo, "CONFIRMED", "MOBILE_MONEY"],
          [ids.usdt, "CONFIRMED", "USDT_TRC20"],
        ].sort(),
      );
      const card = items.find((i) => i.id === ids.card)!;
      assertEquals([card.currency, card.walletRail, card.amount, card.customerEmail], [
        "XOF",
        "CARD",
        "10000",
        "eloise@example.com",
      ]);
      assert(card.netAmount !== "0", "the settlement's net amount reached the history");
      await projectionMatchesSources(gw);
    });

    await t.step("payout, USDT withdrawal, XOF withdrawal, conversion", async () => {
      await creditUsdt(gw, m.merchantId, true, "1000");
      await creditWallet(gw, m.merchantId, true, "CARD", "100000");
      const dest = randomTronAddress();
      await whitelist(gw, key, dest, ["PAYOUT", "WITHDRAWAL"]);
      const payout = await gw.request("POST", "/v1/payout", {
        key,
        headers: idem(),
        body: {
          amount: "10",
          destinationAddress: dest,
          externalRef: "inv-77",
          metadata: { note: "Fournisseur tissu" },
        },
      });
      assertEquals(payout.status, 201, payout.text);
      ids.payout = payout.json.data.transactionId;
      const wdr = await gw.request("POST", "/v1/withdrawals", {
        key,
        headers: idem(),
        body: { amount: "20" },
      });
      assertEquals(wdr.status, 201, wdr.text);
      ids.withdrawal = wdr.json.data.id;
      const dst = await gw.request("POST", "/v1/merchants/fiat-destinations", {
        key,
        body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456", label: "Shop" },
      });
      assertEquals(dst.status, 201, dst.text);
      const xofWdr = await gw.request("POST", "/v1/withdrawals", {
        key,
        headers: idem(),
        body: { amount: "5000", currency: "XOF", rail: "MOMO" },
      });
      assertEquals(xofWdr.status, 201, xofWdr.text);
      ids.xofWithdrawal = xofWdr.json.data.id;
      const usdt = await findWallet(gw.db, m.merchantId, true, "USDT_TRC20", "TRC20");
      const card = await findWallet(gw.db, m.merchantId, true, "XOF", "CARD");
      const conv = await gw.request("POST", "/v1/conversions/wallet", {
        key,
        headers: idem(),
        body: { fromWalletId: card!.id, toWalletId: usdt!.id, fromAmount: "10000" },
      });
      assertEquals(conv.status, 201, conv.text);
      ids.conversion = conv.json.data.id;

      const byId = Object.fromEntries((await history(gw, key)).map((i) => [i.id, i]));
      assertEquals([byId[ids.payout].type, byId[ids.payout].paymentMethod], ["PAYOUT", "USDT_TRC20"]);
      assertEquals(byId[ids.payout].externalRef, "inv-77");
      assertEquals([byId[ids.withdrawal].type, byId[ids.withdrawal].status], [
        "WITHDRAWAL",
        "PENDING_REVIEW",
      ]);
      assertEquals(
        [
          byId[ids.xofWithdrawal].currency,
          byId[ids.xofWithdrawal].paymentMethod,
          byId[ids.xofWithdrawal].fee,
        ],
        ["XOF", "MOBILE_MONEY", xofWdr.json.data.fee],
      );
      const c = byId[ids.conversion];
      assertEquals(
        [c.type, c.currency, c.amount, c.toCurrency, c.toAmount, c.fee, c.feeCurrency],
        [
          "CONVERSION",
          "XOF",
          "10000",
          "USDT_TRC20",
          conv.json.data.toAmountNet,
          conv.json.data.fee,
          "USDT_TRC20",
        ],
      );
      await projectionMatchesSources(gw);
    });

    await t.step("a cancelled withdrawal reads CANCELLED at once", async () => {
      const del = await gw.request("DELETE", `/v1/withdrawals/${ids.withdrawal}`, { key });
      assertEquals(del.status, 200, del.text);
      const one = await gw.request("GET", `/v1/transactions/${ids.withdrawal}`, { key });
      assertEquals(one.json.data.status, "CANCELLED");
    });

    await t.step("bulk items appear when their batch is executed, never before", async () => {
      const dest = randomTronAddress();
      await whitelist(gw, key, dest, ["PAYOUT"]);
      await creditWallet(gw, m.merchantId, true, "MOMO", "100000");
      for (
        const [rail, items] of [
          ["USDT_TRC20", [
            { walletAddress: dest, amount: "5", recipientName: "Awa", reference: "paie-nov-1" },
            {
              walletAddress: dest,
              amount: "6",
            },
          ]],
          ["MOBILE_MONEY", [{ walletAddress: "+22670123456", amount: "1500", recipientName: "Moussa" }]],
        ] as const
      ) {
        const batch = await gw.request("POST", "/v1/bulk-payments", { key, body: { rail } });
        const id = batch.json.data.id;
        assertEquals(
          (await gw.request("POST", `/v1/bulk-payments/${id}/items`, { key, body: { items } })).status,
          200,
        );
        assertEquals((await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key })).status, 200);
        assertEquals((await history(gw, key, "&type=BULK_ITEM")).filter((i) => i.batchId === id).length, 0);
        const run = await gw.request("POST", `/v1/bulk-payments/${id}/execute`, { key, headers: idem() });
        assertEquals(run.status, 202, run.text);
        const listed = (await history(gw, key, "&type=BULK_ITEM")).filter((i) => i.batchId === id);
        assertEquals(listed.length, items.length, rail);
        assertEquals(new Set(listed.map((i) => i.paymentMethod)), new Set([rail]));
      }
      const found = await history(gw, key, "&search=PAIE-NOV");
      assertEquals(found.map((i) => [i.type, i.recipientName]), [["BULK_ITEM", "Awa"]]);
      assertEquals((await history(gw, key, "&search=0123456&type=BULK_ITEM")).length, 1);
      await projectionMatchesSources(gw);
    });

    await t.step(
      "search finds the note, the reference, the e-mail; the live key sees none of it",
      async () => {
        assertEquals((await history(gw, key, "&search=TISSU")).map((i) => i.id), [ids.payout]);
        assertEquals((await history(gw, key, "&search=100%25%20coton")).map((i) => i.id), [ids.momo]);
        assertEquals((await history(gw, key, "&search=eloise@")).map((i) => i.id), [ids.card]);
        assertEquals((await history(gw, m.keys.liveSecret)).length, 0);
        for (const id of Object.values(ids)) {
          const live = await gw.request("GET", `/v1/transactions/${id}`, { key: m.keys.liveSecret });
          assertEquals([live.status, live.json.error.code], [404, "NOT_FOUND"]);
          assertEquals((await gw.request("GET", `/v1/transactions/${id}`, { key })).status, 200);
        }
      },
    );

    await t.step("a sandbox reset empties the sandbox history", async () => {
      assertEquals((await gw.request("POST", "/v1/sandbox/reset", { key })).status, 200);
      assertEquals((await history(gw, key)).length, 0);
      await projectionMatchesSources(gw);
    });
  } finally {
    await gw.close();
  }
});
