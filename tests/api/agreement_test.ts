// The merchant agreement's 30 days on a fixed clock: publishing a new version asks every signed merchant
// to re-sign (`agreement.resign_requested`, deadline 30 days on); live money keeps moving inside the
// window and stops at its end (KYB_REQUIRED, reason AGREEMENT_RESIGN_OVERDUE) while the sandbox goes on;
// signing the new version (`agreement.resigned`) opens live money again.
import { manualClock } from "../../domain/clock.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { operatorClient } from "../operator_helpers.ts";

const DAY = 86_400_000;

Deno.test("agreement: a new version, 30 days to re-sign, then live money stops until re-signed", async (t) => {
  const clock = manualClock(new Date("2026-03-01T09:00:00.000Z"));
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Signed Shop");
    const fresh = await gw.createMerchant("Never Signed", "PENDING");
    const key = m.keys.liveSecret;
    const pay = (k = key) => gw.request("POST", "/v1/payments", { key: k, body: { amount: "10" } });
    const events = async (type: string) =>
      await gw.db.query<{ merchant_id: string; data: Record<string, string> }>(
        "SELECT merchant_id, data FROM events WHERE type = $1 ORDER BY id",
        [type],
      );

    await t.step("the fixture's merchant signed version 1 and takes live pay-ins", async () => {
      const status = await gw.request("GET", "/v1/merchant/agreement", { key });
      assertEquals([status.json.data.state, status.json.data.signedVersion], ["SIGNED", 1]);
      assertEquals((await pay()).status, 201);
    });

    let v2 = { version: 0, sha256: "" };
    await t.step(
      "only an admin publishes; publishing asks signed merchants to re-sign within 30 days",
      async () => {
        const reviewer = await operatorClient(gw, "reviewer");
        const refused = await reviewer.call("POST", "/admin/api/agreements", { body: "x".repeat(40) });
        assertEquals(refused.status, 403);
        const short = await gw.admin("POST", "/admin/api/agreements", { body: "too short" });
        assertEquals(short.json.error.code, "VALIDATION_ERROR");
        const published = await gw.admin("POST", "/admin/api/agreements", {
          body: "Merchant agreement, version 2: the fee schedule now includes refunds and disputes.",
        });
        assertEquals(published.status, 201);
        v2 = published.json.data.agreement;
        assertEquals(v2.version, 2);
        assertEquals(published.json.data.resignRequested, 1, "the merchant that never signed is not asked");
        const deadline = new Date(clock.now().getTime() + 30 * DAY).toISOString();
        const asked = await events("agreement.resign_requested");
        assertEquals(asked.map((e) => [e.merchant_id, e.data.deadline]), [[m.merchantId, deadline]]);
        const same = await gw.admin("POST", "/admin/api/agreements", {
          body: "Merchant agreement, version 2: the fee schedule now includes refunds and disputes.",
        });
        assertEquals(same.json.error.code, "CONFLICT");
        const status = await gw.request("GET", "/v1/merchant/agreement", { key });
        assertEquals([status.json.data.state, status.json.data.resignBy], ["RESIGN_REQUESTED", deadline]);
      },
    );

    await t.step(
      "inside the window live money moves; at its end it stops, the sandbox does not",
      async () => {
        clock.advance(30 * DAY - 1000);
        assertEquals((await pay()).status, 201);
        clock.advance(1000);
        const stopped = await pay();
        assertEquals([stopped.status, stopped.json.error.code], [403, "KYB_REQUIRED"]);
        assertEquals(stopped.json.error.cause, "AGREEMENT_RESIGN_OVERDUE");
        const sandbox = await gw.request("POST", "/v1/payments?sandbox=true", {
          key: m.keys.testSecret,
          body: { amount: "10" },
        });
        assertEquals(sandbox.status, 201);
        const payout = await gw.request("POST", "/v1/payout", {
          key,
          body: { amount: "10", destinationAddress: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8" },
          headers: { "idempotency-key": crypto.randomUUID() },
        });
        assertEquals(payout.json.error.code, "KYB_REQUIRED");
      },
    );

    await t.step("signing the old version is CONFLICT; signing the new one resumes live money", async () => {
      const status = await gw.request("GET", "/v1/merchant/agreement", { key });
      assertEquals(status.json.data.state, "RESIGN_OVERDUE");
      const old = await gw.request("POST", "/v1/merchant/agreement/sign", {
        key,
        body: { version: 1, sha256: status.json.data.signatures[0].sha256, signedBy: "Owner" },
      });
      assertEquals(old.json.error.code, "CONFLICT");
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          gw.request("POST", "/v1/merchant/agreement/sign", {
            key,
            body: { version: v2.version, sha256: v2.sha256, signedBy: "Owner" },
          })),
      );
      assert(results.every((r) => r.status === 200), "concurrent signatures all answer the same state");
      assertEquals((await events("agreement.resigned")).length, 1, "re-signed once, told once");
      assertEquals((await pay()).status, 201);
      const again = await gw.request("GET", "/v1/merchant/agreement", { key });
      assertEquals([again.json.data.state, again.json.data.resignBy], ["SIGNED", null]);
    });

    await t.step("a merchant that never signed: live refused with the agreement named", async () => {
      await gw.admin("POST", `/admin/api/merchants/${fresh.merchantId}/kyb`, { status: "APPROVED" });
      const refused = await pay(fresh.keys.liveSecret);
      assertEquals(refused.json.error.code, "KYB_REQUIRED");
      assertEquals(refused.json.error.cause, "AGREEMENT_NOT_SIGNED");
    });
  } finally {
    await gw.close();
  }
});
