// A card, a mobile money and a USDT refund from request to `completed` over HTTP, with the merchant's
// receiver verifying every signed refund.* delivery (and the gateway checking each body against the
// OpenAPI document's webhook schema when it closes).
import { deliveryPump, handleWebhookDeliver } from "../../jobs/webhook_delivery.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { sendOutbound } from "../../domain/money_out/send.ts";
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import { randomTronAddress } from "../money_out_helpers.ts";
import {
  approve,
  askRefund,
  getRefund,
  paidCard,
  paidMomo,
  paidUsdt,
  pathOf,
  postAddress,
  roomyMerchant,
  runRefundJobs,
} from "../refund_fixture.ts";

type Received = { headers: Headers; body: string };

function startReceiver() {
  const received: Received[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    received.push({ headers: req.headers, body: await req.text() });
    return new Response("ok");
  });
  return { url: `http://127.0.0.1:${server.addr.port}/hooks`, received, close: () => server.shutdown() };
}

/** What a merchant's receiver does: HMAC-SHA256 over "<t>.<raw body>", 300 s tolerance. */
async function verifySignature(secret: string, header: string | null, rawBody: string): Promise<boolean> {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "");
  if (!m || Math.abs(Date.now() / 1000 - Number(m[1])) > 300) return false;
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(`${m[1]}.${rawBody}`)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("") === m[2];
}

async function deliverAll(gw: TestGateway) {
  for (const { message } of gw.enqueued.splice(0).filter((e) => e.message.type === "webhook.deliver")) {
    await handleWebhookDeliver(message as Extract<typeof message, { type: "webhook.deliver" }>, gw.deps);
  }
  await deliveryPump(gw.deps).idle();
}

Deno.test("refund webhooks: created, approved, completed, signed and verified, for card and mobile money", async () => {
  const gw = await startTestGateway();
  const receiver = startReceiver();
  try {
    const m = await roomyMerchant(gw);
    const key = m.keys.liveSecret;
    const endpoint = (await gw.request("POST", "/v1/webhooks/endpoints", {
      key,
      body: {
        url: receiver.url,
        events: ["refund.created", "refund.approved", "refund.rejected", "refund.completed", "refund.failed"],
      },
    })).json.data;
    await paidCard(gw, key, "20000");
    await paidMomo(gw, key, "20000");
    const card = await paidCard(gw, key, "3000");
    const momo = await paidMomo(gw, key, "2000");
    gw.enqueued.length = 0;
    const ids: string[] = [];
    for (const payin of [card, momo]) {
      const r = (await askRefund(gw, key, payin, { reason: "Order cancelled" })).json.data;
      ids.push(r.refundId);
      await approve(gw, r.refundId);
    }
    await runRefundJobs(gw);
    await deliverAll(gw);
    const bodies = receiver.received.map((r) => JSON.parse(r.body));
    for (const got of receiver.received) {
      assert(await verifySignature(endpoint.secret, got.headers.get("service-signature"), got.body));
    }
    for (const [i, id] of ids.entries()) {
      const mine = bodies.filter((b) => b.data.refundId === id);
      assertEquals(mine.map((b) => b.event).sort(), [
        "refund.approved",
        "refund.completed",
        "refund.created",
      ]);
      const completed = mine.find((b) => b.event === "refund.completed");
      assertEquals(completed.data.status, "COMPLETED");
      assertEquals(completed.data.transactionId, [card, momo][i]);
      assertEquals(completed.data.amount, ["3000", "2000"][i]);
      assertEquals(completed.livemode, true);
    }
  } finally {
    await receiver.close();
    await gw.close();
  }
});

Deno.test("refund webhooks: a USDT refund from request to completed, every delivery signed and verified", async () => {
  const gw = await startTestGateway();
  const receiver = startReceiver();
  const hot = hotWallet(gw.deps.config, false);
  try {
    gw.devnet.fund(hot.address, { trx: 1_000n * 1_000_000n, usdt: 100n * 1_000_000n });
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    const m = await roomyMerchant(gw);
    const key = m.keys.liveSecret;
    const endpoint = (await gw.request("POST", "/v1/webhooks/endpoints", {
      key,
      body: { url: receiver.url, events: ["refund.created", "refund.approved", "refund.completed"] },
    })).json.data;
    const payinId = await paidUsdt(gw, key, "30");
    const refundId = (await askRefund(gw, key, payinId, { amount: "12" })).json.data.refundId;
    await approve(gw, refundId);
    const page = pathOf((await getRefund(gw, key, refundId)).customerPageUrl);
    const customer = randomTronAddress();
    assertEquals((await postAddress(gw, page, customer)).status, 200);
    const [{ id: transfer }] = await gw.db.query<{ id: string }>(
      "SELECT outbound_id AS id FROM refunds WHERE id = $1",
      [refundId],
    );
    assertEquals(await sendOutbound(gw.deps, transfer), "sent");
    gw.devnet.mine(1 + gw.deps.config.tron.payoutConfirmations);
    await scanChain(gw.deps);
    await scanChain(gw.deps);
    assertEquals((await getRefund(gw, key, refundId)).status, "COMPLETED");
    await deliverAll(gw);
    const mine = receiver.received.filter((r) => JSON.parse(r.body).data.refundId === refundId);
    for (const got of mine) {
      assert(await verifySignature(endpoint.secret, got.headers.get("service-signature"), got.body));
    }
    const bodies = mine.map((r) => JSON.parse(r.body));
    assertEquals(bodies.map((b) => b.event).sort(), [
      "refund.approved",
      "refund.completed",
      "refund.created",
    ]);
    const completed = bodies.find((b) => b.event === "refund.completed");
    assertEquals([completed.data.amount, completed.data.currency, completed.data.paymentMethod], [
      "12.000000",
      "USDT_TRC20",
      "USDT_TRC20",
    ]);
  } finally {
    await receiver.close();
    await gw.close();
  }
});
