// Nothing a client sends produces a 500 or a stack trace: every documented route, with a valid key,
// gets malformed bodies, hostile queries and odd headers, and must answer a 4xx envelope (or succeed).
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

const HOSTILE_BODIES: Array<{ name: string; body: string; type?: string }> = [
  { name: "empty", body: "" },
  { name: "null", body: "null" },
  { name: "array", body: "[1,2,3]" },
  { name: "string", body: '"payment"' },
  { name: "truncated", body: '{"amount":' },
  { name: "wrong types", body: '{"amount":{"$gt":0},"url":42,"events":"all","otp":123456,"endpointId":[]}' },
  { name: "prototype pollution", body: '{"__proto__":{"admin":true},"constructor":{"prototype":{}}}' },
  { name: "deep nesting", body: "[".repeat(5000) + "]".repeat(5000) },
  { name: "huge string", body: JSON.stringify({ amount: "9".repeat(100_000) }) },
  { name: "not JSON at all", body: "amount=10&currency=XOF", type: "application/x-www-form-urlencoded" },
  { name: "unicode garbage", body: '{"amount":"１０","externalRef":"\\u0000\\ud800"}' },
];

const HOSTILE_QUERY = "?page=-1&limit=abc&status=%00&currency=EUR&sandbox=%E2%80%8B";

Deno.test("hostile input on every documented route answers 4xx envelopes, never a 500", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Target");
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { default: 1_000_000, "POST /v1/payments": 1_000_000 },
    });
    const spec = (await gw.request("GET", "/v1/openapi.json")).json;
    const routes: Array<{ method: string; path: string }> = [];
    for (const [path, methods] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(methods)) {
        routes.push({
          method: method.toUpperCase(),
          path: path.replace(/\{[^}]+\}/g, "pay_01doesnotexist'--"),
        });
      }
    }
    assert(routes.length > 30, `the document lists the routes (${routes.length})`);
    let requests = 0;
    for (const route of routes) {
      const isAdmin = route.path.startsWith("/admin");
      const auth: Record<string, string> = isAdmin
        ? { authorization: "Bearer test-admin-token-0123456789" }
        : { "x-api-key": m.keys.liveSecret };
      const variants = route.method === "GET" || route.method === "DELETE"
        ? [{ name: "query", body: undefined as string | undefined, type: undefined as string | undefined }]
        : HOSTILE_BODIES;
      for (const v of variants) {
        const res = await gw.app.request(route.path + HOSTILE_QUERY, {
          method: route.method,
          headers: {
            ...auth,
            "content-type": v.type ?? "application/json",
            "idempotency-key": "x".repeat(300),
          },
          body: v.body,
        });
        requests++;
        const text = await res.text();
        const where = `${route.method} ${route.path} (${v.name}): ${res.status} ${text.slice(0, 200)}`;
        assert(res.status < 500, where);
        assert(!/at .*\.ts:\d+/.test(text), `no stack trace: ${where}`);
        if (res.status >= 400 && res.headers.get("content-type")?.includes("json")) {
          const body = JSON.parse(text);
          assertEquals(body.success, false, where);
          assertEquals(typeof body.error.code, "string", where);
          assertEquals(body.statusCode, res.status, where);
        }
      }
    }
    assert(requests > 200);
  } finally {
    await gw.close();
  }
});

Deno.test("a body over 1 MB is refused before it is parsed", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Big");
    const res = await gw.request("POST", "/v1/payments", {
      key: m.keys.liveSecret,
      rawBody: JSON.stringify({ amount: "10", metadata: { blob: "x".repeat(2_000_000) } }),
      headers: { "content-type": "application/json" },
    });
    assertEquals([res.status, res.json.error.code], [400, "BAD_REQUEST"]);
  } finally {
    await gw.close();
  }
});
