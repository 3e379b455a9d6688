// Per-merchant fee schedule: the defaults of ARCHITECTURE.md, overridable per merchant by an operator.
import { z } from "zod";
import { DECIMAL_STRING } from "./money.ts";

export const DEFAULT_FEES = {
  usdtNetworkFee: "1.50",
  usdtServicePercent: "1.5",
  cardPercent: "3.5",
  mobileMoneyPercent: "2",
  payoutFlat: "1.00",
  withdrawalFlat: "1.00",
  /** XOF withdrawals (mobile money or bank), whole francs, out of the amount (docs/decisions.md). */
  xofWithdrawalFlat: "500",
  conversionPercent: "1",
} as const;

export type FeeName = keyof typeof DEFAULT_FEES;
export type FeeSchedule = Record<FeeName, string>;

const decimal = z.string().regex(DECIMAL_STRING, "must be a decimal string");
export const FeeSchedulePatchSchema = z.strictObject(
  Object.fromEntries(Object.keys(DEFAULT_FEES).map((k) => [k, decimal.optional()])) as Record<
    FeeName,
    z.ZodOptional<typeof decimal>
  >,
);

export function effectiveFees(overrides: Partial<Record<string, string>> | null | undefined): FeeSchedule {
  const fees = { ...DEFAULT_FEES } as FeeSchedule;
  for (const name of Object.keys(DEFAULT_FEES) as FeeName[]) {
    const value = overrides?.[name];
    if (value !== undefined) fees[name] = value;
  }
  return fees;
}
