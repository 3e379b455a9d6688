// Billing periods. Period k starts at anchor + (k - anchorIndex) intervals, counted from the anchor (not
// from the previous period), so a subscription started on 31 January renews on 28 (or 29) February and
// again on 31 March. Everything in UTC.
import type { BillingInterval, SubscriptionRow } from "../../db/subscriptions.ts";

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** `anchor` moved by `n` intervals of `count` weeks, months or years (n may be 0). */
export function addIntervals(anchor: Date, interval: BillingInterval, count: number, n: number): Date {
  if (interval === "WEEKLY") return new Date(anchor.getTime() + n * count * 7 * 86_400_000);
  const months = n * count * (interval === "YEARLY" ? 12 : 1);
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const year = y + Math.floor(m / 12);
  const month = ((m % 12) + 12) % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  return new Date(Date.UTC(
    year,
    month,
    day,
    anchor.getUTCHours(),
    anchor.getUTCMinutes(),
    anchor.getUTCSeconds(),
    anchor.getUTCMilliseconds(),
  ));
}

type Schedule = Pick<SubscriptionRow, "anchor_at" | "anchor_index" | "billing_interval" | "interval_count">;

/** When period `k` of the subscription starts. */
export function periodStart(s: Schedule, k: number): Date {
  return addIntervals(s.anchor_at, s.billing_interval, s.interval_count, k - s.anchor_index);
}
