// Delivery mechanics against a real local receiver, with a manual clock so retries need no waiting:
// backoff, timeouts, exhaustion, disabling, concurrent workers, crash recovery, the sweep.
import type { Db } from "../../db/mod.ts";
import { manualClock } from "../../domain/clock.ts";
import { emitEvent, sampleEventData } from "../../domain/webhooks/events.ts";
import {
  deliverWebhook,
  signatureHeader,
  sweepDueDeliveries,
  UNRESOLVED_ERROR,
} from "../../domain/webhooks/delivery.ts";
import { handleWebhookSweep } from "../../jobs/webhook_delivery.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

type Reply = number | "hang";

function startReceiver() {
  const received: Array<{ headers: Headers; body: string }> = [];
  const script: Reply[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => release = r);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    received.push({ headers: req.headers, body: await req.text() });
    const reply = script.shift() ?? 200;
    if (reply === "hang") {
      await released;
      return new Response("too late");
    }
    await new Promise((r) => setTimeout(r, 20)); // a little latency, so concurrent callers overlap
    return new Response("status " + reply, { status: reply });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hooks`,
    received,
    script,
    async close() {
      release();
      await server.shutdown();
    },
  };
}

Deno.test("webhook delivery: retries, timeouts, disabling, leases", async (t) => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock, env: { WEBHOOK_TIMEOUT_MS: "200" } });
  const receiver = startReceiver();
  try {
    const merchant = await gw.createMerchant("Delivery Shop");
    const key = merchant.keys.liveSecret;
    const createEndpoint = async (body: Record<string, unknown> = {}) => {
      const res = await gw.request("POST", "/v1/webhooks/endpoints", {
        key,
        body: { url: receiver.url, events: ["payin.confirmed"], ...body },
      });
      assertEquals(res.status, 201);
      return res.json.data as { id: string; secret: string };
    };
    const sendTest = async (endpointId: string) => {
      const res = await gw.request("POST", "/v1/webhooks/test", {
        key,
        body: { endpointId, eventType: "payin.confirmed" },
      });
      assertEquals(res.status, 200, res.text);
      return res.json.data.deliveryId as string;
    };
    const deliveryOf = async (id: string) =>
      (await gw.request("GET", `/v1/webhooks/deliveries/${id}`, { key })).json.data;
    const endpointOf = async (id: string) =>
      (await gw.request("GET", `/v1/webhooks/endpoints/${id}`, { key })).json.data;

    await t.step("signatureHeader is t=<unix seconds>,v1=<hex HMAC of '<t>.<body>'>", async () => {
      const header = await signatureHeader("whs_test", '{"a":1}', new Date(1_700_000_000_500));
      const key = await crypto.subtle.importKey(
        "raw",
        new TextEncoder().encode("whs_test"),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode('1700000000.{"a":1}'));
      const hex = Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");
      assertEquals(header, `t=1700000000,v1=${hex}`);
    });

    await t.step("500 then 200: retried after retryIntervalSeconds, then SUCCEEDED", async () => {
      const ep = await createEndpoint();
      const id = await sendTest(ep.id);
      receiver.script.push(500);
      gw.enqueued.length = 0;
      const first = await deliverWebhook(gw.deps, id);
      assertEquals(first.outcome, "retrying");
      if (first.outcome !== "retrying") return;
      assertEquals(first.statusCode, 500);
      assertEquals(first.nextAttemptAt.getTime() - clock.now().getTime(), 60_000);
      assertEquals(gw.enqueued, [{ message: { type: "webhook.deliver", deliveryId: id }, delayMs: 60_000 }]);
      const pending = await deliveryOf(id);
      assertEquals([pending.status, pending.attemptCount, pending.lastStatusCode], ["PENDING", 1, 500]);
      assertEquals(pending.nextAttemptAt, new Date(clock.now().getTime() + 60_000).toISOString());
      // Not due yet: an early message does nothing.
      clock.advance(59_000);
      assertEquals((await deliverWebhook(gw.deps, id)).outcome, "not_claimed");
      clock.advance(1_000);
      assertEquals((await deliverWebhook(gw.deps, id)).outcome, "succeeded");
      const done = await deliveryOf(id);
      assertEquals([done.status, done.attemptCount, done.lastStatusCode], ["SUCCEEDED", 2, 200]);
      assertEquals(
        done.attempts.map((a: { attemptNo: number; statusCode: number; succeeded: boolean }) => [
          a.attemptNo,
          a.statusCode,
          a.succeeded,
        ]),
        [[1, 500, false], [2, 200, true]],
      );
      // Both attempts carried the same event id and body.
      const [a, b] = receiver.received.slice(-2);
      assertEquals(a.headers.get("service-event-id"), b.headers.get("service-event-id"));
      assertEquals(a.body, b.body);
    });

    await t.step(
      "backoff doubles (60 s, 120 s, 240 s) and the 4th failure exhausts maxRetries 3",
      async () => {
        const ep = await createEndpoint();
        const id = await sendTest(ep.id);
        receiver.script.push(500, 503, 502, 500);
        gw.enqueued.length = 0;
        const outcomes: string[] = [];
        for (const wait of [0, 60_000, 120_000, 240_000]) {
          clock.advance(wait);
          outcomes.push((await deliverWebhook(gw.deps, id)).outcome);
        }
        assertEquals(outcomes, ["retrying", "retrying", "retrying", "failed"]);
        assertEquals(gw.enqueued.map((e) => e.delayMs), [60_000, 120_000, 240_000]);
        const failed = await deliveryOf(id);
        assertEquals([failed.status, failed.attemptCount, failed.nextAttemptAt], ["FAILED", 4, null]);
        assertMatch(failed.completedAt, /Z$/);
        assertEquals((await endpointOf(ep.id)).consecutiveFailures, 1);
        assertEquals((await deliverWebhook(gw.deps, id)).outcome, "not_claimed");
        // A manual retry gives a FAILED delivery one more attempt; a success resets the failure count.
        const retried = await gw.request("POST", `/v1/webhooks/deliveries/${id}/retry`, { key });
        assertEquals([retried.status, retried.json.data.status], [200, "PENDING"]);
        assertEquals((await deliverWebhook(gw.deps, id)).outcome, "succeeded");
        assertEquals((await endpointOf(ep.id)).consecutiveFailures, 0);
      },
    );

    await t.step("a receiver that does not answer in WEBHOOK_TIMEOUT_MS is a failed attempt", async () => {
      const ep = await createEndpoint({ maxRetries: 0 });
      const id = await sendTest(ep.id);
      receiver.script.push("hang");
      const started = performance.now();
      const result = await deliverWebhook(gw.deps, id);
      assert(performance.now() - started < 5_000);
      assertEquals(result.outcome, "failed");
      const d = await deliveryOf(id);
      assertEquals([d.status, d.lastStatusCode], ["FAILED", null]);
      assertMatch(d.attempts[0].error, /no response within 200 ms/);
    });

    await t.step(
      "5 consecutive exhausted deliveries disable the endpoint; reactivate turns it on",
      async () => {
        const ep = await createEndpoint({ maxRetries: 0 });
        const disabledResults: boolean[] = [];
        for (let i = 0; i < 5; i++) {
          const id = await sendTest(ep.id);
          receiver.script.push(500);
          const r = await deliverWebhook(gw.deps, id);
          assertEquals(r.outcome, "failed");
          if (r.outcome === "failed") disabledResults.push(r.endpointDisabled);
        }
        assertEquals(disabledResults, [false, false, false, false, true]);
        const disabled = await endpointOf(ep.id);
        assertEquals([disabled.status, disabled.consecutiveFailures], ["DISABLED", 5]);
        // A disabled endpoint gets no new deliveries and cannot be tested.
        const ev = await emitEvent(gw.deps, {
          merchantId: merchant.merchantId,
          isSandbox: false,
          type: "payin.confirmed",
          data: sampleEventData("payin.confirmed", clock.now()),
        });
        const toDisabled = await gw.db.query(
          "SELECT id FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2",
          [
            ev.eventId,
            ep.id,
          ],
        );
        assertEquals(toDisabled.length, 0);
        // The other (active) endpoints of this merchant did get it; deliver so later steps start clean.
        for (const id of ev.deliveryIds) {
          assertEquals((await deliverWebhook(gw.deps, id)).outcome, "succeeded");
        }
        const test = await gw.request("POST", "/v1/webhooks/test", {
          key,
          body: { endpointId: ep.id, eventType: "payin.confirmed" },
        });
        assertEquals([test.status, test.json.error.code], [400, "INVALID_STATE"]);
        const re = await gw.request("POST", `/v1/webhooks/endpoints/${ep.id}/reactivate`, { key });
        assertEquals([re.status, re.json.data.status, re.json.data.consecutiveFailures], [200, "ACTIVE", 0]);
        assertEquals(re.json.data.disabledAt, null);
        assertEquals((await deliverWebhook(gw.deps, await sendTest(ep.id))).outcome, "succeeded");
      },
    );

    await t.step("a pending delivery of a DISABLED endpoint is not sent until reactivated", async () => {
      const ep = await createEndpoint();
      const id = await sendTest(ep.id);
      await gw.db.query("UPDATE webhook_endpoints SET status = 'DISABLED' WHERE id = $1", [ep.id]);
      const before = receiver.received.length;
      assertEquals((await deliverWebhook(gw.deps, id)).outcome, "not_claimed");
      assertEquals(await sweepDueDeliveries(gw.deps), 0);
      assertEquals(receiver.received.length, before);
      gw.enqueued.length = 0;
      await gw.request("POST", `/v1/webhooks/endpoints/${ep.id}/reactivate`, { key });
      assertEquals(gw.enqueued.map((e) => e.message.deliveryId), [id]);
      assertEquals((await deliverWebhook(gw.deps, id)).outcome, "succeeded");
    });

    await t.step("two concurrent deliverWebhook calls send once", async () => {
      const ep = await createEndpoint();
      const id = await sendTest(ep.id);
      const before = receiver.received.length;
      const outcomes = (await Promise.all([deliverWebhook(gw.deps, id), deliverWebhook(gw.deps, id)]))
        .map((r) => r.outcome).sort();
      assertEquals(outcomes, ["not_claimed", "succeeded"]);
      assertEquals(receiver.received.length, before + 1);
      assertEquals((await deliveryOf(id)).attempts.length, 1);
    });

    await t.step("a crash after sending re-sends the same event id once the lease expires", async () => {
      const ep = await createEndpoint();
      const id = await sendTest(ep.id);
      // The worker sends, then dies before it can record anything.
      // The claim (first statement) goes through; everything after it fails as if the process died.
      let statements = 0;
      const killed = () => Promise.reject(new Error("process killed"));
      const crashingDb: Db = {
        ...gw.db,
        query: ((text: string, params?: unknown[]) =>
          statements++ === 0 ? gw.db.query(text, params) : killed()) as Db["query"],
        tx: killed,
      };
      await assertRejects(() =>
        deliverWebhook({ ...gw.deps, db: crashingDb }, id)
      );
      const first = receiver.received.at(-1)!;
      const stuck = await deliveryOf(id);
      assertEquals([stuck.status, stuck.attemptCount], ["PENDING", 0]);
      // The lease still holds: neither a message nor the sweep sends it again yet.
      assertEquals((await deliverWebhook(gw.deps, id)).outcome, "not_claimed");
      assertEquals(await sweepDueDeliveries(gw.deps), 0);
      clock.advance(61_000);
      gw.enqueued.length = 0;
      assertEquals(await handleWebhookSweep(gw.deps), 1);
      assertEquals(gw.enqueued.map((e) => e.message.deliveryId), [id]);
      assertEquals((await deliverWebhook(gw.deps, id)).outcome, "succeeded");
      const second = receiver.received.at(-1)!;
      assertEquals(second.headers.get("service-event-id"), first.headers.get("service-event-id"));
      assertEquals(second.headers.get("service-delivery-id"), id);
      assertEquals(second.body, first.body);
      // The receiver dedupes on Service-Event-Id: two requests, one event.
      const eventIds = new Set(receiver.received.slice(-2).map((r) => r.headers.get("service-event-id")));
      assertEquals(eventIds.size, 1);
    });

    await t.step("the sweep finds due deliveries whose message was lost", async () => {
      assertEquals(await sweepDueDeliveries(gw.deps), 0);
      const ep = await createEndpoint();
      const id = await sendTest(ep.id);
      gw.enqueued.length = 0; // the message is lost
      assertEquals(await sweepDueDeliveries(gw.deps), 1);
      assertEquals(gw.enqueued.map((e) => e.message), [{ type: "webhook.deliver", deliveryId: id }]);
      receiver.script.push(500);
      await deliverWebhook(gw.deps, id);
      assertEquals(await sweepDueDeliveries(gw.deps), 0, "not due until its backoff passes");
      clock.advance(60_000);
      assertEquals(await sweepDueDeliveries(gw.deps), 1);
      await deliverWebhook(gw.deps, id);
    });

    await t.step("a name that now resolves to a private address is refused at connect time", async () => {
      const ep = await createEndpoint({ url: "http://hooks.rebind-test.example/x" });
      const id = await sendTest(ep.id);
      let dialled = 0;
      const result = await deliverWebhook({
        ...gw.deps,
        transport: () => {
          dialled++;
          return Promise.resolve({ status: 200 });
        },
        resolveDns: (_host, type) => Promise.resolve(type === "A" ? ["10.0.0.7"] : []),
      }, id);
      assertEquals(dialled, 0);
      assertEquals(result.outcome, "retrying");
      const d = await deliveryOf(id);
      assertEquals(d.attemptCount, 1);
      assertEquals(d.attempts[0].error, UNRESOLVED_ERROR);
    });

    await t.step("redirects are not followed: a 302 is a failed attempt", async () => {
      const ep = await createEndpoint({ maxRetries: 0 });
      const id = await sendTest(ep.id);
      receiver.script.push(302);
      assertEquals((await deliverWebhook(gw.deps, id)).outcome, "failed");
      assertMatch((await deliveryOf(id)).lastError, /redirect/);
    });

    await t.step("a secret that cannot be decrypted is a failed attempt, not a job that throws", async () => {
      const ep = await createEndpoint({ maxRetries: 0 });
      const id = await sendTest(ep.id);
      await gw.db.query("UPDATE webhook_endpoints SET secret_encrypted = 'v1.AAAA.BBBB' WHERE id = $1", [
        ep.id,
      ]);
      const before = receiver.received.length;
      assertEquals((await deliverWebhook(gw.deps, id)).outcome, "failed");
      assertEquals(receiver.received.length, before);
      assertMatch((await deliveryOf(id)).lastError, /cannot be decrypted/);
    });

    await t.step("the secret never reaches the logs", () => {
      const text = JSON.stringify(gw.logLines);
      assert(!/whs_[0-9a-z]{20}/.test(text));
      assert(gw.logLines.some((l) => l.msg === "webhook delivered"));
    });
  } finally {
    await receiver.close();
    await gw.close();
  }
});
