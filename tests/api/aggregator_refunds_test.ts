// Refunds of mobile money pay-ins through each live aggregator, end to end over HTTP against its simulator:
// asked by the merchant, approved by an operator, paid out as the aggregator's disbursement to the payer's
// number, finished by the aggregator's callback (PayDunya's data[hash] checked; CinetPay's unsigned one
// re-queried), with every refund.* webhook the merchant receives verified by its signature. Card refunds
// through an aggregator stay REFUND_RAIL_NOT_AVAILABLE: neither publishes a refund call.
import { deliveryPump, handleWebhookDeliver } from "../../jobs/webhook_delivery.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  type AggregatorFixture as Fixture,
  startCinetPayGateway,
  startPayDunyaGateway,
} from "../aggregators/fixture.ts";
import {
  approve,
  askRefund,
  getRefund,
  inFlight,
  providerRefOf,
  runRefundJobs,
  xofWallet,
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

/** What a merchant's receiver does: HMAC-SHA256 over "<t>.<raw body>", 300 s tolerance around `now`. */
async function verifySignature(secret: string, header: string | null, rawBody: string, now: Date) {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "");
  if (!m || Math.abs(now.getTime() / 1000 - Number(m[1])) > 300) return false;
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

async function deliverAll(f: Fixture) {
  const gw = f.gw;
  for (const { message } of gw.enqueued.splice(0).filter((e) => e.message.type === "webhook.deliver")) {
    await handleWebhookDeliver(message as Extract<typeof message, { type: "webhook.deliver" }>, gw.deps);
  }
  await deliveryPump(gw.deps).idle();
}

/**
 * The whole story for one aggregator: `pay` settles a pay-in on the aggregator's page, `planLate` makes
 * the payer's disbursement answer "in progress" first, `settle` sends the aggregator's final callback,
 * `forge` posts a callback the aggregator never sent.
 */
async function refundStory(
  f: Fixture,
  agg: {
    pay: (payinId: string) => Promise<void>;
    planLate: (nationalDigits: string) => void;
    settle: () => Promise<void>;
    forge: (reference: string) => Promise<number>;
    provider: string;
  },
) {
  const key = f.merchant.keys.liveSecret;
  const wallet = (rail: "MOMO" | "CARD") => xofWallet(f.gw, key, rail);
  const receiver = startReceiver();
  try {
    const endpoint = (await f.gw.request("POST", "/v1/webhooks/endpoints", {
      key,
      body: {
        url: receiver.url,
        events: ["refund.created", "refund.approved", "refund.rejected", "refund.completed", "refund.failed"],
      },
    })).json.data;

    // The customer pays 5000 XOF by mobile money (+226 70 12 34 56) on the aggregator's page.
    const momo = await f.payin("MOBILE_MONEY", "5000");
    await agg.pay(momo.transactionId);
    assertEquals(await f.payinStatus(momo.transactionId), "CONFIRMED");
    const card = await f.payin("CARD", "5000");
    await agg.pay(card.transactionId);
    assertEquals(await f.payinStatus(card.transactionId), "CONFIRMED");
    const before = await wallet("MOMO");
    assertEquals(before, 4900);

    // A card refund has no aggregator call to go through: refused before anything is reserved.
    const refused = await askRefund(f.gw, key, card.transactionId, { reason: "Order cancelled" });
    assertEquals([refused.status, refused.json.error?.code], [400, "REFUND_RAIL_NOT_AVAILABLE"]);
    assertEquals(await wallet("CARD"), 4825);

    // The merchant refunds 3000 of it; an operator approves; the payout to the payer answers "in progress".
    agg.planLate("70123456");
    const asked = await askRefund(f.gw, key, momo.transactionId, {
      amount: "3000",
      reason: "Order cancelled",
    });
    assertEquals(asked.status, 201, asked.text);
    const refundId = asked.json.data.refundId as string;
    assertEquals(await wallet("MOMO"), before - 3000);
    assertEquals((await approve(f.gw, refundId)).status, 200);
    await runRefundJobs(f.gw);
    const sending = await getRefund(f.gw, key, refundId);
    assertEquals(sending.status, "PROCESSING");
    const [d] = await f.gw.db.query<{ id: string; reference: string; status: string; provider: string }>(
      "SELECT id, reference, status, provider FROM fiat_disbursements WHERE owner_kind = 'REFUND' AND owner_id = $1",
      [refundId],
    );
    assertEquals([d.reference, d.status, d.provider], [`refund:${refundId}`, "PENDING", agg.provider]);

    // A callback the aggregator never sent moves nothing.
    assertEquals(await agg.forge(d.reference), agg.provider === "cinetpay-transfer" ? 200 : 400);
    assertEquals((await getRefund(f.gw, key, refundId)).status, "PROCESSING");

    // The aggregator's genuine callback: re-queried, the refund completes once; a replay changes nothing.
    const n = f.answers.length;
    await agg.settle();
    assertEquals(f.answers.slice(n), [200]);
    const done = await getRefund(f.gw, key, refundId);
    assertEquals([done.status, done.amount, done.providerRef !== null], ["COMPLETED", "3000", true]);
    assertEquals(await inFlight(f.gw, "MOMO"), 0);
    assertEquals(await wallet("MOMO"), before - 3000);
    const payin = (await f.gw.request("GET", `/v1/payments/${momo.transactionId}`, { key })).json.data;
    assertEquals(payin.refundedAmount, "3000");
    const [paid] = await f.gw.db.query<{ paid: string }>(
      "SELECT amount_paid::text AS paid FROM aggregator_amounts WHERE subject_kind = 'DISBURSEMENT' AND subject_id = $1",
      [d.id],
    );
    assertEquals(paid.paid, "3000");

    // Every refund.* delivery the merchant received is signed with its endpoint's secret.
    await deliverAll(f);
    assertEquals(receiver.received.length, 3);
    for (const got of receiver.received) {
      assert(
        await verifySignature(endpoint.secret, got.headers.get("service-signature"), got.body, f.clock.now()),
      );
    }
    const bodies = receiver.received.map((r) => JSON.parse(r.body));
    assertEquals(bodies.map((b) => b.event).sort(), [
      "refund.approved",
      "refund.completed",
      "refund.created",
    ]);
    const completed = bodies.find((b) => b.event === "refund.completed");
    assertEquals(
      [completed.data.refundId, completed.data.transactionId, completed.data.amount, completed.data.status],
      [refundId, momo.transactionId, "3000", "COMPLETED"],
    );
    // A forged signature would not pass the same check.
    assert(
      !(await verifySignature(
        "whs_wrong",
        receiver.received[0].headers.get("service-signature"),
        receiver.received[0].body,
        f.clock.now(),
      )),
    );
  } finally {
    await receiver.close();
  }
}

Deno.test("CinetPay: a mobile money refund from request to completed, paid as a transfer to the payer", async () => {
  const { f, sim, close } = await startCinetPayGateway();
  try {
    await refundStory(f, {
      provider: "cinetpay-transfer",
      pay: (id) => sim.pay(id),
      planLate: (digits) => sim.planTransfer(digits, "LATE_VAL"),
      settle: () => sim.settleTransfers(),
      // CinetPay's transfer notifications are unsigned: a forged "VAL" is re-queried, CinetPay says NEW.
      forge: async (reference) => {
        const res = await f.gw.app.request("/v1/providers/momo/disbursement-callback", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            client_transaction_id: reference,
            treatment_status: "VAL",
            amount: "3000",
          })
            .toString(),
        });
        await res.body?.cancel();
        return res.status;
      },
    });
  } finally {
    await close();
  }
});

Deno.test("PayDunya: a mobile money refund from request to completed, paid as a disbursement to the payer", async () => {
  const { f, sim, close } = await startPayDunyaGateway();
  try {
    await refundStory(f, {
      provider: "paydunya-disburse",
      pay: async (id) => await sim.pay(await providerRefOf(f.gw, id)),
      planLate: (digits) => sim.planDisbursement(digits, "LATE_Success"),
      settle: () => sim.settleDisbursements(),
      // PayDunya's callback carries data[hash] (SHA-512 of the master key): a wrong one is refused.
      forge: async (reference) => {
        const res = await f.gw.app.request("/v1/providers/momo/disbursement-callback", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            "data[hash]": "0".repeat(128),
            "data[status]": "Success",
            "data[disburse_id]": reference,
          }).toString(),
        });
        await res.body?.cancel();
        return res.status;
      },
    });
  } finally {
    await close();
  }
});
