// Checks of paylink input that depend on more than its shape: prices in the paylink's currency, slugs,
// accepted methods against the merchant's enabled rails.
import { AppError, type FieldProblem } from "../errors.ts";
import { randomToken } from "../ids.ts";
import { type Currency, CURRENCY_DECIMALS, Decimal, DECIMAL_STRING, hasAtMostDecimals } from "../money.ts";
import { SLUG_PATTERN } from "./queries.ts";

export function refuse(details: FieldProblem[]): never {
  const summary = details.slice(0, 3).map((d) => `${d.field}: ${d.reason}`).join("; ");
  throw new AppError("VALIDATION_ERROR", `Validation failed: ${summary}`, { details });
}

/**
 * A request that contradicts the paylink or product as it is stored (its currency, its type, the uses
 * already taken): nothing in the request alone is wrong, so CONFLICT naming the field, not a validation
 * error.
 */
export function conflict(details: FieldProblem[]): never {
  const summary = details.slice(0, 3).map((d) => `${d.field}: ${d.reason}`).join("; ");
  throw new AppError("CONFLICT", `Conflicts with the paylink as it is: ${summary}`, { details });
}

/** Largest price or discount accepted: far above any real sale, far below NUMERIC's limits. */
export const MAX_PRICE = new Decimal("1000000000000");

/**
 * priceProblem's rule as a pattern, per currency: above 0, at most MAX_PRICE, at most the currency's
 * decimals (the request schemas declare it; tests/unit/paylink_prices_test.ts holds the two together).
 */
export const PRICE_PATTERNS: Record<Currency, string> = {
  USDT_TRC20: "^(0\\.(?=[0-9]*[1-9])[0-9]{1,6}|[1-9][0-9]{0,11}(\\.[0-9]{1,6})?|1000000000000(\\.0{1,6})?)$",
  XOF: "^([1-9][0-9]{0,11}|1000000000000)$",
};

/** A price in `currency`: a plain positive decimal with at most the currency's decimals (USDT 6, XOF 0). */
export function priceProblem(value: string, currency: Currency): string | undefined {
  if (!DECIMAL_STRING.test(value)) return "must be a decimal string such as 12.50";
  if (!hasAtMostDecimals(value, CURRENCY_DECIMALS[currency])) {
    return currency === "XOF" ? "XOF prices are whole numbers" : "at most 6 decimals for USDT";
  }
  const amount = new Decimal(value);
  if (amount.lessThanOrEqualTo(0)) return "must be greater than 0";
  if (amount.greaterThan(MAX_PRICE)) return `at most ${MAX_PRICE.toFixed()}`;
  return undefined;
}

/**
 * A price for a paylink that exists: its form is the request's (VALIDATION_ERROR), the decimals its stored
 * currency allows are state (CONFLICT: a whole number for an XOF paylink).
 */
export function checkStoredCurrencyPrice(field: string, value: string, currency: Currency): void {
  const form = priceProblem(value, "USDT_TRC20");
  if (form) refuse([{ field, reason: form }]);
  const decimals = priceProblem(value, currency);
  if (decimals) conflict([{ field, reason: `${decimals}: this paylink is priced in ${currency}` }]);
}

export function checkPrices(prices: Array<{ field: string; value: string }>, currency: Currency): void {
  const problems = prices.flatMap(({ field, value }) => {
    const reason = priceProblem(value, currency);
    return reason ? [{ field, reason }] : [];
  });
  if (problems.length > 0) refuse(problems);
}

/** The slugs normalizeSlug accepts as they are sent: SLUG_PATTERN before trimming and lower-casing. */
export const SLUG_INPUT_PATTERN = "^\\s*[a-zA-Z0-9][a-zA-Z0-9-]{1,62}[a-zA-Z0-9]\\s*$";

export const SLUG_RULE =
  "3 to 64 characters: a-z, 0-9 and hyphens, starting and ending with a letter or digit";

export function normalizeSlug(slug: string): string {
  const lower = slug.trim().toLowerCase();
  if (!SLUG_PATTERN.test(lower)) refuse([{ field: "slug", reason: SLUG_RULE }]);
  return lower;
}

/** A readable slug from a title (accents dropped), with a random tail so it cannot be guessed or collide. */
export function generateSlug(from: string | null | undefined): string {
  const base = (from ?? "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40).replace(/-+$/, "");
  const tail = randomToken(5).slice(0, 8);
  return base.length >= 2 ? `${base}-${tail}` : `pl-${tail}`;
}

/** Method names the alternative body shape uses, mapped to the gateway's rails. */
const METHOD_ALIASES: Record<string, string> = {
  CRYPTO: "USDT_TRC20",
  USDT: "USDT_TRC20",
  USDT_TRC20: "USDT_TRC20",
  CARD: "CARD",
  MOBILE_MONEY: "MOBILE_MONEY",
  MOMO: "MOBILE_MONEY",
};
export const METHOD_NAMES = Object.keys(METHOD_ALIASES) as [string, ...string[]];

/**
 * The rails a paylink accepts: those asked for (all of the merchant's when none are named) that the
 * merchant has enabled. None left: NO_METHODS_ENABLED.
 */
export function acceptedRails(requested: string[] | undefined, enabledRails: string[]): string[] {
  const wanted = requested && requested.length > 0
    ? [...new Set(requested.map((m) => METHOD_ALIASES[m]).filter(Boolean))]
    : ["USDT_TRC20", "CARD", "MOBILE_MONEY"];
  const rails = wanted.filter((r) => enabledRails.includes(r));
  if (rails.length === 0) {
    throw new AppError(
      "NO_METHODS_ENABLED",
      "None of the paylink's payment methods is enabled for this merchant",
    );
  }
  return rails;
}

/** Minor units of the alternative shape's `amountMinor`: USDT counts cents, XOF has no minor unit. */
export const MINOR_UNIT_DECIMALS: Record<Currency, number> = { USDT_TRC20: 2, XOF: 0 };

export function fromMinor(amountMinor: number, currency: Currency): string {
  return new Decimal(amountMinor).dividedBy(new Decimal(10).pow(MINOR_UNIT_DECIMALS[currency])).toFixed();
}
