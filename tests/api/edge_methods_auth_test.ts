// The edge as a stranger sees it: a method a path does not have is 405 with `Allow` (an unknown path stays
// 404); an authenticated route says 401/403 before anything about the body, so a NUL byte reveals nothing
// to a caller without the right credentials; and a throttled address still gets its valid key served.
import { signCallback } from "../../rails/fiat/signing.ts";
import { assert, assertEquals } from "../assert.ts";
import { ADMIN_TOKEN, startTestGateway, withGateway } from "../helpers.ts";

const NUL_BODY = JSON.stringify({ name: "nul\u0000byte" });

/** A request as Deno.serve hands it over, for methods `new Request` refuses to build (TRACE). */
async function rawRequest(
  port: number,
  method: string,
  path: string,
): Promise<{ head: string; body: string }> {
  const conn = await Deno.connect({ port });
  try {
    await conn.write(
      new TextEncoder().encode(
        `${method} ${path} HTTP/1.1\r\nHost: gateway.test\r\nConnection: close\r\n\r\n`,
      ),
    );
    let text = "";
    const buffer = new Uint8Array(8192);
    for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    const [head, body] = text.split("\r\n\r\n");
    return { head: head.toLowerCase(), body };
  } finally {
    conn.close();
  }
}

Deno.test(
  "a method the path does not have: 405 with Allow and the error envelope; an unknown path: 404",
  withGateway(async (gw) => {
    const cases: Array<[string, string, string]> = [
      ["PUT", "/v1/payments", "GET, HEAD, POST"],
      ["DELETE", "/v1/wallets/balance", "GET, HEAD"],
      ["POST", "/health", "GET, HEAD"],
      ["PUT", "/admin/api/review", "GET, HEAD"],
      ["POST", "/metrics", "GET, HEAD"],
      ["PATCH", "/docs", "GET, HEAD"],
      ["DELETE", "/checkout/pay_0123456789abcdefghjkmnpqrs", "GET, HEAD"],
      ["PUT", "/pay/link/some-shop", "GET, HEAD"],
      ["OPTIONS", "/v1/openapi.json", "GET, HEAD"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await gw.request(method, path);
      assertEquals(res.status, 405, `${method} ${path}: ${res.text}`);
      assertEquals(res.headers.get("allow"), allow, `${method} ${path}`);
      assertEquals(res.json.success, false);
      assertEquals(res.json.error.code, "BAD_REQUEST");
      assertEquals(res.json.statusCode, 405);
      assert(res.json.error.message.includes(allow), res.json.error.message);
    }
    // A key does not change it: the method is refused before any route runs.
    const m = await gw.createMerchant();
    assertEquals((await gw.request("PUT", "/v1/payments", { key: m.keys.liveSecret })).status, 405);
    // HEAD where GET exists keeps working; POST-only paths do not take HEAD.
    assertEquals((await gw.request("HEAD", "/health")).status, 200);
    const head = await gw.request("HEAD", "/v1/card-payments");
    assertEquals(head.status, 405);
    assertEquals(head.headers.get("allow"), "POST");
    // Unknown paths stay 404, whatever the method.
    for (const [method, path] of [["GET", "/v1/nothing"], ["PUT", "/v1/nothing"], ["POST", "/nowhere"]]) {
      const res = await gw.request(method, path);
      assertEquals(res.status, 404, `${method} ${path}`);
      assertEquals(res.json.error.code, "NOT_FOUND");
      assertEquals(res.headers.get("allow"), null);
    }
    // A route that finds no record still says 404, not 405: the method is right.
    const missing = await gw.request("GET", "/v1/payments/pay_0123456789abcdefghjkmnpqrs", {
      key: m.keys.liveSecret,
    });
    assertEquals(missing.status, 404);
  }),
);

Deno.test(
  "TRACE through a real listener: 405 with Allow on /health, 404 on an unknown path",
  withGateway(async (gw) => {
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, gw.app.fetch);
    try {
      const known = await rawRequest(server.addr.port, "TRACE", "/health");
      assert(known.head.startsWith("http/1.1 405"), known.head);
      assert(known.head.includes("\r\nallow: get, head"), known.head);
      assertEquals(JSON.parse(known.body).statusCode, 405);
      const unknown = await rawRequest(server.addr.port, "TRACE", "/nowhere");
      assert(unknown.head.startsWith("http/1.1 404"), unknown.head);
    } finally {
      await server.shutdown();
    }
  }),
);

Deno.test(
  "authentication answers before the input guard on authenticated routes; public routes keep the guard",
  withGateway(async (gw) => {
    const m = await gw.createMerchant();
    const post = (path: string, headers: Record<string, string>, body = NUL_BODY) =>
      gw.request("POST", path, {
        rawBody: body,
        headers: { "content-type": "application/json", ...headers },
      });
    // Operator route: anonymous and merchant callers get 401 with or without the byte.
    const callers: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${m.keys.liveSecret}` },
      { "x-api-key": m.keys.liveSecret },
    ];
    for (const headers of callers) {
      const withNul = await post("/admin/api/merchants", headers);
      assertEquals(withNul.status, 401, withNul.text);
      assertEquals(withNul.json.error.code, "UNAUTHORIZED");
      assertEquals((await post("/admin/api/merchants", headers, JSON.stringify({ name: "x" }))).status, 401);
    }
    // A NUL in the query of an operator route reveals nothing either.
    const query = await gw.request("GET", "/admin/api/review?x=a%00b");
    assertEquals(query.status, 401);
    const operatorQuery = await gw.admin("GET", "/admin/api/review?x=a%00b");
    assertEquals(operatorQuery.status, 400);
    assertEquals(operatorQuery.json.error.code, "VALIDATION_ERROR");
    // No route for the method: 405 (404 for no path) whatever the body holds.
    assertEquals(
      (await gw.request("PUT", "/admin/api/merchants", {
        rawBody: NUL_BODY,
        headers: { "content-type": "application/json" },
      })).status,
      405,
    );
    assertEquals((await post("/admin/api/nothing-here", {})).status, 404);
    // The operator's own token: the guard answers, naming the field.
    const operator = await post("/admin/api/merchants", { authorization: `Bearer ${ADMIN_TOKEN}` });
    assertEquals(operator.status, 400);
    assertEquals(operator.json.error.code, "VALIDATION_ERROR");
    assertEquals(operator.json.error.details[0].field, "name");

    // Merchant routes: no key 401, a publishable key 403, as without the byte; the right key 400.
    const endpoint = JSON.stringify({ url: "http://127.0.0.1:9/h\u0000", events: ["payin.created"] });
    assertEquals((await post("/v1/webhooks/endpoints", {}, endpoint)).status, 401);
    const publishable = await post(
      "/v1/webhooks/endpoints",
      { "x-api-key": m.keys.livePublishable },
      endpoint,
    );
    assertEquals(publishable.status, 403);
    assertEquals(publishable.json.error.code, "FORBIDDEN");
    const secret = await post("/v1/webhooks/endpoints", { "x-api-key": m.keys.liveSecret }, endpoint);
    assertEquals(secret.status, 400);
    assertEquals(secret.json.error.code, "VALIDATION_ERROR");

    // Provider callbacks: the signature is their authentication, so it answers before the guard. An
    // unsigned or badly signed body with a NUL byte is refused for its signature, not its shape.
    const callbacks = [
      "/v1/providers/simulator/card/callback",
      "/v1/providers/simulator/momo/callback",
      "/v1/providers/card/callback",
      "/v1/providers/momo/callback",
      "/v1/providers/simulator/momo/disbursement-callback",
      "/v1/providers/momo/disbursement-callback",
    ];
    const nulCallback = JSON.stringify({ notificationId: "n\u0000", reference: "\ud800" });
    const forged = `t=${Math.floor(Date.now() / 1000)},v1=${"ab".repeat(32)}`;
    for (const path of callbacks) {
      for (const headers of [{}, { "x-provider-signature": forged }] as Array<Record<string, string>>) {
        const res = await post(path, headers, nulCallback);
        assertEquals(
          [res.status, res.json.error.code],
          [400, "INVALID_WEBHOOK_SIGNATURE"],
          `${path}: ${res.text}`,
        );
      }
    }
    // Signed by the provider: now the guard answers, naming the field.
    const callbackSecret = gw.deps.config.fiat.callbackSecret!;
    const signedNul = await post("/v1/providers/simulator/card/callback", {
      "x-provider-signature": await signCallback(callbackSecret, nulCallback, new Date()),
    }, nulCallback);
    assertEquals([signedNul.status, signedNul.json.error.code], [400, "VALIDATION_ERROR"], signedNul.text);
    assertEquals(
      signedNul.json.error.details.map((d: { field: string }) => d.field).sort(),
      ["notificationId", "reference"],
    );

    // A public route (paylink checkout) has no authentication: the guard still answers first.
    const checkout = await post(
      "/v1/pay/link/no-such-link/checkout",
      {},
      JSON.stringify({ customerName: "a\u0000" }),
    );
    assertEquals(checkout.status, 400);
    assertEquals(checkout.json.error.code, "VALIDATION_ERROR");
  }),
);

Deno.test("a throttled address: failed guesses get 429, a valid key or token is still served", async () => {
  // No cache: every request with the valid key is looked up, as once its cache entry has expired.
  const gw = await startTestGateway({ env: { AUTH_CACHE_TTL_MS: "0" } });
  const from = (address: string, path: string, headers: Record<string, string>) =>
    gw.app.request(path, { headers }, { remoteAddr: { transport: "tcp", hostname: address, port: 40000 } });
  try {
    const limit = gw.deps.config.authFailureLimit;
    const m = await gw.createMerchant("Behind a shared NAT");
    const nat = "203.0.113.50";
    const balance = (key: string, address = nat) =>
      from(address, "/v1/wallets/balance", { "x-api-key": key });
    for (let i = 0; i < 25; i++) {
      const res = await balance(`svc_live_sk_${"g".repeat(24)}${i}`);
      assertEquals(res.status, i < limit ? 401 : 429, `guess ${i + 1}`);
      await res.body?.cancel();
    }
    const valid = await balance(m.keys.liveSecret);
    assertEquals(valid.status, 200, await valid.clone().text());
    await valid.body?.cancel();
    const wrong = await balance(`svc_live_sk_${"w".repeat(30)}`);
    assertEquals(wrong.status, 429);
    assert(Number(wrong.headers.get("Retry-After")) >= 1);
    assertEquals((await wrong.json()).error.code, "RATE_LIMIT_EXCEEDED");
    assertEquals((await balance("not-a-key")).status, 429);
    // A real key of a suspended merchant keeps its own answer, not the throttle's.
    const suspended = await gw.createMerchant("Suspended");
    await gw.admin("PATCH", `/admin/api/merchants/${suspended.merchantId}`, { status: "SUSPENDED" });
    const refused = await balance(suspended.keys.liveSecret);
    assertEquals(refused.status, 403);
    assertEquals((await refused.json()).error.code, "MERCHANT_STATUS_INVALID");

    // The operator token: the same from the same address.
    const admin = (token: string) => from(nat, "/admin/api/review", { authorization: `Bearer ${token}` });
    for (let i = 0; i < 25; i++) {
      const res = await admin(`wrong-operator-token-${i}`);
      assertEquals(res.status, i < limit ? 401 : 429, `operator guess ${i + 1}`);
      await res.body?.cancel();
    }
    const operator = await admin(ADMIN_TOKEN);
    assertEquals(operator.status, 200);
    await operator.body?.cancel();
    const wrongToken = await admin("wrong-operator-token-again");
    assertEquals(wrongToken.status, 429);
    await wrongToken.body?.cancel();
  } finally {
    await gw.close();
  }
});
