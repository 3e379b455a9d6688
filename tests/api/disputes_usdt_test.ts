// A USDT complaint: an operator opens the dispute (there is no acquirer on this rail), the disputed amount
// is held on the merchant's USDT wallet, a refund cannot take what the dispute claims, and the outcome
// releases the hold (merchant wins) or debits it (customer wins), each once.
import { assertEquals } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import { OPERATOR_TEST_ENV, operatorClient } from "../operator_helpers.ts";
import { usdtBalance } from "../money_out_helpers.ts";
import { askRefund, paidUsdt } from "../refund_fixture.ts";
import { assertLedgerConsistent, disputeEvents, disputeJournals } from "../dispute_fixture.ts";

/** [available, heldForDisputes] of the merchant's USDT wallet, as GET /v1/merchant/balances shows it. */
async function usdtFigures(gw: TestGateway, key: string) {
  const res = await gw.request("GET", "/v1/merchant/balances/USDT_TRC20", { key });
  const w = res.json.data.wallets.find((x: { rail: string }) => x.rail === "TRC20");
  return [w.available, w.heldForDisputes];
}

Deno.test(
  "USDT disputes opened by an operator: held on the USDT wallet, refunds limited, resolved and rejected once",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Boutique Ouaga");
    const key = m.keys.liveSecret;
    const reviewer = await operatorClient(gw, "reviewer");
    const won = await paidUsdt(gw, key, "20");
    const lost = await paidUsdt(gw, key, "10");
    const wallet = Number(await usdtBalance(gw, m.merchantId, false));

    const open = async (transactionId: string, amount: string) => {
      const res = await reviewer.call("POST", "/admin/api/disputes", {
        transactionId,
        reason: "NOT_RECEIVED",
        amount,
        note: "Le client dit n'avoir rien reçu",
      });
      assertEquals(res.status, 201, res.text);
      return res.json.data;
    };
    const a = await open(won, "8");
    assertEquals([a.source, a.status, a.amount, a.currency, a.heldAmount, a.shortfall], [
      "OPERATOR",
      "OPEN",
      "8.000000",
      "USDT_TRC20",
      "8.000000",
      "0.000000",
    ]);
    const b = await open(lost, "5");
    assertEquals(Number(await usdtBalance(gw, m.merchantId, false)).toFixed(6), (wallet - 13).toFixed(6));
    assertEquals((await usdtFigures(gw, key))[1], "13.000000");
    await assertLedgerConsistent(gw);

    // What the customer sent less what the dispute claims is all a refund may take.
    const [{ received }] = await gw.db.query<{ received: string }>(
      "SELECT amount_received::text AS received FROM payins WHERE id = $1",
      [won],
    );
    const left = (Number(received) - 8).toFixed(6);
    const over = await askRefund(gw, key, won, { amount: (Number(left) + 0.000001).toFixed(6) });
    assertEquals([over.status, over.json.error.code], [400, "REFUND_EXCEEDS_AMOUNT"]);

    const resolved = await reviewer.call("POST", `/admin/api/disputes/${a.id}/resolve`, { note: "Livré" });
    assertEquals(resolved.status, 200, resolved.text);
    const rejected = await reviewer.call("POST", `/admin/api/disputes/${b.id}/reject`, { note: "Pas livré" });
    assertEquals(rejected.status, 200, rejected.text);
    for (const [id, action] of [[a.id, "reject"], [b.id, "resolve"]]) {
      const again = await reviewer.call("POST", `/admin/api/disputes/${id}/${action}`, { note: "encore" });
      assertEquals(again.status, 400, again.text);
    }
    // The 8 held for the won dispute came back; the 5 of the lost one left for good.
    assertEquals(Number(await usdtBalance(gw, m.merchantId, false)).toFixed(6), (wallet - 5).toFixed(6));
    assertEquals((await usdtFigures(gw, key))[1], "0.000000");
    assertEquals(await disputeEvents(gw, a.id), ["dispute.opened", "dispute.resolved"]);
    assertEquals(await disputeEvents(gw, b.id), ["dispute.opened", "dispute.rejected"]);
    assertEquals(await disputeJournals(gw, a.id), ["DISPUTE_HOLD", "DISPUTE_RELEASE"]);
    assertEquals(await disputeJournals(gw, b.id), ["DISPUTE_HOLD", "DISPUTE_DEBIT"]);
    const payin = (await gw.request("GET", `/v1/payments/${lost}`, { key })).json.data;
    assertEquals(payin.disputed, true);
    await assertLedgerConsistent(gw);
  }, { env: OPERATOR_TEST_ENV }),
);
