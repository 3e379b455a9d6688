// README's bulk payment walk-throughs through the generated client (tests/typed_client.ts), in the
// sandbox: a USDT batch from a CSV file (template, import, validate, execute, COMPLETED, export) and a
// mobile money batch that waits for the operator's review because one number is not a registered fiat
// destination. What README's XOF section left behind (XOF on the MOMO wallet, the registered number
// +22670123456) is made first the same way.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { filePart, ok, type Walkthrough, withWalkthrough } from "../typed_client.ts";

const A = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";
const B = "TK6W91FmNg9bBof4c9HJX7M3TYoaoCYZjb";
const CSV = "walletAddress,amount,recipientName,reference\n" +
  `${A},25.50,Awa Ouedraogo,nov-1\n${B},12,Issa Sawadogo,nov-2\n`;

/** A sandbox pay-in settled by the simulator (README's step 0 of each sandbox walk-through). */
async function simulate(w: Walkthrough, id: string) {
  const simulated =
    ok(await w.sandbox.POST("/v1/sandbox/payments/{id}/simulate", { params: { path: { id } } }), 200)
      .data;
  assertEquals(simulated.transactionId, id);
}

async function balance(w: Walkthrough, rail: "TRC20" | "MOMO") {
  const summary = ok(await w.sandbox.GET("/v1/wallets/balance"), 200).data;
  const wallet = summary.balances.find((b) => b.rail === rail);
  assert(wallet, `the ${rail} wallet`);
  return wallet;
}

async function usdtBatch(w: Walkthrough) {
  // 0. Sandbox USDT to pay with: a pay-in of 100, settled by the simulator.
  const pay = ok(
    await w.sandbox.POST("/v1/payments", {
      params: { query: { sandbox: "true" } },
      body: { amount: "100" },
    }),
    201,
  )
    .data;
  await simulate(w, pay.transactionId);
  const before = (await balance(w, "TRC20")).balance;
  // 1. The recipients whitelisted for PAYOUT.
  const whitelisted = ok(
    await w.sandbox.POST("/v1/wallets/whitelist/bulk", {
      body: { addresses: [{ address: A }, { address: B }], usageContexts: ["PAYOUT"] },
    }),
    200,
  ).data;
  assertEquals(whitelisted.added.map((entry) => entry.address), [A, B]);
  // 2. The rail's template, an XLSX workbook (a ZIP: "PK").
  const template = ok(
    await w.sandbox.GET("/v1/bulk-payments/template", {
      params: { query: { rail: "USDT_TRC20" } },
      parseAs: "arrayBuffer",
    }),
    200,
  );
  assertEquals(new TextDecoder().decode(new Uint8Array(template).slice(0, 2)), "PK");
  // 3. A batch, then the CSV file (multipart, as `curl -F file=@items.csv`).
  const batch = ok(
    await w.sandbox.POST("/v1/bulk-payments", { body: { rail: "USDT_TRC20", label: "November" } }),
    201,
  ).data;
  assertEquals(batch.status, "DRAFT");
  const imported = ok(
    await w.sandbox.POST("/v1/bulk-payments/{id}/import", {
      params: { path: { id: batch.id } },
      body: { file: new File([CSV], "items.csv", { type: "text/csv" }) },
      bodySerializer: filePart,
    }),
    200,
  ).data;
  assertEquals([imported.itemCount, imported.totalAmount], [2, "37.500000"]);
  // 4. Validate: the fee preview and the balance check (skipped in the sandbox), nothing reserved.
  const validated =
    ok(await w.sandbox.POST("/v1/bulk-payments/{id}/validate", { params: { path: { id: batch.id } } }), 200)
      .data;
  assertEquals([validated.status, validated.totalFee], ["VALIDATED", "2.000000"]);
  assertEquals(validated.balanceCheck, { sandbox: true, skipped: true, required: "39.500000" });
  // 5. Execute: one debit of every amount and fee, then the items are paid one by one.
  const executed = ok(
    await w.sandbox.POST("/v1/bulk-payments/{id}/execute", {
      params: { path: { id: batch.id }, header: { "idempotency-key": crypto.randomUUID() } },
    }),
    202,
  ).data;
  assertEquals(executed.totalDebited, "39.500000");
  const read = async () =>
    ok(await w.sandbox.GET("/v1/bulk-payments/{id}", { params: { path: { id: batch.id } } }), 200).data;
  await w.until("COMPLETED", async () => (await read()).status === "COMPLETED", 120);
  const done = await read();
  assertEquals(done.items.map((i) => [i.walletAddress, i.amount, i.status]), [
    [A, "25.500000", "SUCCEEDED"],
    [B, "12.000000", "SUCCEEDED"],
  ]);
  assert(done.items.every((i) => i.paymentId?.startsWith("pout_")), "each item is a payout");
  const report = ok(
    await w.sandbox.GET("/v1/bulk-payments/{id}/export", {
      params: { path: { id: batch.id } },
      parseAs: "text",
    }),
    200,
  );
  assertMatch(report, /nov-1/);
  assertEquals(Number((await balance(w, "TRC20")).balance), Number(before) - 39.5);
}

async function momoBatch(w: Walkthrough) {
  // What README's XOF walk-through left: 49,000 XOF on the MOMO wallet and +22670123456 registered.
  const pay = ok(
    await w.sandbox.POST("/v1/payments", {
      params: { query: { sandbox: "true" } },
      body: { amount: "50000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22654123456" },
    }),
    201,
  ).data;
  await simulate(w, pay.transactionId);
  ok(
    await w.sandbox.POST("/v1/merchants/fiat-destinations", {
      body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456", label: "Shop wallet" },
    }),
    201,
  );

  const batch = ok(
    await w.sandbox.POST("/v1/bulk-payments", { body: { rail: "MOBILE_MONEY", label: "Agents" } }),
    201,
  ).data;
  const path = { id: batch.id };
  ok(
    await w.sandbox.POST("/v1/bulk-payments/{id}/items", {
      params: { path },
      body: {
        items: [{ walletAddress: "+22670123456", amount: "5000" }, {
          walletAddress: "+22666123456",
          amount: "2000",
        }],
      },
    }),
    200,
  );
  ok(await w.sandbox.POST("/v1/bulk-payments/{id}/validate", { params: { path } }), 200);
  const executed = ok(
    await w.sandbox.POST("/v1/bulk-payments/{id}/execute", {
      params: { path, header: { "idempotency-key": crypto.randomUUID() } },
    }),
    202,
  ).data;
  assertEquals(executed.status, "PENDING_REVIEW");
  assertMatch(executed.reviewReason ?? "", /line 2 \+22666123456: not a registered fiat destination/);
  const held = await balance(w, "MOMO");
  assertEquals(held.reservedInReview, executed.totalDebited);

  const waiting = ok(await w.operator.GET("/admin/api/bulk-review"), 200).data;
  assert(waiting.some((entry) => entry.batch.id === batch.id), "the operator sees the batch waiting");
  ok(
    await w.operator.POST("/admin/api/bulk-review/{id}/approve", {
      params: { path },
      body: { reviewer: "awa" },
    }),
    200,
  );
  const read = async () => ok(await w.sandbox.GET("/v1/bulk-payments/{id}", { params: { path } }), 200).data;
  await w.until("COMPLETED", async () => (await read()).status === "COMPLETED");
  assertEquals((await read()).items.map((i) => i.status), ["SUCCEEDED", "SUCCEEDED"]);
  assertEquals((await balance(w, "MOMO")).reserved, "0");
}

Deno.test(
  "README through the generated client: bulk payments in USDT from a CSV file and by mobile money (sandbox)",
  withWalkthrough(async (w) => {
    await usdtBatch(w);
    await momoBatch(w);
  }),
);
