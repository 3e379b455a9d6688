// Plan limits on money: a daily and a monthly cap on USDT leaving by payouts and withdrawals, and a
// daily count of conversions. Defaults come from configuration (PLAN_*); an operator may set a merchant's
// own (audited). Each is consumed in the transaction that moves the money (consumePlanLimits), on a
// counter row whose lock makes concurrent requests take the last unit one at a time: the total after
// the addition is compared with the limit, and a refusal rolls the addition back with everything else.
// Periods are UTC: a day resets at 00:00, a month on the first.
import {
  addUsage,
  ensureCounters,
  findPlanLimits,
  readUsage,
  setPlanLimits,
  takeCounters,
  type TakeResult,
  walletsBalance,
} from "../../db/usage_counters.ts";
import { PLAN_DEFAULTS, type PlanDefaults } from "../../config.ts";
import { takeBatched } from "./payin_batching.ts";
import { keyCacheOf } from "../keys/key_cache.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorCode } from "../errors.ts";
import { Decimal } from "../money.ts";
import { audited } from "../audit/audited.ts";
import type { Actor } from "../operators/roles.ts";

export type PlanLimitName = keyof PlanDefaults;

/** The limits counted per period (a counter row each); the others are ceilings (PLAN_CEILINGS). */
export type CounterName =
  | "moneyOutDailyUsdt"
  | "moneyOutMonthlyUsdt"
  | "conversionsDailyCount"
  | "conversionsDailyVolumeUsdt"
  | "moneyOutDailyXof"
  | "moneyOutMonthlyXof"
  | "payinDailyUsdt"
  | "payinMonthlyUsdt"
  | "payinDailyXof"
  | "payinMonthlyXof";
export type CeilingName = Exclude<PlanLimitName, CounterName>;

type Unit = "USDT_TRC20" | "XOF" | "count";
type LimitSpec = { code: ErrorCode; period: "day" | "month"; unit: Unit; what: string };

export const PLAN_LIMITS: Record<CounterName, LimitSpec> = {
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
  moneyOutDailyXof: {
    code: "DAILY_CAP_EXCEEDED",
    period: "day",
    unit: "XOF",
    what: "XOF sent by withdrawals and mobile money bulk batches today",
  },
  moneyOutMonthlyXof: {
    code: "MONTHLY_LIMIT_EXCEEDED",
    period: "month",
    unit: "XOF",
    what: "XOF sent by withdrawals and mobile money bulk batches this month",
  },
  payinDailyUsdt: {
    code: "DAILY_CAP_EXCEEDED",
    period: "day",
    unit: "USDT_TRC20",
    what: "USDT asked by pay-ins created today",
  },
  payinMonthlyUsdt: {
    code: "MONTHLY_LIMIT_EXCEEDED",
    period: "month",
    unit: "USDT_TRC20",
    what: "USDT asked by pay-ins created this month",
  },
  payinDailyXof: {
    code: "DAILY_CAP_EXCEEDED",
    period: "day",
    unit: "XOF",
    what: "XOF asked by card and mobile money pay-ins created today",
  },
  payinMonthlyXof: {
    code: "MONTHLY_LIMIT_EXCEEDED",
    period: "month",
    unit: "XOF",
    what: "XOF asked by card and mobile money pay-ins created this month",
  },
};
/** Every limit of the plan, counters and ceilings (the keys of the configured defaults). */
export const PLAN_LIMIT_NAMES = Object.keys(PLAN_DEFAULTS) as PlanLimitName[];
export const COUNTER_NAMES = Object.keys(PLAN_LIMITS) as CounterName[];

type CeilingSpec = { code: ErrorCode; unit: Unit; what: string };

/** Limits that are not counted per period: a ceiling on one amount, on a balance, on a number of things. */
export const PLAN_CEILINGS: Record<CeilingName, CeilingSpec> = {
  transactionMaxUsdt: {
    code: "MERCHANT_LIMIT_EXCEEDED",
    unit: "USDT_TRC20",
    what: "one USDT pay-in, payout, withdrawal or bulk item",
  },
  transactionMaxXof: {
    code: "MERCHANT_LIMIT_EXCEEDED",
    unit: "XOF",
    what: "one card or mobile money pay-in, XOF withdrawal or mobile money bulk item",
  },
  balanceCapUsdt: {
    code: "BALANCE_CAP_REACHED",
    unit: "USDT_TRC20",
    what: "the USDT wallet's balance with a new pay-in paid",
  },
  balanceCapXof: {
    code: "BALANCE_CAP_REACHED",
    unit: "XOF",
    what: "the XOF wallets' balance with a new pay-in paid",
  },
  webhookEndpoints: { code: "LIMIT_EXCEEDED_WEBHOOKS", unit: "count", what: "webhook endpoints per mode" },
};

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
  ownLimits?: Record<string, string>,
): Promise<Record<PlanLimitName, string>> {
  const own = ownLimits ?? (await findPlanLimits(deps.db, merchantId)) ?? {};
  const defaults = deps.config.planDefaults ?? PLAN_DEFAULTS;
  return Object.fromEntries(
    PLAN_LIMIT_NAMES.map((n) => [n, own[n] ?? defaults[n] ?? PLAN_DEFAULTS[n]]),
  ) as Record<
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
  names: CounterName[],
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

export type LimitCurrency = "USDT_TRC20" | "XOF";

const TRANSACTION_MAX: Record<LimitCurrency, CeilingName> = {
  USDT_TRC20: "transactionMaxUsdt",
  XOF: "transactionMaxXof",
};
const BALANCE_CAP: Record<LimitCurrency, CeilingName> = {
  USDT_TRC20: "balanceCapUsdt",
  XOF: "balanceCapXof",
};
const PAYIN_COUNTERS: Record<LimitCurrency, CounterName[]> = {
  USDT_TRC20: ["payinDailyUsdt", "payinMonthlyUsdt"],
  XOF: ["payinDailyXof", "payinMonthlyXof"],
};
/** What money-out counts: USDT by payouts, USDT withdrawals and USDT batches; XOF by the others. */
export const MONEY_OUT_COUNTERS: Record<LimitCurrency, CounterName[]> = {
  USDT_TRC20: ["moneyOutDailyUsdt", "moneyOutMonthlyUsdt"],
  XOF: ["moneyOutDailyXof", "moneyOutMonthlyXof"],
};

function unitLabel(currency: LimitCurrency): string {
  return currency === "XOF" ? "XOF" : "USDT";
}

/** MERCHANT_LIMIT_EXCEEDED when one amount (a pay-in, a payout, a withdrawal, a bulk item) passes the maximum. */
export function assertTransactionMax(
  limits: Record<PlanLimitName, string>,
  currency: LimitCurrency,
  amount: Decimal | string,
  what = "This transaction",
): void {
  const max = limits[TRANSACTION_MAX[currency]];
  if (new Decimal(amount).greaterThan(max)) {
    throw new AppError(
      "MERCHANT_LIMIT_EXCEEDED",
      `${what} is above this merchant's per-transaction maximum of ${max} ${unitLabel(currency)}`,
      { reason: TRANSACTION_MAX[currency] },
    );
  }
}

/** The same, reading the merchant's limits first. */
export async function assertWithinTransactionMax(
  deps: Pick<Deps, "db" | "config">,
  merchantId: string,
  currency: LimitCurrency,
  amount: Decimal | string,
  what?: string,
): Promise<void> {
  assertTransactionMax(await planLimitsOf(deps, merchantId), currency, amount, what);
}

/**
 * A new pay-in's limits, taken at its creation: the per-transaction maximum (MERCHANT_LIMIT_EXCEEDED), the
 * balance cap (BALANCE_CAP_REACHED: the wallets of its currency plus this pay-in, were it paid, may not
 * pass it) and the daily and monthly volume of pay-ins created (DAILY_CAP_EXCEEDED, MONTHLY_LIMIT_EXCEEDED).
 * The counters are raised by one statement (db/usage_counters.ts takeCounters), all or none. Inside a
 * transaction (a paylink checkout, a renewal, a card or mobile money pay-in) they go with it. Outside one
 * (the USDT pay-in, whose own statement runs outside any transaction) the statement commits alone, holding
 * the counter rows' locks only while it runs, and the answer gives the counts back if the pay-in is then
 * not written.
 */
export async function takePayinLimits(
  deps: Pick<Deps, "db" | "clock" | "config">,
  scope: Scope,
  currency: LimitCurrency,
  amount: Decimal | string,
  /** The merchant's own limits when the caller has them (the API key's lookup): saves a read. */
  ownLimits?: Record<string, string>,
): Promise<{ giveBack: () => Promise<void> }> {
  const limits = await planLimitsOf(deps, scope.merchantId, ownLimits);
  assertTransactionMax(limits, currency, amount, "This pay-in");
  const cap = limits[BALANCE_CAP[currency]];
  const by = new Decimal(amount).toFixed();
  const now = deps.clock.now();
  const counters = PAYIN_COUNTERS[currency].map((name) => ({
    metric: name,
    period: periodOf(PLAN_LIMITS[name], now).period,
    limit: limits[name],
  }));
  const exact = (amount: string) => takeCounters(deps.db, scope, amount, counters, { currency, cap });
  const ensure = () => ensureCounters(deps.db, scope, counters);
  let seen: TakeResult;
  if (deps.db.inTransaction) {
    seen = await exact(by);
    if (!seen.taken && seen.found < counters.length) {
      // The first pay-in of the period: its counter rows are made, then the same statement again.
      await ensure();
      seen = await exact(by);
    }
  } else {
    // Shared with this process's creations of the same moment (payin_batching.ts), which also makes a
    // new period's rows once for all of them.
    seen = await takeBatched(
      deps.db,
      // Callers share a statement only when it raises the same counters against the same limits.
      [scope.merchantId, scope.isSandbox, currency, cap, ...counters.map((c) => `${c.period}:${c.limit}`)]
        .join("|"),
      new Decimal(by),
      counters.length,
      exact,
      ensure,
    );
  }
  if (!seen.taken) {
    const balance = new Decimal(seen.balance);
    if (balance.plus(by).greaterThan(cap)) {
      throw new AppError(
        "BALANCE_CAP_REACHED",
        `The ${unitLabel(currency)} balance (${balance.toFixed()}) with this pay-in paid would pass this ` +
          `merchant's balance cap of ${cap} ${unitLabel(currency)}`,
        { reason: BALANCE_CAP[currency] },
      );
    }
    const over = seen.counters.find((c) => new Decimal(c.used).plus(by).greaterThan(c.limit));
    if (!over) throw new Error("pay-in limits: counters not taken, none over its limit");
    const name = over.metric as CounterName;
    const left = Decimal.max(0, new Decimal(over.limit).minus(over.used));
    throw new AppError(
      PLAN_LIMITS[name].code,
      `Limit reached: ${PLAN_LIMITS[name].what} may total ${limits[name]}; ${left.toFixed()} left until ` +
        periodOf(PLAN_LIMITS[name], now).resetsAt,
      { reason: name },
    );
  }
  return {
    giveBack: async () => {
      // Inside the caller's transaction the counts go with it; outside, they are taken back.
      if (deps.db.inTransaction) return;
      for (const c of counters) {
        await addUsage(
          deps.db,
          { ...scope, metric: c.metric, period: c.period },
          new Decimal(by).negated().toFixed(),
        );
      }
    },
  };
}

/** Each limit with what is used of it in the current period, for GET /v1/merchant/usage/limits. */
export async function planUsage(deps: Pick<Deps, "db" | "clock" | "config">, scope: Scope) {
  const limits = await planLimitsOf(deps, scope.merchantId);
  const out: Record<string, unknown> = {};
  for (const name of COUNTER_NAMES) {
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

/**
 * The per-transaction maxima and the balance caps, for GET /v1/merchant/usage/limits: a balance cap shows
 * the wallets' balance as its use and `reached` once it is at or past the cap (a payment that arrived anyway
 * is credited: new pay-ins are then refused until the balance is back under it).
 */
export async function planCeilings(
  deps: Pick<Deps, "db" | "config">,
  scope: Scope,
  known?: Record<PlanLimitName, string>,
) {
  const limits = known ?? await planLimitsOf(deps, scope.merchantId);
  const max = (name: CeilingName) => ({
    limit: limits[name],
    currency: PLAN_CEILINGS[name].unit,
    per: "transaction",
    code: PLAN_CEILINGS[name].code,
  });
  const cap = async (name: CeilingName, currency: LimitCurrency) => {
    const balance = new Decimal(await walletsBalance(deps.db, scope, currency));
    return {
      limit: limits[name],
      used: balance.toFixed(),
      remaining: Decimal.max(0, new Decimal(limits[name]).minus(balance)).toFixed(),
      reached: !balance.lessThan(limits[name]),
      currency,
      per: "wallet balance, merchant and mode",
      code: PLAN_CEILINGS[name].code,
    };
  };
  return {
    transactionMaxUsdt: max("transactionMaxUsdt"),
    transactionMaxXof: max("transactionMaxXof"),
    balanceCapUsdt: await cap("balanceCapUsdt", "USDT_TRC20"),
    balanceCapXof: await cap("balanceCapXof", "XOF"),
  };
}

/** An operator sets a merchant's own limits; null puts one back to the default. Audited. */
export async function setPlanLimitsAs(
  deps: Pick<Deps, "db" | "clock" | "config" | "keyCache">,
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
    // Keys' lookups carry the limits (domain/auth.ts): this process forgets them at once, others within
    // AUTH_CACHE_TTL_MS, as for any change to the merchant.
    tx.afterCommit(() => keyCacheOf(deps).forgetMerchant(merchantId));
    return { result: await planLimitsOf({ ...deps, db: tx }, merchantId), before, after: next };
  });
}
