// Which USDT pay-ins a refund may be asked for, paid on the devnet as a customer pays: one still
// CONFIRMING (seen on chain, not yet deep enough) or UNDERPAID is refused and nothing is reserved; once
// CONFIRMED it is refundable; an OVERPAID one up to what the customer sent, the surplus included. USDT
// amounts with more than 6 decimals, zero or negative are refused before anything moves.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditUsdt, inFlight, usdtBalance } from "../money_out_helpers.ts";
import { askRefund } from "../refund_fixture.ts";

const units = (usdt: string) => BigInt(Math.round(Number(usdt) * 1e6));

async function refundsOf(gw: TestGateway, payinId: string): Promise<number> {
  const [{ n }] = await gw.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM refunds WHERE payin_id = $1",
    [payinId],
  );
  return n;
}

Deno.test("USDT refunds by pay-in state: CONFIRMING and UNDERPAID refused, OVERPAID up to what arrived", async (t) => {
  const gw = await startTestGateway();
  const m = await gw.createMerchant("Boutique Ouaga");
  const key = m.keys.liveSecret;
  const status = async (id: string) =>
    (await gw.request("GET", `/v1/payments/${id}`, { key })).json.data as {
      status: string;
      amountReceived: string;
    };
  try {
    await scanChain(gw.deps); // the scanner starts following at the head
    await creditUsdt(gw, m.merchantId, false, "100"); // room in the wallet: the pay-in's state is under test

    await t.step("seen on chain but not confirmed: INVALID_TRANSACTION_STATUS, then refundable", async () => {
      const p = (await gw.request("POST", "/v1/payments", { key, body: { amount: "10" } })).json.data;
      gw.devnet.transferUsdt(p.address, units("11.5"));
      gw.devnet.mine(1);
      await scanChain(gw.deps);
      assertEquals((await status(p.transactionId)).status, "CONFIRMING");
      const wallet = await usdtBalance(gw, m.merchantId, false);
      for (const body of [{}, { amount: "1" }]) {
        const res = await askRefund(gw, key, p.transactionId, body);
        assertEquals([res.status, res.json.error.code], [400, "INVALID_TRANSACTION_STATUS"], res.text);
      }
      assertEquals(await usdtBalance(gw, m.merchantId, false), wallet);
      assertEquals(await inFlight(gw, false), "0.000000");
      assertEquals(await refundsOf(gw, p.transactionId), 0);
      // Deep enough, the same pay-in is refundable.
      gw.devnet.mine(gw.deps.config.tron.payinConfirmations);
      await scanChain(gw.deps);
      assertEquals((await status(p.transactionId)).status, "CONFIRMED");
      const credited = await usdtBalance(gw, m.merchantId, false); // the pay-in's net is in
      const ok = await askRefund(gw, key, p.transactionId, { amount: "1" });
      assertEquals([ok.status, ok.json.data.status], [201, "PENDING_APPROVAL"], ok.text);
      assertEquals(
        Number(await usdtBalance(gw, m.merchantId, false)).toFixed(6),
        (Number(credited) - 1).toFixed(6),
      );
      await gw.request("POST", `/v1/refunds/${ok.json.data.refundId}/cancel`, { key });
      assertEquals(await usdtBalance(gw, m.merchantId, false), credited);
    });

    await t.step("underpaid: refused (settled between merchant and customer), nothing reserved", async () => {
      const p = (await gw.request("POST", "/v1/payments", { key, body: { amount: "20" } })).json.data;
      gw.devnet.transferUsdt(p.address, units("15"));
      gw.devnet.mine(1 + gw.deps.config.tron.payinConfirmations);
      await scanChain(gw.deps);
      assertEquals((await status(p.transactionId)).status, "UNDERPAID");
      const res = await askRefund(gw, key, p.transactionId, { amount: "1" });
      assertEquals([res.status, res.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
      assertEquals(await refundsOf(gw, p.transactionId), 0);
      assertEquals(await inFlight(gw, false), "0.000000");
    });

    await t.step(
      "over-paid: refundable up to what the customer sent, surplus included, not a cent more",
      async () => {
        const p = (await gw.request("POST", "/v1/payments", { key, body: { amount: "20" } })).json.data;
        gw.devnet.transferUsdt(p.address, units("25"));
        gw.devnet.mine(1 + gw.deps.config.tron.payinConfirmations);
        await scanChain(gw.deps);
        const payin = await status(p.transactionId);
        assertEquals([payin.status, payin.amountReceived], ["OVERPAID", "25.000000"]);
        const wallet = Number(await usdtBalance(gw, m.merchantId, false));

        // Bad amounts first: more than 6 decimals, zero, negative, a number instead of a string.
        for (const amount of ["0.0000001", "1.1234567", "0", "0.000000", "-1", 1]) {
          const res = await askRefund(gw, key, p.transactionId, { amount });
          assertEquals(res.status, 400, `${amount}: ${res.text}`);
          assertEquals(
            ["INVALID_AMOUNT", "VALIDATION_ERROR"].includes(res.json.error.code),
            true,
            `${amount}: ${res.text}`,
          );
        }
        assertEquals(await refundsOf(gw, p.transactionId), 0);

        const part = await askRefund(gw, key, p.transactionId, { amount: "21.123456" });
        assertEquals([part.status, part.json.data.amount], [201, "21.123456"], part.text);
        const rest = await askRefund(gw, key, p.transactionId, {});
        assertEquals([rest.status, rest.json.data.amount], [201, "3.876544"], rest.text);
        const more = await askRefund(gw, key, p.transactionId, { amount: "0.000001" });
        assertEquals([more.status, more.json.error.code], [400, "REFUND_EXCEEDS_AMOUNT"]);
        assertEquals(Number(await usdtBalance(gw, m.merchantId, false)).toFixed(6), (wallet - 25).toFixed(6));
        assertEquals(await inFlight(gw, false), "25.000000");
      },
    );
  } finally {
    await gw.close();
  }
});
