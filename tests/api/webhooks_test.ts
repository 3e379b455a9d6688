// Webhook endpoints and deliveries through the whole app, with a real local receiver that verifies
// signatures exactly as the specification tells merchants to.
import { deliverWebhook } from "../../domain/webhooks/delivery.ts";
import { emitEvent } from "../../domain/webhooks/events.ts";
import { deliveryPump, handleWebhookDeliver } from "../../jobs/webhook_delivery.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

type Received = { headers: Headers; body: string };

function startReceiver() {
  const received: Received[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    received.push({ headers: req.headers, body: await req.text() });
    return new Response("ok");
  });
  const url = `http://127.0.0.1:${server.addr.port}/hooks`;
  return { url, received, close: () => server.shutdown() };
}

const enc = new TextEncoder();
async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(message)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What a merchant's receiver does: raw body, HMAC over "<t>.<body>", 300 s tolerance, constant time. */
async function verifySignature(secret: string, header: string | null, rawBody: string): Promise<boolean> {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "");
  if (!m) return false;
  if (Math.abs(Date.now() / 1000 - Number(m[1])) > 300) return false;
  const expected = await hmacHex(secret, `${m[1]}.${rawBody}`);
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ m[2].charCodeAt(i);
  return diff === 0;
}

Deno.test("webhook endpoints, test deliveries and signatures", async (t) => {
  const gw = await startTestGateway();
  const receiver = startReceiver();
  try {
    const merchant = await gw.createMerchant("Webhook Shop");
    const other = await gw.createMerchant("Other Shop");
    const live = merchant.keys.liveSecret;
    const countEndpoints = async () =>
      (await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_endpoints"))[0].n;
    let endpoint: { id: string; secret: string };

    await t.step(
      "POST /v1/webhooks/endpoints registers with defaults and shows the secret once",
      async () => {
        const res = await gw.request("POST", "/v1/webhooks/endpoints", {
          key: live,
          body: { url: receiver.url, events: ["payin.confirmed", "payin.failed"] },
        });
        assertEquals(res.status, 201);
        assertEquals(res.json.success, true);
        const d = res.json.data;
        assertMatch(d.id, /^whe_[0-9a-z]{26}$/);
        assertMatch(d.secret, /^whs_[0-9a-z]{20,}$/);
        assertEquals(d.url, receiver.url);
        assertEquals(d.events, ["payin.confirmed", "payin.failed"]);
        assertEquals([d.maxRetries, d.retryBackoff, d.retryIntervalSeconds], [3, "EXPONENTIAL", 60]);
        assertEquals([d.status, d.consecutiveFailures, d.isSandbox], ["ACTIVE", 0, false]);
        assertMatch(d.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        endpoint = d;
        const stored = await gw.db.query<{ secret_encrypted: string }>(
          "SELECT secret_encrypted FROM webhook_endpoints WHERE id = $1",
          [d.id],
        );
        assert(!stored[0].secret_encrypted.includes(d.secret.slice(4)), "secret is encrypted at rest");
      },
    );

    await t.step("GET one and the paged list never show the secret", async () => {
      const one = await gw.request("GET", `/v1/webhooks/endpoints/${endpoint.id}`, { key: live });
      assertEquals(one.status, 200);
      assertEquals(one.json.data.id, endpoint.id);
      assertEquals("secret" in one.json.data, false);
      const list = await gw.request("GET", "/v1/webhooks/endpoints?page=1&limit=10", { key: live });
      assertEquals(list.status, 200);
      assertEquals(list.json.data.items.length, 1);
      assertEquals("secret" in list.json.data.items[0], false);
      assertEquals(list.json.data.meta, {
        page: 1,
        limit: 10,
        total: 1,
        totalPages: 1,
        hasNext: false,
        hasPrev: false,
      });
      assert(!one.text.includes(endpoint.secret) && !list.text.includes(endpoint.secret));
    });

    await t.step(
      "retryConfig and root retry fields are both accepted; contradicting values are not",
      async () => {
        const nested = await gw.request("POST", "/v1/webhooks/endpoints", {
          key: live,
          body: {
            url: receiver.url,
            events: ["payout.confirmed"],
            retryConfig: { maxRetries: 5, retryBackoff: "EXPONENTIAL", retryIntervalSeconds: 30 },
          },
        });
        assertEquals(nested.status, 201);
        assertEquals([nested.json.data.maxRetries, nested.json.data.retryIntervalSeconds], [5, 30]);
        const root = await gw.request("POST", "/v1/webhooks/endpoints", {
          key: live,
          body: { url: receiver.url, events: ["payout.failed"], maxRetries: 0, retryIntervalSeconds: 10 },
        });
        assertEquals(root.status, 201);
        assertEquals([root.json.data.maxRetries, root.json.data.retryIntervalSeconds], [0, 10]);
        const before = await countEndpoints();
        const both = await gw.request("POST", "/v1/webhooks/endpoints", {
          key: live,
          body: {
            url: receiver.url,
            events: ["payout.failed"],
            maxRetries: 2,
            retryConfig: { maxRetries: 4 },
          },
        });
        assertEquals(both.status, 400);
        assertEquals(both.json.error.code, "VALIDATION_ERROR");
        assertEquals(both.json.error.details[0].field, "retryConfig.maxRetries");
        assertEquals(await countEndpoints(), before);
        for (const id of [nested.json.data.id, root.json.data.id]) {
          assertEquals(
            (await gw.request("DELETE", `/v1/webhooks/endpoints/${id}`, { key: live })).status,
            200,
          );
        }
      },
    );

    await t.step("PATCH updates url, events and retry settings; an empty patch is refused", async () => {
      const res = await gw.request("PATCH", `/v1/webhooks/endpoints/${endpoint.id}`, {
        key: live,
        body: { events: ["payin.confirmed", "payin.created"], retryConfig: { maxRetries: 2 } },
      });
      assertEquals(res.status, 200);
      assertEquals(res.json.data.events, ["payin.confirmed", "payin.created"]);
      assertEquals(res.json.data.maxRetries, 2);
      assertEquals(res.json.data.url, receiver.url);
      const empty = await gw.request("PATCH", `/v1/webhooks/endpoints/${endpoint.id}`, {
        key: live,
        body: {},
      });
      assertEquals(empty.status, 400);
      assertEquals(empty.json.error.code, "VALIDATION_ERROR");
    });

    let firstDeliveryId = "";
    await t.step("POST /v1/webhooks/test delivers a signed body the receiver verifies", async () => {
      gw.enqueued.length = 0;
      const res = await gw.request("POST", "/v1/webhooks/test", {
        key: live,
        body: { endpointId: endpoint.id, eventType: "payin.confirmed" },
      });
      assertEquals(res.status, 200);
      assertEquals(typeof res.json.data.message, "string");
      assertMatch(res.json.data.deliveryId, /^dlv_[0-9a-z]{26}$/);
      firstDeliveryId = res.json.data.deliveryId;
      assertEquals(gw.enqueued.map((e) => e.message), [{
        type: "webhook.deliver",
        deliveryId: firstDeliveryId,
      }]);
      // The queue listener's handler, as jobs/mod.ts runs it.
      await handleWebhookDeliver(gw.enqueued[0].message, gw.deps);
      await deliveryPump(gw.deps).idle();
      assertEquals(receiver.received.length, 1);
      const got = receiver.received[0];
      assert(await verifySignature(endpoint.secret, got.headers.get("service-signature"), got.body));
      assertEquals(got.headers.get("service-delivery-id"), firstDeliveryId);
      assertEquals(got.headers.get("service-event-id"), res.json.data.eventId);
      assertMatch(got.headers.get("service-event-id")!, /^evt_/);
      assertEquals(got.headers.get("content-type"), "application/json");
      assert(got.headers.get("user-agent"));
      const body = JSON.parse(got.body);
      assertEquals(Object.keys(body), ["event", "data", "createdAt", "livemode", "test"]);
      assertEquals(body.event, "payin.confirmed");
      // A test delivery says so inside the signed body, and says which mode's key asked for it.
      assertEquals([body.livemode, body.test], [true, true]);
      assertEquals(body.data.status, "CONFIRMED");
      for (const field of ["transactionId", "address", "amount", "amountReceived", "txHash", "confirmedAt"]) {
        assert(field in body.data, field);
      }
      assertMatch(body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // A tampered body or another secret fails verification.
      assert(!await verifySignature(endpoint.secret, got.headers.get("service-signature"), got.body + " "));
      assert(!await verifySignature("whs_wrong", got.headers.get("service-signature"), got.body));
    });

    await t.step(
      "the delivery log shows the delivery and its attempts; a success cannot be retried",
      async () => {
        const res = await gw.request("GET", `/v1/webhooks/endpoints/${endpoint.id}/deliveries`, {
          key: live,
        });
        assertEquals(res.status, 200);
        assertEquals(res.json.data.meta.total, 1);
        const d = res.json.data.items[0];
        assertEquals(d.id, firstDeliveryId);
        assertEquals([d.eventType, d.status, d.attemptCount, d.lastStatusCode], [
          "payin.confirmed",
          "SUCCEEDED",
          1,
          200,
        ]);
        assertEquals(d.nextAttemptAt, null);
        assertMatch(d.completedAt, /Z$/);
        assertEquals(d.attempts.length, 1);
        assertEquals([d.attempts[0].attemptNo, d.attempts[0].statusCode, d.attempts[0].succeeded], [
          1,
          200,
          true,
        ]);
        assertEquals(typeof d.attempts[0].durationMs, "number");
        const one = await gw.request("GET", `/v1/webhooks/deliveries/${firstDeliveryId}`, { key: live });
        assertEquals(one.json.data.id, firstDeliveryId);
        const retry = await gw.request("POST", `/v1/webhooks/deliveries/${firstDeliveryId}/retry`, {
          key: live,
        });
        assertEquals(retry.status, 400);
        assertEquals(retry.json.error.code, "INVALID_STATE");
        // Running the job again does nothing: the delivery is done.
        assertEquals((await deliverWebhook(gw.deps, firstDeliveryId)).outcome, "not_claimed");
        assertEquals(receiver.received.length, 1);
      },
    );

    await t.step("rotate-secret returns a new secret once; the old one no longer verifies", async () => {
      const res = await gw.request("POST", `/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, {
        key: live,
      });
      assertEquals(res.status, 200);
      assertMatch(res.json.data.secret, /^whs_/);
      assert(res.json.data.secret !== endpoint.secret);
      const test = await gw.request("POST", "/v1/webhooks/test", {
        key: live,
        body: { endpointId: endpoint.id, eventType: "payout.failed" },
      });
      assertEquals((await deliverWebhook(gw.deps, test.json.data.deliveryId)).outcome, "succeeded");
      const got = receiver.received.at(-1)!;
      assertEquals(JSON.parse(got.body).event, "payout.failed");
      assert(await verifySignature(res.json.data.secret, got.headers.get("service-signature"), got.body));
      assert(!await verifySignature(endpoint.secret, got.headers.get("service-signature"), got.body));
      endpoint = { ...endpoint, secret: res.json.data.secret };
    });

    await t.step("reactivate on an ACTIVE endpoint is harmless", async () => {
      const res = await gw.request("POST", `/v1/webhooks/endpoints/${endpoint.id}/reactivate`, { key: live });
      assertEquals(res.status, 200);
      assertEquals([res.json.data.status, res.json.data.consecutiveFailures], ["ACTIVE", 0]);
    });

    await t.step("an endpoint made with a sandbox key gets sandbox events only", async () => {
      const sandbox = await gw.request("POST", "/v1/webhooks/endpoints", {
        key: merchant.keys.testSecret,
        body: { url: receiver.url, events: ["payin.confirmed"] },
      });
      assertEquals(sandbox.status, 201);
      assertEquals(sandbox.json.data.isSandbox, true);
      const fromLive = await gw.request("GET", `/v1/webhooks/endpoints/${sandbox.json.data.id}`, {
        key: live,
      });
      assertEquals(fromLive.status, 404);
      assertEquals(fromLive.json.error.code, "NOT_FOUND");
      const liveList = await gw.request("GET", "/v1/webhooks/endpoints", { key: live });
      assertEquals(liveList.json.data.items.map((e: { id: string }) => e.id), [endpoint.id]);
      const data = { transactionId: "pay_x", status: "CONFIRMED" };
      const sandboxEvent = await emitEvent(gw.deps, {
        merchantId: merchant.merchantId,
        isSandbox: true,
        type: "payin.confirmed",
        data,
      });
      const liveEvent = await emitEvent(gw.deps, {
        merchantId: merchant.merchantId,
        isSandbox: false,
        type: "payin.confirmed",
        data,
      });
      const endpointOf = async (id: string) =>
        (await gw.db.query<{ endpoint_id: string }>(
          "SELECT endpoint_id FROM webhook_deliveries WHERE id = $1",
          [
            id,
          ],
        ))[0].endpoint_id;
      assertEquals(sandboxEvent.deliveryIds.length, 1);
      assertEquals(await endpointOf(sandboxEvent.deliveryIds[0]), sandbox.json.data.id);
      // The signed bytes say the mode: a sandbox payin.confirmed never reads like a live one.
      const signedBody = async (id: string) =>
        JSON.parse(
          (await gw.db.query<{ body: string }>("SELECT body FROM webhook_deliveries WHERE id = $1", [id]))[0]
            .body,
        );
      const [sbBody, liveBody] = [
        await signedBody(sandboxEvent.deliveryIds[0]),
        await signedBody(liveEvent.deliveryIds[0]),
      ];
      assertEquals([sbBody.livemode, sbBody.test], [false, false]);
      assertEquals([liveBody.livemode, liveBody.test], [true, false]);
      assertEquals(sbBody.data, liveBody.data);
      assertEquals(liveEvent.deliveryIds.length, 1);
      assertEquals(await endpointOf(liveEvent.deliveryIds[0]), endpoint.id);
      const sbDeliveries = await gw.request(
        "GET",
        `/v1/webhooks/endpoints/${sandbox.json.data.id}/deliveries`,
        {
          key: merchant.keys.testSecret,
        },
      );
      assertEquals(sbDeliveries.json.data.items.map((d: { id: string }) => d.id), sandboxEvent.deliveryIds);
      const crossMode = await gw.request(
        "POST",
        `/v1/webhooks/deliveries/${sandboxEvent.deliveryIds[0]}/retry`,
        {
          key: live,
        },
      );
      assertEquals(crossMode.status, 404);
      // A sandbox key's test delivery of payin.confirmed: signed, but says sandbox and test.
      const test = await gw.request("POST", "/v1/webhooks/test", {
        key: merchant.keys.testSecret,
        body: { endpointId: sandbox.json.data.id, eventType: "payin.confirmed" },
      });
      assertEquals(test.status, 200, test.text);
      const testBody = await signedBody(test.json.data.deliveryId);
      assertEquals([testBody.event, testBody.livemode, testBody.test], ["payin.confirmed", false, true]);
    });

    await t.step("a PENDING delivery can be retried: due now and queued", async () => {
      const pending = await gw.request(
        "GET",
        `/v1/webhooks/endpoints/${endpoint.id}/deliveries?status=PENDING`,
        {
          key: live,
        },
      );
      assertEquals(pending.json.data.items.length, 1);
      gw.enqueued.length = 0;
      const res = await gw.request("POST", `/v1/webhooks/deliveries/${pending.json.data.items[0].id}/retry`, {
        key: live,
      });
      assertEquals(res.status, 200);
      assertEquals(res.json.data.status, "PENDING");
      assertEquals(gw.enqueued.length, 1);
    });

    await t.step("security: no key, publishable key, read-only restricted key, other merchant", async () => {
      const none = await gw.request("GET", "/v1/webhooks/endpoints");
      assertEquals([none.status, none.json.error.code], [401, "UNAUTHORIZED"]);
      const before = await countEndpoints();
      const pk = await gw.request("POST", "/v1/webhooks/endpoints", {
        key: merchant.keys.livePublishable,
        body: { url: receiver.url, events: ["payin.confirmed"] },
      });
      assertEquals([pk.status, pk.json.error.code, pk.json.error.cause], [
        403,
        "FORBIDDEN",
        "INSUFFICIENT_SCOPE",
      ]);
      const pkRead = await gw.request("GET", "/v1/webhooks/endpoints", {
        key: merchant.keys.livePublishable,
      });
      assertEquals(pkRead.status, 403);
      const issued = await gw.admin("POST", `/admin/api/merchants/${merchant.merchantId}/keys`, {
        kind: "restricted",
        scopes: ["webhooks_read"],
      });
      const rk = issued.json.data.key;
      assertEquals((await gw.request("GET", "/v1/webhooks/endpoints", { key: rk })).status, 200);
      const rkWrite = await gw.request("POST", "/v1/webhooks/endpoints", {
        key: rk,
        body: { url: receiver.url, events: ["payin.confirmed"] },
      });
      assertEquals([rkWrite.status, rkWrite.json.error.code], [403, "FORBIDDEN"]);
      const rkTest = await gw.request("POST", "/v1/webhooks/test", {
        key: rk,
        body: { endpointId: endpoint.id, eventType: "payin.confirmed" },
      });
      assertEquals(rkTest.status, 403);
      assertEquals(await countEndpoints(), before);

      const otherKey = other.keys.liveSecret;
      const path = `/v1/webhooks/endpoints/${endpoint.id}`;
      const attempts: Array<[string, string, unknown]> = [
        ["GET", path, undefined],
        ["PATCH", path, { url: "http://127.0.0.1:1/x" }],
        ["DELETE", path, undefined],
        ["POST", `${path}/rotate-secret`, undefined],
        ["POST", `${path}/reactivate`, undefined],
        ["GET", `${path}/deliveries`, undefined],
        ["POST", "/v1/webhooks/test", { endpointId: endpoint.id, eventType: "payin.confirmed" }],
        ["GET", `/v1/webhooks/deliveries/${firstDeliveryId}`, undefined],
        ["POST", `/v1/webhooks/deliveries/${firstDeliveryId}/retry`, undefined],
      ];
      for (const [method, p, body] of attempts) {
        const res = await gw.request(method, p, { key: otherKey, body });
        assertEquals([res.status, res.json.error.code], [404, "NOT_FOUND"], `${method} ${p}`);
      }
      const still = await gw.request("GET", path, { key: live });
      assertEquals([still.status, still.json.data.url], [200, receiver.url]);
    });

    await t.step("bad input is a 4xx envelope with the right code and creates nothing", async () => {
      const before = await countEndpoints();
      const cases: Array<[unknown, string, string | undefined]> = [
        [{ url: receiver.url, events: ["payin.nope"] }, "VALIDATION_ERROR", "events.0"],
        [{ url: receiver.url, events: [] }, "VALIDATION_ERROR", "events"],
        [{ url: receiver.url }, "VALIDATION_ERROR", "events"],
        [{ url: receiver.url, events: ["payin.created"], maxRetries: 11 }, "VALIDATION_ERROR", "maxRetries"],
        [
          { url: receiver.url, events: ["payin.created"], retryConfig: { maxRetries: 11 } },
          "VALIDATION_ERROR",
          "retryConfig.maxRetries",
        ],
        [
          { url: receiver.url, events: ["payin.created"], retryBackoff: "LINEAR" },
          "VALIDATION_ERROR",
          "retryBackoff",
        ],
        [{ url: receiver.url, events: ["payin.created"], colour: "red" }, "VALIDATION_ERROR", "colour"],
        [{ url: "not a url", events: ["payin.created"] }, "VALIDATION_ERROR", "url"],
        [{ url: "ftp://example.com/x", events: ["payin.created"] }, "VALIDATION_ERROR", "url"],
        [{ url: "http://10.1.2.3/x", events: ["payin.created"] }, "VALIDATION_ERROR", "url"],
      ];
      for (const [body, code, field] of cases) {
        const res = await gw.request("POST", "/v1/webhooks/endpoints", { key: live, body });
        assertEquals(
          [res.status, res.json.success, res.json.error.code],
          [400, false, code],
          JSON.stringify(body),
        );
        assertEquals(res.json.statusCode, 400);
        const fields = res.json.error.details.map((d: { field: string }) => d.field);
        assert(fields.includes(field), `${JSON.stringify(body)} -> ${JSON.stringify(fields)}`);
      }
      const malformed = await gw.request("POST", "/v1/webhooks/endpoints", {
        key: live,
        rawBody: '{"url": "http://127.0.0.1/x", "events": [',
        headers: { "content-type": "application/json" },
      });
      assertEquals([malformed.status, malformed.json.error.code], [400, "BAD_REQUEST"]);
      const badTest = await gw.request("POST", "/v1/webhooks/test", {
        key: live,
        body: { endpointId: endpoint.id, eventType: "payin.exploded" },
      });
      assertEquals([badTest.status, badTest.json.error.code], [400, "VALIDATION_ERROR"]);
      const unknownEndpoint = await gw.request("POST", "/v1/webhooks/test", {
        key: live,
        body: { endpointId: "whe_nope", eventType: "payin.created" },
      });
      assertEquals([unknownEndpoint.status, unknownEndpoint.json.error.code], [404, "NOT_FOUND"]);
      assertEquals(await countEndpoints(), before);
    });

    await t.step("DELETE removes the endpoint and its deliveries", async () => {
      const res = await gw.request("DELETE", `/v1/webhooks/endpoints/${endpoint.id}`, { key: live });
      assertEquals(res.status, 200);
      assertEquals(res.json.data, { id: endpoint.id, deleted: true });
      const gone = await gw.request("GET", `/v1/webhooks/endpoints/${endpoint.id}`, { key: live });
      assertEquals(gone.status, 404);
      const again = await gw.request("DELETE", `/v1/webhooks/endpoints/${endpoint.id}`, { key: live });
      assertEquals(again.status, 404);
      const left = await gw.db.query("SELECT id FROM webhook_deliveries WHERE endpoint_id = $1", [
        endpoint.id,
      ]);
      assertEquals(left.length, 0);
    });

    await t.step("production: https only, no private, loopback, metadata or credentialed URLs", async () => {
      const prod = await startTestGateway({ env: { APP_ENV: "production" } });
      try {
        const m = await prod.createMerchant("Prod Shop");
        const refused = [
          "http://hooks.example.com/x",
          "https://10.0.0.5/hook",
          "https://172.20.1.1/hook",
          "https://192.168.1.10/hook",
          "https://127.0.0.1/hook",
          "https://localhost/hook",
          "https://api.localhost/hook",
          "https://169.254.169.254/latest/meta-data",
          "https://metadata.google.internal/computeMetadata",
          "https://100.64.0.1/hook",
          "https://0.0.0.0/hook",
          "https://[::1]/hook",
          "https://[fd00::1]/hook",
          "https://[fe80::1]/hook",
          "https://[::ffff:127.0.0.1]/hook",
          "https://user:pass@hooks.example.com/x",
          "https://0x7f000001/hook",
        ];
        for (const url of refused) {
          const res = await prod.request("POST", "/v1/webhooks/endpoints", {
            key: m.keys.liveSecret,
            body: { url, events: ["payin.confirmed"] },
          });
          assertEquals([res.status, res.json.error.code], [400, "VALIDATION_ERROR"], url);
          assertEquals(res.json.error.details[0].field, "url", url);
        }
        const count = await prod.db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_endpoints");
        assertEquals(count[0].n, 0);
      } finally {
        await prod.close();
      }
    });
  } finally {
    await receiver.close();
    await gw.close();
  }
});
