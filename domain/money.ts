// Money is decimal.js in code and NUMERIC in SQL, never a JS number. Rounding is explicit and named.
import { Decimal } from "decimal.js";

export { Decimal };

export type Currency = "USDT_TRC20" | "XOF";
export type Rail = "TRC20" | "MOMO" | "CARD";

export const CURRENCY_DECIMALS: Record<Currency, number> = { USDT_TRC20: 6, XOF: 0 };

/** The three wallets of a merchant, always identified by the (currency, rail) pair. */
export const WALLET_PAIRS: ReadonlyArray<{ currency: Currency; rail: Rail }> = [
  { currency: "USDT_TRC20", rail: "TRC20" },
  { currency: "XOF", rail: "MOMO" },
  { currency: "XOF", rail: "CARD" },
];

/** A decimal string as clients send it: digits, optional fraction, no sign or exponent. */
export const DECIMAL_STRING = /^(0|[1-9]\d{0,17})(\.\d+)?$/;

export function hasAtMostDecimals(amount: string, decimals: number): boolean {
  const fraction = amount.split(".")[1] ?? "";
  return fraction.length <= decimals;
}

/** Text already in canonical form for each currency: what formatAmount gives back unchanged. */
const CANONICAL_AMOUNT: Record<Currency, RegExp> = {
  USDT_TRC20: /^(0|[1-9]\d*)\.\d{6}$/,
  XOF: /^(0|[1-9]\d*)$/,
};

/** Canonical text of an amount: fixed to the currency's decimals (USDT 6, XOF 0). */
export function formatAmount(amount: Decimal.Value, currency: Currency): string {
  // Amounts formatted on the way in come back here (views, events): decimal.js would return them as they are.
  if (typeof amount === "string" && CANONICAL_AMOUNT[currency].test(amount)) return amount;
  return new Decimal(amount).toFixed(CURRENCY_DECIMALS[currency], Decimal.ROUND_DOWN);
}

/** Fees round up, in the platform's favour. */
export function roundFee(amount: Decimal.Value, currency: Currency): Decimal {
  return new Decimal(amount).toDecimalPlaces(CURRENCY_DECIMALS[currency], Decimal.ROUND_UP);
}
