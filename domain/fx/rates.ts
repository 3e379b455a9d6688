// Rates and conversions of amounts, for every area that prices one currency in another (conversions,
// paylinks, shop). The source is `deps.rates` (rails/fx); this module applies the gateway's rules:
//   - no rate at all                       -> RATE_UNAVAILABLE (503)
//   - rate observed > FX_MAX_AGE_SECONDS ago -> RATE_STALE (400)
//   - rounding to the target currency's decimals (XOF 0, USDT 6, EUR 2), in the platform's favour:
//     `rounding: "down"` (default) when the converted amount is what someone RECEIVES (a merchant's
//     conversion, a credit), `"up"` when it is what someone must PAY (a customer paying a price set in
//     another currency). Never a JS number: decimal.js throughout.
import { type FxCurrency, type Rate, rateFor } from "../../rails/fx/mod.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { Decimal } from "../money.ts";

export type { Rate } from "../../rails/fx/mod.ts";

/** Currencies this module accepts: the wallet codes (`USDT_TRC20`, `XOF`), `USDT` and `EUR`. */
export type PricedCurrency = "USDT_TRC20" | "USDT" | "XOF" | "EUR";

/** Decimals of an amount in each currency. */
export const FX_DECIMALS: Record<PricedCurrency, number> = { USDT_TRC20: 6, USDT: 6, XOF: 0, EUR: 2 };

export function toFxCurrency(c: PricedCurrency): FxCurrency {
  return c === "USDT_TRC20" ? "USDT" : c;
}

/**
 * The live rate of `base` in `quote` (one base = `rate` quote), checked for age. Throws
 * RATE_UNAVAILABLE when the source has no rate and RATE_STALE when its observation is too old.
 */
export async function currentRate(
  deps: Pick<Deps, "rates" | "clock" | "config">,
  base: PricedCurrency,
  quote: PricedCurrency,
): Promise<Rate> {
  const now = deps.clock.now();
  let rate: Rate | null;
  try {
    rate = await rateFor(deps.rates, toFxCurrency(base), toFxCurrency(quote), now);
  } catch {
    rate = null;
  }
  if (!rate) {
    throw new AppError("RATE_UNAVAILABLE", `No ${base}/${quote} exchange rate is available right now`);
  }
  const ageSeconds = (now.getTime() - rate.asOf.getTime()) / 1000;
  if (ageSeconds > deps.config.fx.maxAgeSeconds) {
    throw new AppError(
      "RATE_STALE",
      `The ${base}/${quote} rate was observed ${
        Math.floor(ageSeconds)
      } s ago (at most ${deps.config.fx.maxAgeSeconds} s allowed)`,
    );
  }
  return rate;
}

export type ConvertInput = {
  from: PricedCurrency;
  to: PricedCurrency;
  /** Decimal string or Decimal in `from`. */
  amount: Decimal.Value;
  /** "down" (default): the amount is received; "up": the amount must be paid. */
  rounding?: "down" | "up";
};

export type ConvertResult = {
  /** `amount * rate`, rounded to `to`'s decimals as asked, as a fixed decimal string. */
  amount: string;
  /** The exact product before rounding. */
  exact: string;
  rate: Rate;
};

/** Converts an amount at the live rate (see `currentRate` for its errors), rounded per `rounding`. */
export async function convertAmount(
  deps: Pick<Deps, "rates" | "clock" | "config">,
  input: ConvertInput,
): Promise<ConvertResult> {
  const rate = await currentRate(deps, input.from, input.to);
  const exact = new Decimal(input.amount).times(rate.rate);
  return {
    amount: roundAmount(exact, input.to, input.rounding ?? "down").toFixed(FX_DECIMALS[input.to]),
    exact: exact.toFixed(),
    rate,
  };
}

/** Rounds to the currency's decimals: "down" toward zero, "up" away from zero. */
export function roundAmount(
  amount: Decimal.Value,
  currency: PricedCurrency,
  rounding: "down" | "up",
): Decimal {
  return new Decimal(amount).toDecimalPlaces(
    FX_DECIMALS[currency],
    rounding === "down" ? Decimal.ROUND_DOWN : Decimal.ROUND_UP,
  );
}

/** A rate as the API shows it: the fields merchants see (`rateAsOf` an ISO timestamp). */
export function rateView(rate: Rate) {
  return { rate: rate.rate, rateAsOf: rate.asOf.toISOString(), rateSource: rate.source };
}
