// Analytics of a merchant's pay-ins over a period, read from daily roll-ups (db/analytics.ts, migration
// 038): volume by UTC day or ISO week (primaryCurrency, primaryVolume and the legacy `volume` mirror), and
// a summary (volume per currency, pay-ins by status, success rate, the fees paid on that volume: what the
// pay-ins' settlements booked to the platform). Sandbox data only for a sandbox key that asks for it
// (`sandbox=true`, as on creation): excluded by default.
import { foldPayinDaily, payinsByStatus, settledVolume } from "../../db/analytics.ts";
import type { Deps } from "../deps.ts";
import { type Currency, Decimal, formatAmount } from "../money.ts";
import { PAYIN_STATUSES } from "../payins/states.ts";
import { parsePeriod } from "../statements/period.ts";

export const CURRENCIES: Currency[] = ["USDT_TRC20", "XOF"];
type Scope = { merchantId: string; isSandbox: boolean };
type PeriodInput = { from?: string; to?: string };

const zeroByCurrency = () =>
  Object.fromEntries(CURRENCIES.map((c) => [c, formatAmount(0, c)])) as Record<Currency, string>;

/** Monday 00:00 UTC of the week holding `d` (date_trunc('week') is ISO: weeks start on Monday). */
function bucketStart(d: Date, interval: "day" | "week"): Date {
  const day = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  if (interval === "day") return day;
  return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * 86_400_000);
}

export async function analyticsVolume(
  deps: Pick<Deps, "db">,
  scope: Scope,
  input: PeriodInput & { interval?: "day" | "week"; currency?: Currency },
) {
  const period = parsePeriod(input);
  const interval = input.interval ?? "day";
  const rows = await settledVolume(deps.db, { ...scope, ...period, interval });
  const byCurrency = new Map<Currency, { volume: Decimal; count: number }>(
    CURRENCIES.map((c) => [c, { volume: new Decimal(0), count: 0 }]),
  );
  for (const r of rows) {
    const t = byCurrency.get(r.currency as Currency)!;
    t.volume = t.volume.plus(r.volume);
    t.count += r.count;
  }
  // The primary currency: the one asked for, else the one most pay-ins were settled in (USDT on a tie).
  const primary: Currency = input.currency ??
    (byCurrency.get("XOF")!.count > byCurrency.get("USDT_TRC20")!.count ? "XOF" : "USDT_TRC20");
  const buckets = new Map<string, { volume: Record<Currency, string>; count: Record<Currency, number> }>();
  for (
    let t = bucketStart(period.from, interval);
    t < period.to;
    t = new Date(t.getTime() + (interval === "day" ? 1 : 7) * 86_400_000)
  ) {
    buckets.set(t.toISOString().slice(0, 10), {
      volume: zeroByCurrency(),
      count: { USDT_TRC20: 0, XOF: 0 },
    });
  }
  for (const r of rows) {
    const b = buckets.get(r.bucket);
    if (!b) continue;
    const c = r.currency as Currency;
    b.volume[c] = formatAmount(r.volume, c);
    b.count[c] = r.count;
  }
  const primaryVolume = formatAmount(byCurrency.get(primary)!.volume, primary);
  return {
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    interval,
    isSandbox: scope.isSandbox,
    primaryCurrency: primary,
    primaryVolume,
    volume: primaryVolume,
    volumeByCurrency: Object.fromEntries(
      CURRENCIES.map((c) => [c, formatAmount(byCurrency.get(c)!.volume, c)]),
    ),
    count: CURRENCIES.reduce((n, c) => n + byCurrency.get(c)!.count, 0),
    series: [...buckets].map(([start, b]) => ({
      periodStart: start,
      volume: b.volume[primary],
      count: b.count.USDT_TRC20 + b.count.XOF,
      volumeByCurrency: b.volume,
    })),
  };
}

const SUCCESS = ["CONFIRMED", "OVERPAID", "UNDERPAID"];
const FINISHED_UNPAID = ["FAILED", "EXPIRED"];

export async function analyticsSummary(deps: Pick<Deps, "db">, scope: Scope, input: PeriodInput) {
  const period = parsePeriod(input);
  const q = { ...scope, ...period };
  const volume = await settledVolume(deps.db, { ...q, interval: "day" });
  const statuses = await payinsByStatus(deps.db, q);
  const totalVolumeByCurrency = zeroByCurrency();
  const payinFeesByCurrency = zeroByCurrency();
  for (const c of CURRENCIES) {
    const mine = volume.filter((r) => r.currency === c);
    totalVolumeByCurrency[c] = formatAmount(mine.reduce((s, r) => s.plus(r.volume), new Decimal(0)), c);
    payinFeesByCurrency[c] = formatAmount(mine.reduce((s, r) => s.plus(r.fees), new Decimal(0)), c);
  }
  const countsByStatus = Object.fromEntries(PAYIN_STATUSES.map((s) => [s, 0])) as Record<string, number>;
  for (const r of statuses) countsByStatus[r.status] = r.count;
  const succeeded = SUCCESS.reduce((n, s) => n + countsByStatus[s], 0);
  const finished = succeeded + FINISHED_UNPAID.reduce((n, s) => n + countsByStatus[s], 0);
  return {
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    isSandbox: scope.isSandbox,
    totalVolumeByCurrency,
    payinCount: Object.values(countsByStatus).reduce((a, b) => a + b, 0),
    countsByStatus,
    /** Share of the pay-ins created in the period and finished that were paid; null when none finished. */
    successRate: finished === 0 ? null : Number((succeeded / finished).toFixed(4)),
    feesPaid: payinFeesByCurrency,
  };
}

/** Deltas one fold statement moves at most; the cron repeats while a fold comes back full. */
const FOLD_BATCH = 20_000;
const FOLD_ROUNDS = 10;

/**
 * The minute cron `analytics-fold`: folds the roll-ups' pending deltas into the daily rows. Reads are
 * exact without it (they add the deltas); folding keeps what they add to a minute's worth.
 */
export async function foldAnalyticsRollups(deps: Pick<Deps, "db">): Promise<number> {
  let total = 0;
  for (let round = 0; round < FOLD_ROUNDS; round++) {
    const moved = await foldPayinDaily(deps.db, FOLD_BATCH);
    total += moved;
    if (moved < FOLD_BATCH) break;
  }
  return total;
}
