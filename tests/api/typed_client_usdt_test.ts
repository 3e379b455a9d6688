// README's USDT walk-throughs through the generated client (tests/typed_client.ts): the quick start, the
// webhook receiver, a USDT pay-in paid on the devnet, then paying out (whitelist, estimate, payout),
// withdrawals (approved, rejected) and a top-up, each step as README shows it.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { ok, type Walkthrough, withWalkthrough } from "../typed_client.ts";

const SUPPLIER = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";

/** What the receiver keeps of a delivery: its event, mode, Service-Signature and raw body. */
function delivery(raw: string, signature: string) {
  const body: unknown = JSON.parse(raw);
  if (typeof body !== "object" || body === null || !("event" in body) || !("livemode" in body)) {
    return { event: "", livemode: false, signature, raw };
  }
  return { event: String(body.event), livemode: body.livemode === true, signature, raw };
}

/** README's receiver: answers 204 and keeps every delivery. */
function startReceiver() {
  const received: Array<ReturnType<typeof delivery>> = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    received.push(delivery(await req.text(), req.headers.get("service-signature") ?? ""));
    return new Response(null, { status: 204 });
  });
  return { received, port: server.addr.port, close: () => server.shutdown() };
}

/** README's verifyWebhook: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
async function signatureVerifies(
  rawBody: string,
  header: string,
  secret: string,
  now: Date,
): Promise<boolean> {
  const parts = new Map(
    header.split(",").map((p): [string, string] => {
      const at = p.indexOf("=");
      return [p.slice(0, at), p.slice(at + 1)];
    }),
  );
  const t = Number(parts.get("t"));
  if (!Number.isFinite(t) || Math.abs(now.getTime() / 1000 - t) > 300) return false;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${t}.${rawBody}`)),
  );
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("") === parts.get("v1");
}

async function usdtWallet(w: Walkthrough) {
  const summary = ok(await w.live.GET("/v1/wallets/balance"), 200).data;
  const wallet = summary.balances.find((b) => b.rail === "TRC20");
  assert(wallet, "the merchant has a USDT_TRC20/TRC20 wallet");
  return wallet;
}

/** README: a USDT pay-in, paid from the devnet's funded customer with the amount it asks. */
async function payUsdt(w: Walkthrough, amount: string, paid: string, externalRef?: string) {
  const created = ok(
    await w.live.POST("/v1/payments", {
      body: externalRef ? { amount, externalRef, successUrl: "https://shop.example/thanks" } : { amount },
    }),
    201,
  ).data;
  assert("address" in created, "a USDT pay-in answers its deposit address");
  await w.plain("POST", "/devnet/control/transfer", JSON.stringify({ to: created.address, amount: paid }));
  return created;
}

Deno.test(
  "README through the generated client: quick start, webhooks, a USDT pay-in, payouts, withdrawals, a top-up",
  withWalkthrough(async (w) => {
    // Quick start: the merchant's wallets (the operator made the merchant: tests/typed_client.ts).
    const wallets = ok(await w.live.GET("/v1/merchants/wallets"), 200).data;
    assertEquals(wallets.map((x) => `${x.currency}/${x.rail}`).sort(), [
      "USDT_TRC20/TRC20",
      "XOF/CARD",
      "XOF/MOMO",
    ]);
    assert(wallets.every((x) => Number(x.balance) === 0), "a new merchant holds nothing");

    // Webhooks: an endpoint on a local receiver, a test event, its delivery SUCCEEDED.
    const receiver = startReceiver();
    try {
      const endpoint = ok(
        await w.live.POST("/v1/webhooks/endpoints", {
          body: {
            url: `http://localhost:${receiver.port}/hooks`,
            events: ["payin.confirmed", "payin.failed"],
          },
        }),
        201,
      ).data;
      assertMatch(endpoint.secret, /^whs_/);
      ok(
        await w.live.POST("/v1/webhooks/test", {
          body: { endpointId: endpoint.id, eventType: "payin.confirmed" },
        }),
        200,
      );
      const succeeded = async () =>
        ok(
          await w.live.GET("/v1/webhooks/endpoints/{id}/deliveries", {
            params: { path: { id: endpoint.id }, query: { status: "SUCCEEDED" } },
          }),
          200,
        ).data;
      await w.until("delivered", async () => (await succeeded()).items.length > 0);
      const sample = receiver.received.find((r) => r.event === "payin.confirmed");
      assert(sample, "the receiver got the test event");
      assert(
        await signatureVerifies(sample.raw, sample.signature, endpoint.secret, w.now()),
        "its signature verifies",
      );

      // Taking a USDT payment: 10 USDT asked, 11.5 expected, paid, CONFIRMED, 9.85 credited.
      const payin = await payUsdt(w, "10", "11.5", "order-1");
      assertEquals([payin.amount, payin.networkFee, payin.amountExpected], [
        "10.000000",
        "1.500000",
        "11.500000",
      ]);
      assertEquals([payin.currency, payin.chain, payin.status], ["USDT_TRC20", "TRON", "AWAITING_PAYMENT"]);
      assertEquals(payin.paymentUrl, `http://localhost:8000/checkout/${payin.transactionId}`);
      const status = async (id: string) =>
        ok(await w.live.GET("/v1/payments/{id}", { params: { path: { id } } }), 200).data.status;
      await w.until("CONFIRMED", async () => (await status(payin.transactionId)) === "CONFIRMED");
      assertEquals((await usdtWallet(w)).balance, "9.850000");
      await w.until("notified", () => Promise.resolve(receiver.received.length > 1));
      const confirmed = receiver.received.slice(1);
      assertEquals(confirmed.map((r) => [r.event, r.livemode]), [["payin.confirmed", true]]);
      assert(await signatureVerifies(confirmed[0].raw, confirmed[0].signature, endpoint.secret, w.now()));
    } finally {
      await receiver.close();
    }

    // A customer's own tronweb wallet is funded through the devnet's control API.
    await w.plain(
      "POST",
      "/devnet/control/fund",
      JSON.stringify({ address: "TK6W91FmNg9bBof4c9HJX7M3TYoaoCYZjb", trx: "100", usdt: "500" }),
    );

    // Paying out: a second pay-in (50, paid 51.5), the supplier whitelisted, the estimate until sufficient.
    await payUsdt(w, "50", "51.5");
    const entry = ok(
      await w.live.POST("/v1/wallets/whitelist", {
        body: { address: SUPPLIER, label: "Supplier", usageContexts: ["PAYOUT", "WITHDRAWAL"] },
      }),
      201,
    ).data;
    assertEquals(entry.address, SUPPLIER);
    const estimate = async () =>
      ok(
        await w.live.POST("/v1/payout/estimate", { body: { amount: "20", destinationAddress: SUPPLIER } }),
        200,
      ).data;
    await w.until("sufficient", async () => (await estimate()).sufficient, 120);
    const quote = await estimate();
    assertEquals([quote.fee, quote.totalDebited], ["1.000000", "21.000000"]);
    assertEquals((await usdtWallet(w)).balance, "59.100000");

    const payout = ok(
      await w.live.POST("/v1/payout", {
        params: { header: { "idempotency-key": crypto.randomUUID() } },
        body: { amount: "20", destinationAddress: SUPPLIER },
      }),
      201,
    ).data;
    assertMatch(payout.transactionId, /^pout_/);
    assertEquals([payout.status, payout.processingFee, payout.requiresManualApproval], [
      "PROCESSING",
      "1.000000",
      false,
    ]);
    assertEquals((await usdtWallet(w)).balance, "38.100000"); // reserved at once
    const payoutStatus = async () =>
      ok(await w.live.GET("/v1/payout/{id}", { params: { path: { id: payout.transactionId } } }), 200).data
        .status;
    await w.until("CONFIRMED", async () => (await payoutStatus()) === "CONFIRMED", 120);
    assertMatch(await w.plain("GET", `/devnet/control/balance/${SUPPLIER}`), /"usdt":"20"/);

    // Withdrawals: 15 to the primary WITHDRAWAL address, approved; 5 more, rejected and given back.
    const withdrawal = ok(
      await w.live.POST("/v1/withdrawals", {
        params: { header: { "idempotency-key": crypto.randomUUID() } },
        body: { amount: "15" },
      }),
      201,
    ).data;
    assertEquals([withdrawal.amount, withdrawal.fee, withdrawal.netAmount, withdrawal.status], [
      "15.000000",
      "1.000000",
      "14.000000",
      "PENDING_REVIEW",
    ]);
    const queue = ok(await w.operator.GET("/admin/api/review"), 200).data;
    const waiting = queue.find((entry) => entry.kind === "WITHDRAWAL" && entry.item.id === withdrawal.id);
    assert(waiting?.kind === "WITHDRAWAL", "the operator sees it waiting");
    assertEquals([waiting.item.netAmount, waiting.item.destinationAddress], ["14.000000", SUPPLIER]);
    ok(
      await w.operator.POST("/admin/api/review/{id}/approve", {
        params: { path: { id: withdrawal.id } },
        body: { reviewer: "awa" },
      }),
      200,
    );
    const second = ok(
      await w.live.POST("/v1/withdrawals", {
        params: { header: { "idempotency-key": crypto.randomUUID() } },
        body: { amount: "5" },
      }),
      201,
    ).data;
    assertEquals((await usdtWallet(w)).balance, "18.100000");
    ok(
      await w.operator.POST("/admin/api/review/{id}/reject", {
        params: { path: { id: second.id } },
        body: { reviewer: "awa", note: "destination not verified" },
      }),
      200,
    );
    assertEquals((await usdtWallet(w)).balance, "23.100000"); // its 5 USDT are back at once
    const withdrawalStatus = async () =>
      ok(await w.live.GET("/v1/withdrawals/{id}", { params: { path: { id: withdrawal.id } } }), 200).data
        .status;
    await w.until("CONFIRMED", async () => (await withdrawalStatus()) === "CONFIRMED", 120);
    assertMatch(await w.plain("GET", `/devnet/control/balance/${SUPPLIER}`), /"usdt":"34"/);

    // Funding payouts with a top-up: 200 to the standing address, 198.50 credited at 20 confirmations.
    const topup = ok(await w.live.GET("/v1/wallets/deposit-address"), 200).data;
    await w.plain("POST", "/devnet/control/transfer", JSON.stringify({ to: topup.address, amount: "200" }));
    await w.until("credited", async () => (await usdtWallet(w)).balance === "221.600000", 120);
  }),
);
