// Billing periods count from the anchor: month ends clamp and come back, weeks are 7 days, years keep
// 29 February's subscribers on the 28th in common years. And the state table refuses what it must.
import { addIntervals, periodStart } from "../../domain/subscriptions/periods.ts";
import { assertSubscriptionMove, nextStatus } from "../../domain/subscriptions/states.ts";
import { AppError } from "../../domain/errors.ts";
import { assertEquals } from "../assert.ts";

const at = (s: string) => new Date(s);

Deno.test("monthly periods from the 31st clamp to short months and return to the 31st", () => {
  const anchor = at("2026-01-31T09:30:00.000Z");
  const starts = [0, 1, 2, 3, 12, 13].map((n) => addIntervals(anchor, "MONTHLY", 1, n).toISOString());
  assertEquals(starts, [
    "2026-01-31T09:30:00.000Z",
    "2026-02-28T09:30:00.000Z",
    "2026-03-31T09:30:00.000Z",
    "2026-04-30T09:30:00.000Z",
    "2027-01-31T09:30:00.000Z",
    "2027-02-28T09:30:00.000Z",
  ]);
  assertEquals(
    addIntervals(at("2027-11-30T00:00:00.000Z"), "MONTHLY", 3, 1).toISOString(),
    "2028-02-29T00:00:00.000Z",
  );
});

Deno.test("weekly and yearly periods, and a re-anchored schedule", () => {
  assertEquals(
    addIntervals(at("2026-03-01T12:00:00.000Z"), "WEEKLY", 2, 3).toISOString(),
    "2026-04-12T12:00:00.000Z",
  );
  assertEquals(
    addIntervals(at("2028-02-29T08:00:00.000Z"), "YEARLY", 1, 1).toISOString(),
    "2029-02-28T08:00:00.000Z",
  );
  assertEquals(
    addIntervals(at("2028-02-29T08:00:00.000Z"), "YEARLY", 1, 4).toISOString(),
    "2032-02-29T08:00:00.000Z",
  );
  // After a change of interval the schedule counts from the period it starts at (anchor_index).
  const s = {
    anchor_at: at("2026-06-10T12:00:00.000Z"),
    anchor_index: 5,
    billing_interval: "WEEKLY" as const,
    interval_count: 2,
  };
  assertEquals(periodStart(s, 5).toISOString(), "2026-06-10T12:00:00.000Z");
  assertEquals(periodStart(s, 6).toISOString(), "2026-06-24T12:00:00.000Z");
});

Deno.test("the state table: every refusal is INVALID_TRANSACTION_STATUS naming the state", () => {
  assertEquals(nextStatus("ACTIVE", "pause"), "PAUSED");
  assertEquals(nextStatus("PAST_DUE", "renew"), "ACTIVE");
  assertEquals(nextStatus("PAUSED", "fail"), "PAUSED");
  assertEquals(nextStatus("PAUSED", "resume"), "ACTIVE");
  for (
    const [from, action] of [
      ["ACTIVE", "resume"],
      ["PAST_DUE", "resume"],
      ["PAUSED", "pause"],
      ["CANCELLED", "cancel"],
      ["CANCELLED", "update"],
      ["CANCELLED", "renew"],
    ] as const
  ) {
    let caught: unknown;
    try {
      assertSubscriptionMove(from, action);
    } catch (err) {
      caught = err;
    }
    assertEquals(caught instanceof AppError && caught.code, "INVALID_TRANSACTION_STATUS");
    assertEquals((caught as Error).message.includes(from), true);
  }
});
