// Promo code rules shared by the merchant routes, the public preview (apply-promo) and the checkout:
// the four redemption errors, exactly as the specification names them, and the discount arithmetic.
import type { PromoRow } from "../../db/paylinks.ts";
import { AppError } from "../errors.ts";
import { type Currency, CURRENCY_DECIMALS, Decimal } from "../money.ts";

/** Codes are compared upper-case; the stored code is upper-case too (a CHECK in migration 019). */
export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

export const PROMO_CODE_PATTERN = /^[A-Z0-9][A-Z0-9_-]{0,39}$/;

/** The codes normalizeCode makes PROMO_CODE_PATTERN of, as they are sent (any case, spaces around). */
export const PROMO_CODE_INPUT_PATTERN = "^\\s*[a-zA-Z0-9][a-zA-Z0-9_-]{0,39}\\s*$";

/** A PERCENT discount: above 0, at most 100, at most 3 integer digits and 4 decimals. */
export const PERCENT_PATTERN =
  "^(0{1,3}\\.(?=[0-9]*[1-9])[0-9]{1,4}|0{0,2}[1-9](\\.[0-9]{1,4})?|0?[1-9][0-9](\\.[0-9]{1,4})?|100(\\.0{1,4})?)$";

/**
 * Throws the specification's redemption error for a code that cannot be used now, in its order:
 * unknown, then deactivated, then expired, then used up.
 */
export function assertPromoUsable(promo: PromoRow | undefined, now: Date): asserts promo is PromoRow {
  if (!promo) throw new AppError("PROMO_CODE_INVALID", "This promo code does not exist on this paylink");
  if (!promo.is_active) throw new AppError("PROMO_CODE_INACTIVE", "This promo code has been deactivated");
  if (promo.expires_at && new Date(promo.expires_at).getTime() <= now.getTime()) {
    throw new AppError("PROMO_CODE_EXPIRED", "This promo code has expired");
  }
  if (promo.max_uses !== null && promo.use_count >= promo.max_uses) {
    throw new AppError("PROMO_CODE_USAGE_LIMIT_REACHED", "This promo code has reached its usage limit");
  }
}

/**
 * The discount of `promo` on `subtotal`, in the paylink's currency: PERCENT rounds down to the currency's
 * decimals (USDT 6, XOF 0), FIXED is the flat amount. A discount that would leave nothing to pay is
 * refused (VALIDATION_ERROR on `code`), never clamped: a free order cannot be paid on any rail.
 */
export function discountOf(
  promo: Pick<PromoRow, "discount_type" | "discount_value">,
  subtotal: Decimal.Value,
  currency: Currency,
): Decimal {
  const base = new Decimal(subtotal);
  const discount = promo.discount_type === "PERCENT"
    ? base.times(promo.discount_value).dividedBy(100).toDecimalPlaces(
      CURRENCY_DECIMALS[currency],
      Decimal.ROUND_DOWN,
    )
    : new Decimal(promo.discount_value);
  if (discount.greaterThanOrEqualTo(base)) {
    throw new AppError("VALIDATION_ERROR", "This promo code would leave nothing to pay on this order", {
      details: [{ field: "code", reason: "the discount is not smaller than the order subtotal" }],
    });
  }
  return discount;
}
