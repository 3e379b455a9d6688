// Wallet reads: one wallet per (currency, rail); balances are the ledger's cached sums. Beside the
// balance each wallet shows what of it is spendable now and what is not yet (pending), and what accepted
// money-out items have taken out of it that is not final yet (reserved):
//   balance   = the ledger's wallet balance (reservations already taken out)
//   pending   = credited but not spendable yet: USDT pay-in credits whose block is not solidified
//   available = balance - pending: what a payout, withdrawal or conversion may spend now
//   reserved  = inReview + inFlight: accepted payouts and withdrawals not final yet (not in balance)
//   heldForDisputes = what open disputes hold (not in balance); owedToDisputes = what they still take
//   from the next credits (domain/disputes/hold.ts)
//   reservedForRefunds = what refunds not final yet hold in IN_FLIGHT (not in balance, not in reserved)
import { refundReservedByRail, reservedByRail } from "../../db/balances.ts";
import { disputeFiguresByRail } from "../../db/disputes.ts";
import { listWallets } from "../../db/ledger.ts";
import type { Deps } from "../deps.ts";
import { type Currency, Decimal, formatAmount, type Rail } from "../money.ts";
import { unspendableUsdt } from "../money_out/request.ts";

export type Wallet = { id: string; currency: Currency; rail: Rail; balance: string; updatedAt: Date };

export type WalletFigures = {
  balance: string;
  available: string;
  pending: string;
  reserved: string;
  reservedInReview: string;
  reservedInFlight: string;
  heldForDisputes: string;
  owedToDisputes: string;
  reservedForRefunds: string;
};

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

/** Every wallet with its figures (see the file's head for what each means). */
export async function walletsWithFigures(
  deps: Pick<Deps, "db">,
  scope: { merchantId: string; isSandbox: boolean },
): Promise<Array<Wallet & WalletFigures>> {
  const [wallets, reserved, unsolidified, disputes, refunds] = await Promise.all([
    listMerchantWallets(deps, scope),
    reservedByRail(deps.db, scope),
    unspendableUsdt(deps.db, scope),
    disputeFiguresByRail(deps.db, scope),
    refundReservedByRail(deps.db, scope),
  ]);
  return wallets.map((w) => {
    const r = reserved.find((x) => x.rail === w.rail);
    const inReview = new Decimal(r?.in_review ?? 0);
    const inFlight = new Decimal(r?.in_flight ?? 0);
    const balance = new Decimal(w.balance);
    const pending = w.rail === "TRC20" ? Decimal.min(unsolidified, balance) : new Decimal(0);
    const f = (v: Decimal) => formatAmount(v, w.currency);
    const d = disputes.find((x) => x.rail === w.rail);
    return {
      ...w,
      available: f(balance.minus(pending)),
      pending: f(pending),
      reserved: f(inReview.plus(inFlight)),
      reservedInReview: f(inReview),
      reservedInFlight: f(inFlight),
      heldForDisputes: f(new Decimal(d?.held ?? 0)),
      owedToDisputes: f(new Decimal(d?.owed ?? 0)),
      reservedForRefunds: f(new Decimal(refunds.find((x) => x.rail === w.rail)?.reserved ?? 0)),
    };
  });
}

function sumOf(wallets: Array<WalletFigures>, field: keyof WalletFigures, currency: Currency): string {
  return formatAmount(wallets.reduce((s, w) => s.plus(w[field]), new Decimal(0)), currency);
}

export async function getBalanceByCurrency(
  deps: Pick<Deps, "db">,
  input: { merchantId: string; isSandbox: boolean; currency: Currency },
) {
  const wallets = (await walletsWithFigures(deps, input)).filter((w) => w.currency === input.currency);
  return {
    currency: input.currency,
    total: sumOf(wallets, "balance", input.currency),
    available: sumOf(wallets, "available", input.currency),
    pending: sumOf(wallets, "pending", input.currency),
    reserved: sumOf(wallets, "reserved", input.currency),
    wallets: wallets.map((w) => ({
      id: w.id,
      rail: w.rail,
      balance: w.balance,
      available: w.available,
      pending: w.pending,
      reserved: w.reserved,
      reservedInReview: w.reservedInReview,
      reservedInFlight: w.reservedInFlight,
      heldForDisputes: w.heldForDisputes,
      owedToDisputes: w.owedToDisputes,
      reservedForRefunds: w.reservedForRefunds,
    })),
  };
}

export async function getBalanceSummary(
  deps: Pick<Deps, "db">,
  input: { merchantId: string; isSandbox: boolean },
) {
  const wallets = await walletsWithFigures(deps, input);
  const totals: Record<string, string> = {};
  const availableTotals: Record<string, string> = {};
  for (const currency of ["USDT_TRC20", "XOF"] as const) {
    const mine = wallets.filter((w) => w.currency === currency);
    totals[currency] = sumOf(mine, "balance", currency);
    availableTotals[currency] = sumOf(mine, "available", currency);
  }
  return {
    isSandbox: input.isSandbox,
    balances: wallets.map((w) => ({
      walletId: w.id,
      currency: w.currency,
      rail: w.rail,
      balance: w.balance,
      available: w.available,
      pending: w.pending,
      reserved: w.reserved,
      reservedInReview: w.reservedInReview,
      reservedInFlight: w.reservedInFlight,
      heldForDisputes: w.heldForDisputes,
      owedToDisputes: w.owedToDisputes,
      reservedForRefunds: w.reservedForRefunds,
    })),
    totals,
    availableTotals,
  };
}
