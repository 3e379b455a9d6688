// Wallet reads: one wallet per (currency, rail); balances are the ledger's cached sums.
import { listWallets } from "../db/ledger.ts";
import type { Deps } from "./deps.ts";
import { type Currency, Decimal, formatAmount, type Rail } from "./money.ts";

export type Wallet = { id: string; currency: Currency; rail: Rail; balance: string; updatedAt: Date };

export async function listMerchantWallets(
  deps: Pick<Deps, "db">,
  input: { merchantId: string; isSandbox: boolean },
): Promise<Wallet[]> {
  const rows = await listWallets(deps.db, input.merchantId, input.isSandbox);
  return rows.map((r) => ({
    id: r.id,
    currency: r.currency as Currency,
    rail: r.rail as Rail,
    balance: formatAmount(r.balance, r.currency as Currency),
    updatedAt: r.updated_at,
  }));
}

export async function getBalanceByCurrency(
  deps: Pick<Deps, "db">,
  input: { merchantId: string; isSandbox: boolean; currency: Currency },
) {
  const wallets = (await listMerchantWallets(deps, input)).filter((w) => w.currency === input.currency);
  const total = wallets.reduce((sum, w) => sum.plus(w.balance), new Decimal(0));
  return {
    currency: input.currency,
    total: formatAmount(total, input.currency),
    wallets: wallets.map((w) => ({ id: w.id, rail: w.rail, balance: w.balance })),
  };
}

export async function getBalanceSummary(
  deps: Pick<Deps, "db">,
  input: { merchantId: string; isSandbox: boolean },
) {
  const wallets = await listMerchantWallets(deps, input);
  const totals: Record<string, string> = {};
  for (const currency of ["USDT_TRC20", "XOF"] as const) {
    const sum = wallets.filter((w) => w.currency === currency).reduce(
      (s, w) => s.plus(w.balance),
      new Decimal(0),
    );
    totals[currency] = formatAmount(sum, currency);
  }
  return {
    isSandbox: input.isSandbox,
    balances: wallets.map((w) => ({
      walletId: w.id,
      currency: w.currency,
      rail: w.rail,
      balance: w.balance,
    })),
    totals,
  };
}
