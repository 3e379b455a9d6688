// Authentication on the hot path: the key lookup cache and revocation, failed attempts throttled per
// client address, publishable keys kept to one pay-in without the merchant's data, and route aliases
// counted against the limit of the route they alias.
import { createApp } from "../../api/app.ts";
import { manualClock } from "../../domain/clock.ts";
import { hashApiKey } from "../../domain/keys/api_keys.ts";
import { sha256Hex } from "../../domain/crypto.ts";
import { KeyCache } from "../../domain/keys/key_cache.ts";
import { rateLimitRouteName } from "../../domain/limits/rate_limit.ts";
import { assert, assertEquals } from "../assert.ts";
import { ADMIN_TOKEN, startTestGateway } from "../helpers.ts";

Deno.test("authentication hardening", async (t) => {
  const clock = manualClock(new Date("2026-03-01T10:00:05.000Z"));
  const gw = await startTestGateway({ clock });
  // Requests as Deno.serve hands them over: the peer's address in the serve info.
  const from = (address: string, path: string, init: RequestInit = {}, app = gw.app) =>
    app.request(path, init, { remoteAddr: { transport: "tcp", hostname: address, port: 40000 } });
  const balance = (key: string, address = "192.0.2.10", app = gw.app) =>
    from(address, "/v1/wallets/balance", { headers: { "x-api-key": key } }, app);
  const ttl = gw.deps.config.authCacheTtlMs;

  try {
    await t.step("a revocation takes effect at once in the process that revoked it", async () => {
      const m = await gw.createMerchant("Revoker");
      const issued = await gw.admin("POST", `/admin/api/merchants/${m.merchantId}/keys`, {
        kind: "live_secret",
      });
      const key = issued.json.data.key;
      assertEquals((await balance(key)).status, 200); // now cached
      assertEquals((await gw.admin("DELETE", `/admin/api/keys/${issued.json.data.id}`)).status, 200);
      const res = await balance(key);
      assertEquals(res.status, 401);
      assertEquals((await res.json()).error.code, "INVALID_API_KEY");
    });

    await t.step("another process sees the revocation within AUTH_CACHE_TTL_MS, not later", async () => {
      assert(ttl > 0 && ttl <= 10_000, `TTL ${ttl}`);
      // A second gateway process on the same database: same deps, its own key cache.
      const other = createApp({ ...gw.deps, keyCache: new KeyCache() });
      const m = await gw.createMerchant("Elsewhere");
      const issued = await gw.admin("POST", `/admin/api/merchants/${m.merchantId}/keys`, {
        kind: "live_secret",
      });
      const key = issued.json.data.key;
      assertEquals((await balance(key, "192.0.2.10", other)).status, 200);
      assertEquals((await gw.admin("DELETE", `/admin/api/keys/${issued.json.data.id}`)).status, 200);
      assertEquals((await balance(key)).status, 401); // the revoking process: at once
      assertEquals((await balance(key, "192.0.2.10", other)).status, 200); // the other: still cached
      clock.advance(ttl);
      assertEquals((await balance(key, "192.0.2.10", other)).status, 401);
    });

    await t.step("a suspension made in this process applies at once", async () => {
      const m = await gw.createMerchant("Suspended soon");
      assertEquals((await balance(m.keys.liveSecret)).status, 200);
      await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { status: "SUSPENDED" });
      assertEquals((await balance(m.keys.liveSecret)).status, 403);
    });

    await t.step("failed API keys from one address: 429 with Retry-After; others unaffected", async () => {
      clock.advance(60_000);
      const limit = gw.deps.config.authFailureLimit;
      const m = await gw.createMerchant("Valid");
      assertEquals((await balance(m.keys.liveSecret, "203.0.113.7")).status, 200); // cached before
      for (let i = 0; i < limit; i++) {
        const res = await balance(`svc_live_sk_${"x".repeat(24)}${i}`, "203.0.113.7");
        assertEquals(res.status, 401, `attempt ${i + 1}`);
      }
      const refused = await balance(`svc_live_sk_${"y".repeat(30)}`, "203.0.113.7");
      assertEquals(refused.status, 429);
      assertEquals((await refused.json()).error.code, "RATE_LIMIT_EXCEEDED");
      assert(Number(refused.headers.get("Retry-After")) >= 1);
      // Malformed and missing keys from that address are refused alike, without a lookup.
      assertEquals((await balance("garbage", "203.0.113.7")).status, 429);
      // A valid key from another address is served; a valid key already in use is never slowed down.
      const fresh = await gw.createMerchant("Other office");
      assertEquals((await balance(fresh.keys.liveSecret, "198.51.100.2")).status, 200);
      assertEquals((await balance(m.keys.liveSecret, "203.0.113.7")).status, 200);
      // The window ends: the address may try again.
      clock.advance(Number(refused.headers.get("Retry-After")) * 1000);
      assertEquals((await balance(`svc_live_sk_${"z".repeat(30)}`, "203.0.113.7")).status, 401);
    });

    await t.step("failed operator tokens on /admin/api are throttled the same way", async () => {
      const admin = (token: string, address: string) =>
        from(address, "/admin/api/merchants", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name: "Via admin" }),
        });
      for (let i = 0; i < gw.deps.config.authFailureLimit; i++) {
        assertEquals((await admin(`wrong-token-${i}-0123456789`, "203.0.113.9")).status, 401);
      }
      const refused = await admin("wrong-token-once-more-0123", "203.0.113.9");
      assertEquals(refused.status, 429);
      assert(Number(refused.headers.get("Retry-After")) >= 1);
      // The right token is never refused, from that address or another.
      assertEquals((await admin(ADMIN_TOKEN, "203.0.113.9")).status, 201);
      assertEquals((await admin(ADMIN_TOKEN, "198.51.100.9")).status, 201);
    });

    await t.step("a publishable key reads one pay-in without the merchant's data", async () => {
      const m = await gw.createMerchant("Shop");
      const created = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        body: { amount: "12", externalRef: "order-77", metadata: { customerEmail: "a@b.example" } },
      });
      assertEquals(created.status, 201);
      const id = created.json.data.transactionId;
      const seen = await gw.request("GET", `/v1/payments/${id}`, { key: m.keys.livePublishable });
      assertEquals(seen.status, 200);
      assertEquals(seen.json.data.id, id);
      assertEquals(seen.json.data.address, created.json.data.address);
      assertEquals(seen.json.data.amountExpected, created.json.data.amountExpected);
      assertEquals(seen.json.data.status, "AWAITING_PAYMENT");
      for (const hidden of ["metadata", "externalRef", "serviceFee", "netAmount"]) {
        assert(!(hidden in seen.json.data), `${hidden} shown to a publishable key`);
      }
      assert(!seen.text.includes("order-77") && !seen.text.includes("a@b.example"));
      // The secret key still sees everything.
      const full = await gw.request("GET", `/v1/payments/${id}`, { key: m.keys.liveSecret });
      assertEquals(full.json.data.externalRef, "order-77");
      // Another merchant's publishable key finds nothing.
      const stranger = await gw.createMerchant("Stranger");
      assertEquals(
        (await gw.request("GET", `/v1/payments/${id}`, { key: stranger.keys.livePublishable })).status,
        404,
      );
    });

    await t.step("a publishable key lists nothing: FORBIDDEN with cause INSUFFICIENT_SCOPE", async () => {
      const m = await gw.createMerchant("Lister");
      for (const key of [m.keys.livePublishable, m.keys.testPublishable]) {
        const res = await gw.request("GET", "/v1/payments", { key });
        assertEquals(res.status, 403);
        assertEquals(res.json.error.code, "FORBIDDEN");
        assertEquals(res.json.error.cause, "INSUFFICIENT_SCOPE");
      }
      assertEquals((await gw.request("GET", "/v1/payments", { key: m.keys.liveSecret })).status, 200);
    });

    await t.step("POST /v1/card-payments counts against the POST /v1/payments limit", async () => {
      clock.advance(60_000);
      const m = await gw.createMerchant("Aliased");
      await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
        enabledRails: ["USDT_TRC20", "CARD", "MOBILE_MONEY"],
      });
      for (let i = 0; i < 30; i++) {
        const res = await gw.request("POST", "/v1/payments", {
          key: m.keys.liveSecret,
          body: { amount: "10" },
        });
        assertEquals(res.status, 201, `creation ${i + 1}`);
      }
      const aliased = await gw.request("POST", "/v1/card-payments", {
        key: m.keys.liveSecret,
        body: { amount: "5000", customerEmail: "c@d.example" },
      });
      assertEquals(aliased.status, 429);
      assertEquals(aliased.json.error.code, "RATE_LIMIT_EXCEEDED");
    });

    await t.step("keys are stored as the same SHA-256 hex as before (existing keys still work)", async () => {
      for (const key of ["svc_live_sk_abcdefghijklmnopqrstuvwx", "é\u0000\ud800", ""]) {
        assertEquals(await hashApiKey(key), await sha256Hex(key));
      }
    });

    await t.step("every alias names the limit of the route it aliases", () => {
      assertEquals(rateLimitRouteName("POST", "/v1/card-payments"), "POST /v1/payments");
      assertEquals(rateLimitRouteName("POST", "/v1/card-payments/"), "POST /v1/payments");
      assertEquals(
        rateLimitRouteName("POST", "/v1/payins/pay_1/submit-otp"),
        rateLimitRouteName("POST", "/v1/payments/pay_1/submit-otp"),
      );
      assertEquals(rateLimitRouteName("POST", "/v1/payinsx"), "POST /v1/payinsx");
    });
  } finally {
    await gw.close();
  }
});
