// POST /v1/paylinks/simulate: what a customer would pay and the merchant receive on each rail for an
// amount in the paylink's display currency, at the live rate and with the merchant's own fees.
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { effectiveFees } from "../fees.ts";
import { convertAmount } from "../fx/rates.ts";
import { type Currency, Decimal, formatAmount, roundFee } from "../money.ts";
import { acceptedRails, checkPrices } from "./input.ts";

export type SimulateInput = {
  amount: string;
  methods?: string[];
  currency?: Currency;
  feeBearer?: "MERCHANT" | "CLIENT";
};

const NATIVE: Record<string, Currency> = { USDT_TRC20: "USDT_TRC20", CARD: "XOF", MOBILE_MONEY: "XOF" };

export async function simulatePaylink(
  deps: Pick<Deps, "rates" | "clock" | "config">,
  caller: Pick<Caller, "enabledRails" | "feeSchedule">,
  input: SimulateInput,
) {
  const currency = input.currency ?? "USDT_TRC20";
  const feeBearer = input.feeBearer ?? "MERCHANT";
  checkPrices([{ field: "amount", value: input.amount }], currency);
  const rails = acceptedRails(input.methods, caller.enabledRails);
  const fees = effectiveFees(caller.feeSchedule);
  const quotes = [];
  for (const method of rails) {
    const native = NATIVE[method];
    const converted = await convertAmount(deps, {
      from: currency,
      to: native,
      amount: input.amount,
      rounding: "up",
    });
    const base = new Decimal(converted.amount);
    const percent = method === "USDT_TRC20"
      ? fees.usdtServicePercent
      : method === "CARD"
      ? fees.cardPercent
      : fees.mobileMoneyPercent;
    const networkFee = method === "USDT_TRC20" ? new Decimal(fees.usdtNetworkFee) : new Decimal(0);
    const serviceFee = roundFee(base.times(percent).dividedBy(100), native);
    // The network fee is always the customer's (amountExpected = amount + networkFee); the service fee is
    // the merchant's unless feeBearer is CLIENT, when it is added to what the customer pays.
    const customerPays = base.plus(networkFee).plus(feeBearer === "CLIENT" ? serviceFee : 0);
    const merchantReceives = feeBearer === "CLIENT" ? base : base.minus(serviceFee);
    quotes.push({
      method,
      currency: native,
      amount: formatAmount(base, native),
      rate: converted.rate.rate,
      feePercent: percent,
      serviceFee: formatAmount(serviceFee, native),
      networkFee: formatAmount(networkFee, native),
      fee: formatAmount(serviceFee.plus(networkFee), native),
      customerPays: formatAmount(customerPays, native),
      merchantReceives: formatAmount(Decimal.max(merchantReceives, 0), native),
    });
  }
  return { amount: input.amount, currency, feeBearer, quotes };
}
