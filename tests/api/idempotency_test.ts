// The idempotency middleware on a probe route that counts how often its body really runs.
import { requireKey } from "../../api/middleware/auth.ts";
import { idempotent } from "../../api/middleware/idempotency.ts";
import { manualClock } from "../../domain/clock.ts";
import { RECORD_TTL_MS, RUNNING_LOCK_MS } from "../../domain/idempotency.ts";
import { assertEquals } from "../assert.ts";
import { probeRouter, startTestGateway } from "../helpers.ts";

Deno.test("idempotency middleware", async (t) => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock });
  let executions = 0;
  let release: (() => void) | undefined;
  const probe = probeRouter(gw);
  probe.post(
    "/v1/probe",
    requireKey("webhooks_write", "write"),
    idempotent({ required: true }),
    async (c) => {
      executions++;
      const body = await c.req.json();
      if (body.hold) await new Promise<void>((resolve) => (release = resolve));
      if (body.explode) throw new Error("boom");
      if (body.reject) {
        const status = body.reject === "DUPLICATE_EXTERNAL_REF" ? 409 : 400;
        return c.json(
          { success: false, error: { code: body.reject, message: "no" }, statusCode: status },
          status,
        );
      }
      return c.json({ success: true, data: { execution: executions, echo: body.value } }, 201);
    },
  );
  const { keys, merchantId } = await gw.createMerchant();
  const other = await gw.createMerchant("Other");
  const call = (key: string | undefined, body: unknown, apiKey = keys.liveSecret) =>
    probe.request("/v1/probe", {
      method: "POST",
      headers: {
        "x-api-key": apiKey,
        "content-type": "application/json",
        ...(key ? { "idempotency-key": key } : {}),
      },
      body: JSON.stringify(body),
    });

  try {
    await t.step(
      "missing key: MISSING_IDEMPOTENCY_KEY; malformed: IDEMPOTENCY_KEY_INVALID; nothing runs",
      async () => {
        const missing = await call(undefined, { value: 1 });
        assertEquals(missing.status, 400);
        assertEquals((await missing.json()).error.code, "MISSING_IDEMPOTENCY_KEY");
        const bad = await call("not-a-uuid", { value: 1 });
        assertEquals(bad.status, 400);
        assertEquals((await bad.json()).error.code, "IDEMPOTENCY_KEY_INVALID");
        assertEquals(executions, 0);
      },
    );

    const key = crypto.randomUUID();
    await t.step("the same key and body replays the stored answer with Idempotent-Replayed", async () => {
      const first = await call(key, { value: "a" });
      assertEquals(first.status, 201);
      const firstBody = await first.text();
      const second = await call(key, { value: "a" });
      assertEquals(second.status, 201);
      assertEquals(second.headers.get("Idempotent-Replayed"), "true");
      assertEquals(await second.text(), firstBody);
      assertEquals(executions, 1);
    });

    await t.step("the same key with other parameters: 409 IDEMPOTENCY_KEY_MISMATCH", async () => {
      const res = await call(key, { value: "b" });
      assertEquals(res.status, 409);
      assertEquals((await res.json()).error.code, "IDEMPOTENCY_KEY_MISMATCH");
      assertEquals(executions, 1);
    });

    await t.step("keys are per merchant: another merchant's same key runs afresh", async () => {
      const res = await call(key, { value: "a" }, other.keys.liveSecret);
      assertEquals(res.status, 201);
      assertEquals(executions, 2);
    });

    await t.step("the same key while the first is still running: 409 CONFLICT", async () => {
      const k = crypto.randomUUID();
      const first = call(k, { hold: true });
      while (!release) await new Promise((r) => setTimeout(r, 5));
      const concurrent = await call(k, { hold: true });
      assertEquals(concurrent.status, 409);
      assertEquals((await concurrent.json()).error.code, "CONFLICT");
      release();
      assertEquals((await first).status, 201);
      release = undefined;
    });

    await t.step("a refusal decided on the merchant's state is remembered; a 5xx is not", async () => {
      const k4 = crypto.randomUUID();
      assertEquals((await call(k4, { reject: "DUPLICATE_EXTERNAL_REF" })).status, 409);
      const before = executions;
      const replay = await call(k4, { reject: "DUPLICATE_EXTERNAL_REF" });
      assertEquals(replay.status, 409);
      assertEquals(replay.headers.get("Idempotent-Replayed"), "true");
      assertEquals(executions, before);

      const k5 = crypto.randomUUID();
      const failed = await call(k5, { explode: true });
      assertEquals(failed.status, 500);
      assertEquals((await failed.json()).error.code, "INTERNAL_ERROR");
      await call(k5, { explode: true });
      assertEquals(executions, before + 2);
    });

    await t.step(
      "a validation refusal is not the key's outcome: the fixed request runs under it",
      async () => {
        const k = crypto.randomUUID();
        const refused = await call(k, { reject: "VALIDATION_ERROR" });
        assertEquals(refused.status, 400);
        const before = executions;
        const fixed = await call(k, { value: "fixed" });
        assertEquals(fixed.status, 201);
        assertEquals(fixed.headers.get("Idempotent-Replayed"), null);
        assertEquals((await fixed.json()).data.echo, "fixed");
        assertEquals(executions, before + 1);
      },
    );

    await t.step("a request that died mid-flight frees its key once its lock expires", async () => {
      const k = crypto.randomUUID();
      await gw.db.query(
        `INSERT INTO idempotency_keys (merchant_id, is_sandbox, key, fingerprint, state, locked_until, expires_at)
         SELECT merchant_id, is_sandbox, $1, fingerprint, 'RUNNING', $2, $3 FROM idempotency_keys
          WHERE key = $4 AND merchant_id = $5 AND is_sandbox = false`,
        [
          k,
          new Date(clock.now().getTime() + RUNNING_LOCK_MS),
          new Date(clock.now().getTime() + RECORD_TTL_MS),
          key,
          merchantId,
        ],
      );
      // The copied fingerprint is that of {value: "a"} on this path, so the retry matches it.
      assertEquals((await call(k, { value: "a" })).status, 409);
      clock.advance(RUNNING_LOCK_MS + 1);
      const retried = await call(k, { value: "a" });
      assertEquals(retried.status, 201);
    });

    await t.step("after 24 hours a key may be used again", async () => {
      const before = executions;
      clock.advance(RECORD_TTL_MS + 1);
      const res = await call(key, { value: "b" });
      assertEquals(res.status, 201);
      assertEquals(executions, before + 1);
    });
  } finally {
    await gw.close();
  }
});
