// README's sandbox money walk-throughs through the generated client (tests/typed_client.ts), in README's
// order on one merchant: converting between wallets, then paying out XOF (fiat destinations, a mobile money
// withdrawal paid by the aggregator, a bank withdrawal completed by the operator). Bulk payments are in
// typed_client_bulk_test.ts.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { ok, type Walkthrough, withWalkthrough } from "../typed_client.ts";

async function balances(w: Walkthrough) {
  const summary = ok(await w.sandbox.GET("/v1/wallets/balance"), 200).data;
  assertEquals(summary.isSandbox, true);
  return Object.fromEntries(summary.balances.map((b) => [`${b.currency}/${b.rail}`, b.balance]));
}

/** README's `POST /v1/sandbox/payments/:id/simulate`: the simulator settles a sandbox pay-in. */
async function simulate(w: Walkthrough, id: string) {
  const simulated =
    ok(await w.sandbox.POST("/v1/sandbox/payments/{id}/simulate", { params: { path: { id } } }), 200)
      .data;
  assertEquals(simulated.transactionId, id);
}

async function conversions(w: Walkthrough) {
  // 50,000 XOF by mobile money, settled by the simulator: the XOF/MOMO wallet gets 49,000 after 2 %.
  const pay = ok(
    await w.sandbox.POST("/v1/payments", {
      params: { query: { sandbox: "true" } },
      body: { amount: "50000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22654123456" },
    }),
    201,
  ).data;
  await simulate(w, pay.transactionId);
  assertEquals((await balances(w))["XOF/MOMO"], "49000");
  const preview = ok(
    await w.sandbox.GET("/v1/conversions/wallet/preview", {
      params: { query: { fromCurrency: "XOF", toCurrency: "USDT_TRC20", amount: "20000" } },
    }),
    200,
  ).data;
  assertEquals(preview.toAmountNet, "32.809679");
  const wallets = ok(await w.sandbox.GET("/v1/merchants/wallets"), 200).data;
  const xofMomo = wallets.find((x) => x.rail === "MOMO");
  const usdt = wallets.find((x) => x.rail === "TRC20");
  assert(xofMomo && usdt, "the XOF/MOMO and USDT wallets");
  const conversion = ok(
    await w.sandbox.POST("/v1/conversions/wallet", {
      params: { header: { "idempotency-key": crypto.randomUUID() } },
      body: { fromWalletId: xofMomo.id, toWalletId: usdt.id, fromAmount: "20000" },
    }),
    201,
  ).data;
  assertMatch(conversion.id, /^cnv_/);
  assertEquals(
    [conversion.status, conversion.fromAmount, conversion.fromCurrency, conversion.toCurrency],
    ["CONFIRMED", "20000", "XOF", "USDT_TRC20"],
  );
  assertEquals([conversion.toAmountNet, conversion.rate, conversion.fee], [
    "32.809679",
    "0.00165705453518924",
    "0.331411",
  ]);
  const listed = ok(await w.sandbox.GET("/v1/conversions"), 200).data;
  assertEquals(listed.items.map((c) => c.id), [conversion.id]);
  const after = await balances(w);
  assertEquals([after["XOF/MOMO"], after["USDT_TRC20/TRC20"]], ["29000", "32.809679"]);
}

async function xofPayouts(w: Walkthrough) {
  const momo = ok(
    await w.sandbox.POST("/v1/merchants/fiat-destinations", {
      body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456", label: "Shop wallet" },
    }),
    201,
  ).data;
  assertEquals([momo.kind, momo.isPrimary], ["MOMO", true]);
  const bank = ok(
    await w.sandbox.POST("/v1/merchants/fiat-destinations", {
      body: {
        kind: "BANK",
        bankName: "Banque Atlantique",
        bankAccountName: "Boutique Ouaga SARL",
        bankIban: "DE89370400440532013000",
      },
    }),
    201,
  ).data;
  const destinations = ok(await w.sandbox.GET("/v1/merchants/fiat-destinations"), 200).data;
  assertEquals(destinations.items.map((d) => d.id).sort(), [momo.id, bank.id].sort());

  // 5,000 XOF to the primary destination (fee 500, out of the amount), approved, paid by the aggregator.
  const withdrawal = ok(
    await w.sandbox.POST("/v1/withdrawals", {
      params: { header: { "idempotency-key": crypto.randomUUID() } },
      body: { amount: "5000", currency: "XOF", rail: "MOMO" },
    }),
    201,
  ).data;
  assertEquals(
    [withdrawal.amount, withdrawal.fee, withdrawal.netAmount, withdrawal.status, withdrawal.chain],
    ["5000", "500", "4500", "PENDING_REVIEW", "MOMO"],
  );
  ok(
    await w.operator.POST("/admin/api/review/{id}/approve", {
      params: { path: { id: withdrawal.id } },
      body: { reviewer: "awa" },
    }),
    200,
  );
  const read = async (id: string) =>
    ok(await w.sandbox.GET("/v1/withdrawals/{id}", { params: { path: { id } } }), 200).data;
  await w.until("CONFIRMED", async () => (await read(withdrawal.id)).status === "CONFIRMED");
  assertMatch((await read(withdrawal.id)).providerRef ?? "", /^sim_momo_out_/);

  // A bank withdrawal: approve is refused for it; the operator completes it with the bank's reference.
  const bankWithdrawal = ok(
    await w.sandbox.POST("/v1/withdrawals", {
      params: { header: { "idempotency-key": crypto.randomUUID() } },
      body: { amount: "10000", currency: "XOF", rail: "MOMO", fiatDestinationId: bank.id },
    }),
    201,
  ).data;
  const approve = await w.operator.POST("/admin/api/review/{id}/approve", {
    params: { path: { id: bankWithdrawal.id } },
    body: { reviewer: "awa" },
  });
  assertEquals(approve.error?.error.code, "WITHDRAWAL_APPROVE_NOT_SUPPORTED_FOR_FIAT");
  ok(
    await w.operator.POST("/admin/api/review/{id}/complete-fiat", {
      params: { path: { id: bankWithdrawal.id } },
      body: { reviewer: "awa", providerRef: "BA-2026-000123" },
    }),
    200,
  );
  assertEquals((await read(bankWithdrawal.id)).status, "CONFIRMED");
  assertEquals((await balances(w))["XOF/MOMO"], "14000"); // 29,000 less 5,000 and 10,000
}

Deno.test(
  "README through the generated client: conversions, XOF payouts (sandbox)",
  withWalkthrough(async (w) => {
    await conversions(w);
    await xofPayouts(w);
  }),
);
