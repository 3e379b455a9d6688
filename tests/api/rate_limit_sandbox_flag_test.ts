// Rate limits counted in KV, and the sandbox flag rule of Authentication section 5, on probe routes
// shaped like the creation routes that use them.
import { requireKey } from "../../api/middleware/auth.ts";
import { requireSandboxFlagMatch } from "../../api/middleware/sandbox_flag.ts";
import { manualClock } from "../../domain/clock.ts";
import { assert, assertEquals } from "../assert.ts";
import { probeRouter, startTestGateway } from "../helpers.ts";

Deno.test("rate limits and the sandbox flag", async (t) => {
  const clock = manualClock(new Date("2026-03-01T10:00:05.000Z"));
  const gw = await startTestGateway({ clock });
  const probe = probeRouter(gw);
  probe.post(
    "/v1/payments",
    requireKey("payments_write", "write"),
    requireSandboxFlagMatch,
    (c) => c.json({ ok: true }, 201),
  );
  const post = (key: string, opts: { query?: string; header?: string } = {}) =>
    probe.request(`/v1/payments${opts.query ?? ""}`, {
      method: "POST",
      headers: { "x-api-key": key, ...(opts.header ? { "x-sandbox": opts.header } : {}) },
    });

  try {
    await t.step(
      "the default limit is 100 per 60 s per key; the 101st gets 429 with Retry-After",
      async () => {
        const m = await gw.createMerchant("Busy");
        for (let i = 0; i < 100; i++) {
          const res = await gw.request("GET", "/v1/wallets/balance", { key: m.keys.liveSecret });
          assertEquals(res.status, 200, `request ${i + 1}`);
        }
        const limited = await gw.request("GET", "/v1/wallets/balance", { key: m.keys.liveSecret });
        assertEquals(limited.status, 429);
        assertEquals(limited.json.error.code, "RATE_LIMIT_EXCEEDED");
        assertEquals(limited.headers.get("Retry-After"), "55");
        // Another key of the same merchant has its own default bucket.
        assertEquals(
          (await gw.request("GET", "/v1/wallets/balance", { key: m.keys.testSecret })).status,
          200,
        );
        clock.advance(55_000);
        assertEquals(
          (await gw.request("GET", "/v1/wallets/balance", { key: m.keys.liveSecret })).status,
          200,
        );
      },
    );

    await t.step("POST /v1/payments is limited to 30 per 60 s per merchant", async () => {
      const m = await gw.createMerchant("Seller");
      for (let i = 0; i < 30; i++) assertEquals((await post(m.keys.liveSecret)).status, 201);
      const limited = await post(m.keys.liveSecret);
      assertEquals(limited.status, 429);
      assert(Number(limited.headers.get("Retry-After")) >= 1);
      // The route limit is the merchant's, whichever key calls: a second live secret key is refused too.
      const second = await gw.admin("POST", `/admin/api/merchants/${m.merchantId}/keys`, {
        kind: "live_secret",
      });
      assertEquals((await post(second.json.data.key)).status, 429);
    });

    await t.step("an operator can raise a merchant's limits (enterprise merchants)", async () => {
      const m = await gw.createMerchant("Enterprise");
      const patched = await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
        rateLimits: { "POST /v1/payments": 40 },
      });
      assertEquals(patched.status, 200);
      for (let i = 0; i < 40; i++) assertEquals((await post(m.keys.liveSecret)).status, 201);
      assertEquals((await post(m.keys.liveSecret)).status, 429);
      const bad = await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
        rateLimits: { "GET /v1/x": 5 },
      });
      assertEquals(bad.status, 400);
      assertEquals(bad.json.error.code, "VALIDATION_ERROR");
    });

    await t.step("limits live in KV, so a second app on the same KV shares them", async () => {
      const m = await gw.createMerchant("Shared");
      await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 3 } });
      const { createApp } = await import("../../api/app.ts");
      const secondProcess = createApp(gw.deps);
      for (let i = 0; i < 3; i++) {
        const app = i % 2 === 0 ? gw.app : secondProcess;
        const res = await app.request("/v1/wallets/balance", { headers: { "x-api-key": m.keys.liveSecret } });
        assertEquals(res.status, 200);
      }
      const res = await secondProcess.request("/v1/wallets/balance", {
        headers: { "x-api-key": m.keys.liveSecret },
      });
      assertEquals(res.status, 429);
    });

    await t.step("sandbox key without the flag: SANDBOX_KEY_LIVE_REQUEST", async () => {
      const m = await gw.createMerchant("Flags");
      const res = await post(m.keys.testSecret);
      assertEquals(res.status, 400);
      assertEquals((await res.json()).error.code, "SANDBOX_KEY_LIVE_REQUEST");
      assertEquals((await post(m.keys.testSecret, { query: "?sandbox=true" })).status, 201);
      assertEquals((await post(m.keys.testSecret, { header: "true" })).status, 201);
    });

    await t.step("the flag with a live key: LIVE_KEY_SANDBOX_REQUEST", async () => {
      const m = await gw.createMerchant("Flags 2");
      for (const opts of [{ query: "?sandbox=true" }, { header: "true" }]) {
        const res = await post(m.keys.liveSecret, opts);
        assertEquals(res.status, 400);
        assertEquals((await res.json()).error.code, "LIVE_KEY_SANDBOX_REQUEST");
      }
      assertEquals((await post(m.keys.liveSecret)).status, 201);
    });

    await t.step("a publishable key cannot create: FORBIDDEN / INSUFFICIENT_SCOPE", async () => {
      const m = await gw.createMerchant("Flags 3");
      const res = await post(m.keys.livePublishable);
      assertEquals(res.status, 403);
      const body = await res.json();
      assertEquals(body.error.code, "FORBIDDEN");
      assertEquals(body.error.cause, "INSUFFICIENT_SCOPE");
    });
  } finally {
    await gw.close();
  }
});

Deno.test("rate limits under concurrency: demand within the limit is never refused, the limit never exceeded", async () => {
  // A fixed clock: both bursts fall in one 60-second window even when the machine is slow (with the real
  // clock a window boundary between the bursts let the second one through, which is no overrun).
  const { manualClock } = await import("../../domain/clock.ts");
  const gw = await startTestGateway({ clock: manualClock(new Date("2026-11-23T10:00:05Z")) });
  try {
    const m = await gw.createMerchant("Concurrent");
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 150 } });
    const burst = (n: number) =>
      Promise.all(
        Array.from({ length: n }, () =>
          gw.request("GET", "/v1/wallets/balance", { key: m.keys.liveSecret }).then((r) => r.status)),
      );
    const first = await burst(100);
    assertEquals(
      first.filter((s) => s === 200).length,
      100,
      "100 concurrent requests under a limit of 150 all pass",
    );
    const second = await burst(100);
    const admitted = first.length + second.filter((s) => s === 200).length;
    assert(admitted <= 150, `never more than the limit (${admitted})`);
    assert(second.every((s) => s === 200 || s === 429));
    const { purgeRateLimitWindows } = await import("../../domain/limits/rate_limit.ts");
    const later = manualClock(new Date(Date.parse("2026-11-23T10:00:05Z") + 120_000));
    assert((await purgeRateLimitWindows({ ...gw.deps, clock: later })) >= 1, "past windows are purged");
  } finally {
    await gw.close();
  }
});
