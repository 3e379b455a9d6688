// Issue 9 item 2 on the real POST /v1/payments: idempotency keys and externalRef belong to one merchant in
// one mode, the fingerprint sees the query string and the JSON (not its spacing), and a request refused
// before anything changed leaves its key free.
import { updateMerchantSettings } from "../../domain/merchants/mod.ts";
import { assert, assertEquals, assertNotEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

Deno.test("idempotency and externalRef never mix modes", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Two Modes");
    // This test sends more pay-ins than the default per-minute limit allows; limits are not under test.
    await updateMerchantSettings(gw.deps, m.merchantId, {
      rateLimits: { default: 1000, "POST /v1/payments": 1000 },
    });
    const sandbox = (idem: string | undefined, body: unknown, query = "?sandbox=true") =>
      gw.request("POST", `/v1/payments${query}`, {
        key: m.keys.testSecret,
        body,
        headers: idem ? { "idempotency-key": idem } : {},
      });
    const live = (idem: string | undefined, body: unknown) =>
      gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        body,
        headers: idem ? { "idempotency-key": idem } : {},
      });
    const modeOf = async (id: string, key: string) =>
      (await gw.request("GET", `/v1/payments/${id}`, { key })).json.data.isSandbox;
    const payinCount = async () =>
      Number((await gw.db.query<{ n: string }>("SELECT count(*) AS n FROM payins"))[0].n);

    const shared = crypto.randomUUID();
    const body = { amount: "12.5" };
    let sandboxId = "";
    let liveId = "";

    await t.step(
      "a sandbox answer is never replayed to the live key under the same Idempotency-Key",
      async () => {
        const s = await sandbox(shared, body);
        assertEquals(s.status, 201, s.text);
        sandboxId = s.json.data.transactionId;
        const l = await live(shared, body);
        assertEquals(l.status, 201, l.text);
        assertEquals(l.headers.get("Idempotent-Replayed"), null);
        liveId = l.json.data.transactionId;
        assertNotEquals(liveId, sandboxId);
        assertEquals(await modeOf(liveId, m.keys.liveSecret), false);
        // Each mode replays its own answer.
        const again = await live(shared, body);
        assertEquals([again.headers.get("Idempotent-Replayed"), again.json.data.transactionId], [
          "true",
          liveId,
        ]);
      },
    );

    await t.step("a sandbox reset forgets the sandbox key's answer and keeps the live one", async () => {
      const reset = await gw.request("POST", "/v1/sandbox/reset", { key: m.keys.testSecret });
      assertEquals(reset.status, 200);
      assertEquals(reset.json.data.deleted.idempotencyKeys, 1);
      const l = await live(shared, body);
      assertEquals([l.headers.get("Idempotent-Replayed"), l.json.data.transactionId], ["true", liveId]);
      // The sandbox pay-in it named is gone; the same sandbox request now creates a new one.
      const s = await sandbox(shared, body);
      assertEquals([s.status, s.headers.get("Idempotent-Replayed")], [201, null]);
      assertNotEquals(s.json.data.transactionId, sandboxId);
    });

    await t.step("the same JSON with other spacing and key order is the same request", async () => {
      const key = crypto.randomUUID();
      const first = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        headers: { "idempotency-key": key, "content-type": "application/json" },
        rawBody: '{"amount":"17","metadata":{"a":1,"b":[1,2]}}',
      });
      assertEquals(first.status, 201, first.text);
      const second = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        headers: { "idempotency-key": key, "content-type": "application/json" },
        rawBody: ' {\n  "metadata" : { "b" : [1, 2], "a" : 1 },\n  "amount" : "17"\n}\n',
      });
      assertEquals(second.status, 201, second.text);
      assertEquals(second.headers.get("Idempotent-Replayed"), "true");
      assertEquals(second.json.data.transactionId, first.json.data.transactionId);
    });

    await t.step(
      "another query string under the same key is another request: IDEMPOTENCY_KEY_MISMATCH",
      async () => {
        const key = crypto.randomUUID();
        assertEquals((await sandbox(key, body, "?sandbox=true")).status, 201);
        const before = await payinCount();
        const viaHeader = await gw.request("POST", "/v1/payments", {
          key: m.keys.testSecret,
          body,
          headers: { "idempotency-key": key, "x-sandbox": "true" },
        });
        assertEquals([viaHeader.status, viaHeader.json.error.code], [409, "IDEMPOTENCY_KEY_MISMATCH"]);
        assertEquals(await payinCount(), before);
      },
    );

    await t.step("a mode refusal is not kept: the corrected request runs under the same key", async () => {
      const key = crypto.randomUUID();
      const refused = await sandbox(key, body, "");
      assertEquals([refused.status, refused.json.error.code], [400, "SANDBOX_KEY_LIVE_REQUEST"]);
      const fixed = await sandbox(key, body, "?sandbox=true");
      assertEquals([fixed.status, fixed.headers.get("Idempotent-Replayed")], [201, null]);
      assertEquals(await modeOf(fixed.json.data.transactionId, m.keys.testSecret), true);
    });

    await t.step("a validation refusal is not kept: the fixed body runs under the same key", async () => {
      const key = crypto.randomUUID();
      const refused = await live(key, { amount: "15", paymentMethod: "BITCOIN" });
      assertEquals([refused.status, refused.json.error.code], [400, "VALIDATION_ERROR"]);
      const fixed = await live(key, { amount: "15" });
      assertEquals([fixed.status, fixed.headers.get("Idempotent-Replayed")], [201, null]);
    });

    await t.step(
      "externalRef is unique per merchant and mode: a sandbox one neither blocks nor reveals",
      async () => {
        const ref = `order-${crypto.randomUUID()}`;
        assertEquals((await sandbox(undefined, { amount: "13", externalRef: ref })).status, 201);
        const l = await live(undefined, { amount: "13", externalRef: ref });
        assertEquals(l.status, 201, l.text);
        // Within one mode it is still unique.
        const dupLive = await live(undefined, { amount: "14", externalRef: ref });
        assertEquals([dupLive.status, dupLive.json.error.code], [409, "DUPLICATE_EXTERNAL_REF"]);
        const dupSandbox = await sandbox(undefined, { amount: "14", externalRef: ref });
        assertEquals([dupSandbox.status, dupSandbox.json.error.code], [409, "DUPLICATE_EXTERNAL_REF"]);
      },
    );

    await t.step(
      "a refusal decided on the merchant's state is kept: DUPLICATE_EXTERNAL_REF replays",
      async () => {
        const ref = `order-${crypto.randomUUID()}`;
        assertEquals((await live(undefined, { amount: "13", externalRef: ref })).status, 201);
        const key = crypto.randomUUID();
        const dup = await live(key, { amount: "13", externalRef: ref });
        assertEquals([dup.status, dup.json.error.code], [409, "DUPLICATE_EXTERNAL_REF"]);
        const again = await live(key, { amount: "13", externalRef: ref });
        assertEquals([again.status, again.headers.get("Idempotent-Replayed")], [409, "true"]);
      },
    );

    await t.step(
      "50 concurrent identical requests under one key create one pay-in, never a 500",
      async () => {
        const key = crypto.randomUUID();
        const before = await payinCount();
        const answers = await Promise.all(Array.from({ length: 50 }, () => live(key, { amount: "19" })));
        const created = new Set<string>();
        for (const a of answers) {
          assert(
            a.status === 201 || (a.status === 409 && a.json.error.code === "CONFLICT"),
            `${a.status} ${a.text}`,
          );
          if (a.status === 201) created.add(a.json.data.transactionId);
        }
        assertEquals(created.size, 1);
        assertEquals(await payinCount(), before + 1);
      },
    );
  } finally {
    await gw.close();
  }
});
