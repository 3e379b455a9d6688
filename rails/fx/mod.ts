// The rate source seam. One market rate is observed from the outside world, USDT priced in EUR, with the
// time it was observed; every other pair the gateway needs is derived from it and from the fixed
// XOF/EUR peg (655.957 XOF per EUR, a treaty rate that never moves). Three implementations:
//   - `fixedRateSource`: a constant USDT/EUR rate, always fresh (development default, FX_SOURCE=fixed);
//   - `simulatedRateFeed`: a feed tests move by hand (set the rate, set its age, take it away);
//   - `httpRateFeed`: production (FX_SOURCE=feed), a JSON document at FX_FEED_URL; never called in tests.
// This module knows nothing of the gateway's errors: it answers `null` when it has no rate, and the
// domain (domain/fx/rates.ts) turns that into RATE_UNAVAILABLE and an old `asOf` into RATE_STALE.
import { Decimal } from "decimal.js";

/** The currencies rates are quoted in. `USDT` is the gateway's `USDT_TRC20`; `EUR` only prices things. */
export type FxCurrency = "USDT" | "XOF" | "EUR";

/** XOF per EUR, fixed by the CFA franc peg. */
export const XOF_PER_EUR = "655.957";

/** Significant digits kept in a derived rate (USDT/XOF, XOF/USDT...): far more than any amount needs. */
export const RATE_SIGNIFICANT_DIGITS = 15;

/**
 * One observed price: one unit of `base` is worth `rate` units of `quote` (a decimal string, never a JS
 * number). `asOf` is when the underlying market observation was made (the peg alone is always "now");
 * `source` names where it came from (`fixed`, `simulated`, `feed:<host>`, with `+peg` when derived).
 */
export type Rate = { base: FxCurrency; quote: FxCurrency; rate: string; asOf: Date; source: string };

/** The one market observation a source provides: USDT priced in EUR. */
export type UsdtEurObservation = { rate: string; asOf: Date; source: string };

/** The seam. `deps.rates` is one of these. */
export interface RateSource {
  /** Latest USDT/EUR observation, or null when the source has none (never throws for "no rate"). */
  usdtEur(): Promise<UsdtEurObservation | null>;
}

/**
 * Any pair among USDT, XOF and EUR from a source, or null when the market rate is missing. Same-currency
 * pairs are 1. Derived pairs carry the market observation's `asOf`, so staleness follows the feed.
 */
export async function rateFor(
  source: RateSource,
  base: FxCurrency,
  quote: FxCurrency,
  now: Date,
): Promise<Rate | null> {
  if (base === quote) return { base, quote, rate: "1", asOf: now, source: "identity" };
  const eurValue = (c: FxCurrency, obs: UsdtEurObservation | null): Decimal | null => {
    // Value of one unit of `c` in EUR.
    if (c === "EUR") return new Decimal(1);
    if (c === "XOF") return new Decimal(1).div(XOF_PER_EUR);
    return obs ? new Decimal(obs.rate) : null;
  };
  const needsMarket = base === "USDT" || quote === "USDT";
  const obs = needsMarket ? await source.usdtEur() : null;
  if (needsMarket && !obs) return null;
  // base/quote = (EUR per base) / (EUR per quote); computed with XOF_PER_EUR multiplied, never divided
  // twice, so USDT/XOF is exactly usdtEur * 655.957.
  let rate: Decimal;
  if (base === "XOF" && quote === "EUR") rate = new Decimal(1).div(XOF_PER_EUR);
  else if (base === "EUR" && quote === "XOF") rate = new Decimal(XOF_PER_EUR);
  else if (base === "USDT" && quote === "XOF") rate = new Decimal(obs!.rate).times(XOF_PER_EUR);
  else if (base === "XOF" && quote === "USDT") {
    rate = new Decimal(1).div(new Decimal(obs!.rate).times(XOF_PER_EUR));
  } else rate = eurValue(base, obs)!.div(eurValue(quote, obs)!);
  const pegged = base === "XOF" || quote === "XOF";
  return {
    base,
    quote,
    rate: rate.toSignificantDigits(RATE_SIGNIFICANT_DIGITS, Decimal.ROUND_DOWN).toFixed(),
    asOf: obs ? obs.asOf : now,
    source: obs ? (pegged ? `${obs.source}+peg` : obs.source) : "peg",
  };
}

/** A constant USDT/EUR rate, observed "now" at every call: development's default. */
export function fixedRateSource(usdtEur: string, now: () => Date = () => new Date()): RateSource {
  const rate = checkedRate(usdtEur);
  return { usdtEur: () => Promise.resolve({ rate, asOf: now(), source: "fixed" }) };
}

/** A feed tests drive: `set` a rate, `setAge` how old its observation is, `clear` to have none. */
export type SimulatedRateFeed = RateSource & {
  /** New USDT/EUR rate, observed now (age back to 0 unless given). */
  set(usdtEur: string, ageSeconds?: number): void;
  /** Makes the current observation this many seconds old. */
  setAge(seconds: number): void;
  /** Takes the rate away: the source then has none (RATE_UNAVAILABLE). */
  clear(): void;
  /** The USDT/EUR rate set last, or null. */
  current(): string | null;
};

export function simulatedRateFeed(
  initialUsdtEur: string | null,
  now: () => Date = () => new Date(),
): SimulatedRateFeed {
  let rate: string | null = initialUsdtEur === null ? null : checkedRate(initialUsdtEur);
  let ageMs = 0;
  return {
    usdtEur() {
      if (rate === null) return Promise.resolve(null);
      return Promise.resolve({ rate, asOf: new Date(now().getTime() - ageMs), source: "simulated" });
    },
    set(usdtEur, ageSeconds = 0) {
      rate = checkedRate(usdtEur);
      ageMs = ageSeconds * 1000;
    },
    setAge(seconds) {
      ageMs = seconds * 1000;
    },
    clear() {
      rate = null;
    },
    current: () => rate,
  };
}

export type HttpFeedOptions = {
  /** Answers JSON `{"rate": "0.92", "asOf": "2026-11-23T12:00:00Z"}`: USDT priced in EUR. */
  url: string;
  fetch?: typeof fetch;
  /** A fetched observation is reused this long before asking again. */
  cacheMs?: number;
  timeoutMs?: number;
  now?: () => Date;
};

/**
 * Production feed. Fetches on demand, at most once per `cacheMs`; a failed or malformed answer keeps the
 * last good observation (whose age then grows until the domain calls it stale), and with none, null.
 */
export function httpRateFeed(options: HttpFeedOptions): RateSource {
  const doFetch = options.fetch ?? fetch;
  const cacheMs = options.cacheMs ?? 10_000;
  const now = options.now ?? (() => new Date());
  const host = new URL(options.url).host;
  let last: UsdtEurObservation | null = null;
  let fetchedAt = -Infinity;
  let inFlight: Promise<void> | null = null;
  const refresh = async () => {
    try {
      const res = await doFetch(options.url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
      });
      if (!res.ok) {
        await res.body?.cancel();
        return;
      }
      const body = await res.json() as { rate?: unknown; asOf?: unknown };
      const asOf = typeof body.asOf === "string" ? new Date(body.asOf) : null;
      if (typeof body.rate !== "string" || !asOf || Number.isNaN(asOf.getTime())) return;
      last = { rate: checkedRate(body.rate), asOf, source: `feed:${host}` };
    } catch {
      // Keep the last observation; its age tells the domain whether it may still be used.
    } finally {
      fetchedAt = now().getTime();
    }
  };
  return {
    async usdtEur() {
      if (now().getTime() - fetchedAt >= cacheMs) {
        inFlight ??= refresh().finally(() => (inFlight = null));
        await inFlight;
      }
      return last;
    },
  };
}

function checkedRate(text: string): string {
  if (!/^\d{1,9}(\.\d{1,18})?$/.test(text)) throw new Error(`rate ${JSON.stringify(text)} is not a decimal`);
  const value = new Decimal(text);
  if (value.lte(0)) throw new Error(`rate ${text} must be positive`);
  return value.toFixed();
}
