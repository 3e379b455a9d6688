// emitEvent: the catalogue, the outbox written in the caller's transaction, routing by mode and
// subscription, and the exact body every attempt sends.
import { manualClock } from "../../domain/clock.ts";
import { emitEvent, EVENT_TYPES, isEventType, sampleEventData } from "../../domain/webhooks/events.ts";
import { createWebhookEndpoint } from "../../domain/webhooks/endpoints.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

Deno.test("events and the webhook outbox", async (t) => {
  const clock = manualClock(new Date("2026-03-01T12:00:00.123Z"));
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Events Shop");
    const other = await gw.createMerchant("Other Shop");
    const owner = { merchantId: m.merchantId, isSandbox: false };
    const make = (input: Partial<Parameters<typeof createWebhookEndpoint>[1]> = {}) =>
      createWebhookEndpoint(gw.deps, {
        ...owner,
        url: "http://127.0.0.1:9/hooks",
        events: ["payin.confirmed"],
        ...input,
      });
    const subscribed = await make();
    const both = await make({ events: ["payin.confirmed", "payin.failed"] });
    const otherType = await make({ events: ["payout.confirmed"] });
    const sandbox = await make({ isSandbox: true });
    const disabled = await make();
    await gw.db.query("UPDATE webhook_endpoints SET status = 'DISABLED' WHERE id = $1", [disabled.id]);
    const foreign = await make({ merchantId: other.merchantId });
    const count = async (table: string) =>
      (await gw.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;

    await t.step("the catalogue holds every event of the specification, once", () => {
      assertEquals(EVENT_TYPES.length, 50);
      assertEquals(new Set(EVENT_TYPES).size, 50);
      for (
        const name of [
          "payin.created",
          "deposit.underpaid",
          "payout.requested",
          "withdrawal.approved",
          "subscription.renewal_initiated",
          "splitpayment.created",
          "kyb.thread.dismissed",
          "agreement.resign_requested",
        ]
      ) assert(isEventType(name), name);
      assert(!isEventType("payin.paid"));
    });

    await t.step("one delivery per ACTIVE subscribed endpoint of the merchant and mode", async () => {
      gw.enqueued.length = 0;
      const data = { transactionId: "pay_1", amount: "10.500000", status: "CONFIRMED" };
      const ev = await emitEvent(gw.deps, { ...owner, type: "payin.confirmed", data });
      assertEquals(ev.deliveryIds.length, 2);
      const rows = await gw.db.query<{ id: string; endpoint_id: string; body: string; created_at: Date }>(
        "SELECT id, endpoint_id, body, created_at FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id",
        [ev.eventId],
      );
      assertEquals(rows.map((r) => r.endpoint_id), [subscribed.id, both.id].sort());
      for (const r of rows) {
        assert(/^dlv_[0-9a-z]{26}$/.test(r.id), r.id);
        assertEquals(
          r.body,
          '{"event":"payin.confirmed","data":{"transactionId":"pay_1","amount":"10.500000","status":"CONFIRMED"},' +
            '"createdAt":"2026-03-01T12:00:00.123Z","livemode":true,"test":false}',
        );
        assertEquals(r.created_at.toISOString(), "2026-03-01T12:00:00.123Z");
      }
      assertEquals(new Set(gw.enqueued.map((e) => e.message.deliveryId)), new Set(ev.deliveryIds));
      const event = await gw.db.query<{ type: string; is_test: boolean; data: unknown }>(
        "SELECT type, is_test, data FROM events WHERE id = $1",
        [ev.eventId],
      );
      assertEquals(event[0], { type: "payin.confirmed", is_test: false, data });
      for (const skipped of [otherType, sandbox, disabled, foreign]) {
        assert(!rows.some((r) => r.endpoint_id === skipped.id));
      }
    });

    await t.step("an event nobody subscribed to is still recorded, with no delivery", async () => {
      const ev = await emitEvent(gw.deps, { ...owner, type: "kyb.approved", data: {} });
      assertEquals(ev.deliveryIds, []);
      assertEquals((await gw.db.query("SELECT id FROM events WHERE id = $1", [ev.eventId])).length, 1);
    });

    await t.step("sandbox events reach sandbox endpoints only", async () => {
      const ev = await emitEvent(gw.deps, { ...owner, isSandbox: true, type: "payin.confirmed", data: {} });
      const rows = await gw.db.query<{ endpoint_id: string }>(
        "SELECT endpoint_id FROM webhook_deliveries WHERE event_id = $1",
        [ev.eventId],
      );
      assertEquals(rows.map((r) => r.endpoint_id), [sandbox.id]);
    });

    await t.step("inside a transaction: queued only after commit; a rollback leaves nothing", async () => {
      const events = await count("events");
      const deliveries = await count("webhook_deliveries");
      gw.enqueued.length = 0;
      await assertRejects(() =>
        gw.db.tx(async (tx) => {
          const ev = await emitEvent({ ...gw.deps, db: tx }, { ...owner, type: "payin.failed", data: {} });
          assertEquals(ev.deliveryIds.length, 1);
          assertEquals(gw.enqueued.length, 0, "nothing is queued before the commit");
          throw new Error("the change being reported failed");
        })
      );
      assertEquals(await count("events"), events);
      assertEquals(await count("webhook_deliveries"), deliveries);
      assertEquals(gw.enqueued.length, 0);

      const committed = await gw.db.tx(async (tx) => {
        const ev = await emitEvent({ ...gw.deps, db: tx }, { ...owner, type: "payin.failed", data: {} });
        assertEquals(gw.enqueued.length, 0);
        return ev;
      });
      assertEquals(gw.enqueued.map((e) => e.message.deliveryId), committed.deliveryIds);
      assertEquals(await count("events"), events + 1);
    });

    await t.step("every event type has a sample payload for test deliveries", () => {
      for (const type of EVENT_TYPES) {
        const data = sampleEventData(type, clock.now());
        assert(typeof data === "object" && Object.keys(data).length > 0, type);
        JSON.stringify(data);
      }
      const failed = sampleEventData("payin.failed", clock.now());
      assertEquals([failed.status, typeof failed.reason], ["FAILED", "string"]);
      const withdrawal = sampleEventData("withdrawal.confirmed", clock.now());
      for (const f of ["id", "amount", "fee", "netAmount", "destinationAddress", "txHash", "confirmedAt"]) {
        assert(f in withdrawal, f);
      }
    });
  } finally {
    await gw.close();
  }
});
