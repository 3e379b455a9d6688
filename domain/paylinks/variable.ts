// VARIABLE paylinks: the customer chooses what to pay (docs/decisions.md). The products' prices are the
// least the cart may cost; the chosen amount is a decimal string in the paylink's currency with at most
// that currency's decimals, and at most VARIABLE_MAX_MULTIPLE times the least (a typing slip of a few
// zeros is refused rather than charged). Without an amount, the cart's price is what the customer pays.
import type { PaylinkRow } from "../../db/paylinks.ts";
import { AppError } from "../errors.ts";
import { type Currency, CURRENCY_DECIMALS, Decimal, DECIMAL_STRING, hasAtMostDecimals } from "../money.ts";

export const VARIABLE_MAX_MULTIPLE = 100;

function refused(
  code: "VALIDATION_ERROR" | "INVALID_AMOUNT" | "AMOUNT_TOO_SMALL" | "AMOUNT_TOO_LARGE",
  reason: string,
) {
  return new AppError(code, code === "VALIDATION_ERROR" ? `Validation failed: amount: ${reason}` : reason, {
    details: [{ field: "amount", reason }],
  });
}

/** The order's subtotal: the cart's price, or on a VARIABLE paylink the customer's amount within bounds. */
export function chosenSubtotal(
  type: PaylinkRow["type"],
  currency: Currency,
  cartPrice: Decimal,
  amount: string | null | undefined,
): Decimal {
  if (amount === undefined || amount === null) return cartPrice;
  if (type !== "VARIABLE") {
    throw refused("VALIDATION_ERROR", `only a VARIABLE paylink takes an amount; this one is ${type}`);
  }
  const decimals = CURRENCY_DECIMALS[currency];
  if (!DECIMAL_STRING.test(amount) || !hasAtMostDecimals(amount, decimals)) {
    throw refused(
      "INVALID_AMOUNT",
      `amount must be a decimal string in ${currency} with at most ${decimals} decimals, e.g. "${
        decimals ? "25.50" : "5000"
      }"`,
    );
  }
  const chosen = new Decimal(amount);
  const show = (v: Decimal) => `${v.toFixed()} ${currency}`;
  if (chosen.lessThan(cartPrice)) {
    throw refused("AMOUNT_TOO_SMALL", `This cart costs at least ${show(cartPrice)}`);
  }
  const most = cartPrice.times(VARIABLE_MAX_MULTIPLE);
  if (chosen.greaterThan(most)) {
    throw refused(
      "AMOUNT_TOO_LARGE",
      `At most ${show(most)} for this cart (${VARIABLE_MAX_MULTIPLE} times its price)`,
    );
  }
  return chosen;
}
