// Plan limits on money: a daily and a monthly cap on USDT leaving by payouts and withdrawals, and a
// daily count of conversions. Defaults come from configuration (PLAN_*); an operator may set a merchant's
// own (audited). Each is consumed in the transaction that moves the money (consumePlanLimits), on a
// counter row whose lock makes concurrent requests take the last unit one at a time: the total after
// the addition is compared with the limit, and a refusal rolls the addition back with everything else.
// Periods are UTC: a day resets at 00:00, a month on the first.
import { addUsage, findPlanLimits, readUsage, setPlanLimits } from "../../db/usage_counters.ts";
import { PLAN_DEFAULTS, type PlanDefaults } from "../../config.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorCode } from "../errors.ts";
import { Decimal } from "../money.ts";
import { audited } from "../audit/audited.ts";
import type { Actor } from "../operators/roles.ts";

export type PlanLimitName = keyof PlanDefaults;

type LimitSpec = { code: ErrorCode; period: "day" | "month"; unit: "USDT_TRC20" | "count"; what: string };

export const PLAN_LIMITS: Record<PlanLimitName, LimitSpec> = {
  moneyOutDailyUsdt: {
    code: "DAILY_CAP_EXCEEDED",
    period: "day",
    unit: "USDT_TRC20",
    what: "USDT sent by payouts and withdrawals today",
  },
  moneyOutMonthlyUsdt: {
    code: "MONTHLY_LIMIT_EXCEEDED",
    period: "month",
    unit: "USDT_TRC20",
    what: "USDT sent by payouts and withdrawals this month",
  },
  conversionsDailyCount: {
    code: "DAILY_CONVERSION_COUNT_LIMIT",
    period: "day",
    unit: "count",
    what: "conversions today",
  },
  conversionsDailyVolumeUsdt: {
    code: "DAILY_CONVERSION_LIMIT",
    period: "day",
    unit: "USDT_TRC20",
    what: "USDT converted (either way) today",
  },
};
export const PLAN_LIMIT_NAMES = Object.keys(PLAN_LIMITS) as PlanLimitName[];

type Scope = { merchantId: string; isSandbox: boolean };

function periodOf(spec: LimitSpec, now: Date): { period: string; resetsAt: string } {
  const iso = now.toISOString();
  if (spec.period === "day") {
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    return { period: iso.slice(0, 10), resetsAt: next.toISOString() };
  }
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { period: iso.slice(0, 7), resetsAt: next.toISOString() };
}

/** The merchant's limits: its own where an operator set one, else the configured default. */
export async function planLimitsOf(
  deps: Pick<Deps, "db" | "config">,
  merchantId: string,
): Promise<Record<PlanLimitName, string>> {
  const own = (await findPlanLimits(deps.db, merchantId)) ?? {};
  const defaults = deps.config.planDefaults ?? PLAN_DEFAULTS;
  return Object.fromEntries(PLAN_LIMIT_NAMES.map((n) => [n, own[n] ?? defaults[n]])) as Record<
    PlanLimitName,
    string
  >;
}

/**
 * Takes `by` of each named limit, or throws its code. Call with the money's transaction as deps.db, after
 * the wallet is locked: the counter rows are then locked in one order by every caller (no deadlock).
 */
export async function consumePlanLimits(
  deps: Pick<Deps, "db" | "clock" | "config">,
  scope: Scope,
  names: PlanLimitName[],
  by: Decimal | string | number,
): Promise<void> {
  const limits = await planLimitsOf(deps, scope.merchantId);
  for (const name of names) {
    const spec = PLAN_LIMITS[name];
    const { period, resetsAt } = periodOf(spec, deps.clock.now());
    const used = new Decimal(await addUsage(deps.db, { ...scope, metric: name, period }, String(by)));
    if (used.greaterThan(limits[name])) {
      const left = Decimal.max(0, new Decimal(limits[name]).minus(used).plus(by));
      throw new AppError(
        spec.code,
        `Limit reached: ${spec.what} may total ${limits[name]}; ${left.toFixed()} left until ${resetsAt}`,
        { reason: name },
      );
    }
  }
}

/** Each limit with what is used of it in the current period, for GET /v1/merchant/usage/limits. */
export async function planUsage(deps: Pick<Deps, "db" | "clock" | "config">, scope: Scope) {
  const limits = await planLimitsOf(deps, scope.merchantId);
  const out: Record<string, unknown> = {};
  for (const name of PLAN_LIMIT_NAMES) {
    const spec = PLAN_LIMITS[name];
    const { period, resetsAt } = periodOf(spec, deps.clock.now());
    const used = new Decimal(await readUsage(deps.db, { ...scope, metric: name, period }));
    out[name] = {
      limit: limits[name],
      used: used.toFixed(),
      remaining: Decimal.max(0, new Decimal(limits[name]).minus(used)).toFixed(),
      unit: spec.unit,
      per: spec.period === "day" ? "UTC day, merchant and mode" : "UTC month, merchant and mode",
      resetsAt,
      code: spec.code,
    };
  }
  return out;
}

/** An operator sets a merchant's own limits; null puts one back to the default. Audited. */
export async function setPlanLimitsAs(
  deps: Pick<Deps, "db" | "clock" | "config">,
  actor: Actor,
  merchantId: string,
  patch: Partial<Record<PlanLimitName, string | null>>,
) {
  const what = { action: "merchant.plan_limits", itemType: "merchant", itemId: merchantId };
  return await audited(deps, actor, what, async (tx) => {
    const before = await findPlanLimits(tx, merchantId);
    if (!before) throw new AppError("MERCHANT_NOT_FOUND");
    const next: Record<string, string> = { ...before };
    for (const [name, value] of Object.entries(patch)) {
      if (value === null) delete next[name];
      else if (value !== undefined) next[name] = new Decimal(value).toFixed();
    }
    await setPlanLimits(tx, merchantId, next);
    return { result: await planLimitsOf({ ...deps, db: tx }, merchantId), before, after: next };
  });
}
