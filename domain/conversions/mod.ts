// Wallet-to-wallet conversions between a merchant's wallets of different currencies (USDT_TRC20/TRC20,
// XOF/MOMO, XOF/CARD), at the live rate (domain/fx/rates.ts) less the conversion fee of the merchant's
// fee schedule (1 % by default). Amounts: the gross is `fromAmount * rate` rounded DOWN to the target's
// decimals, the fee is `gross * percent / 100` rounded UP, the merchant receives `gross - fee`; nothing
// left (`toAmountNet <= 0`) is NEGATIVE_REVENUE. Both legs are ONE journal, booked with the conversion
// row and its `conversion.confirmed` event in one transaction: it all happens or none of it does.
import { findSystemAccount } from "../../db/ledger.ts";
import {
  type ConversionRow,
  findOwnWallet,
  insertConversion,
  listConversions,
} from "../../db/conversions.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError, AWAITING_SOLIDIFICATION } from "../errors.ts";
import { emitEvent } from "../webhooks/events.ts";
import { effectiveFees } from "../fees.ts";
import { currentRate, roundAmount } from "../fx/rates.ts";
import { isWellFormedId, newId } from "../ids.ts";
import { postJournal } from "../ledger.ts";
import { type Currency, CURRENCY_DECIMALS, Decimal, DECIMAL_STRING, formatAmount } from "../money.ts";
import { unspendableUsdt } from "../money_out/request.ts";
import { conversionEventData } from "./view.ts";
import { assertLiveAllowed } from "../merchants/live_gate.ts";
import { consumePlanLimits } from "../limits/plan.ts";

export { conversionView } from "./view.ts";

type ConvDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "rates" | "log">;
type Scope = { merchantId: string; isSandbox: boolean };

/** Currencies a merchant holds wallets in; `USDT` is accepted as another name of `USDT_TRC20`. */
const WALLET_CURRENCIES: readonly Currency[] = ["USDT_TRC20", "XOF"];

/** Priced by the rate source but never held in a wallet: converting to or from them is not allowed. */
const KNOWN_OTHER_CURRENCIES = ["EUR", "USD"];

export type Quote = {
  fromCurrency: Currency;
  toCurrency: Currency;
  fromAmount: string;
  rate: string;
  rateAsOf: Date;
  rateSource: string;
  toAmountGross: string;
  feePercent: string;
  fee: string;
  toAmountNet: string;
};

function normalizeCurrency(code: string, field: string): Currency {
  const upper = code.toUpperCase();
  if (upper === "USDT") return "USDT_TRC20";
  if ((WALLET_CURRENCIES as readonly string[]).includes(upper)) return upper as Currency;
  if (KNOWN_OTHER_CURRENCIES.includes(upper)) {
    throw new AppError(
      "CONVERSION_NOT_ALLOWED",
      `Conversions are between wallet currencies (USDT_TRC20, XOF), not ${upper}`,
      {
        details: [{ field, reason: "not a wallet currency" }],
      },
    );
  }
  throw new AppError("INVALID_CONVERSION_PAIR", `Unsupported currency ${JSON.stringify(code.slice(0, 20))}`, {
    details: [{ field, reason: "supported: USDT_TRC20, XOF" }],
  });
}

function checkedPair(from: Currency, to: Currency): void {
  if (from === to) {
    throw new AppError(
      "INVALID_CONVERSION_PAIR",
      `Both sides are ${from}: a conversion needs two currencies`,
    );
  }
}

function parseFromAmount(amount: string, currency: Currency, field: string): Decimal {
  const decimals = CURRENCY_DECIMALS[currency];
  const fraction = amount.split(".")[1] ?? "";
  if (!DECIMAL_STRING.test(amount) || fraction.length > decimals) {
    throw new AppError(
      "INVALID_AMOUNT",
      `${field} must be a decimal string with at most ${decimals} decimals in ${currency}`,
      { details: [{ field, reason: `decimal string, at most ${decimals} decimals` }] },
    );
  }
  const value = new Decimal(amount);
  if (value.lte(0)) {
    throw new AppError("INVALID_AMOUNT", `${field} must be greater than zero`, {
      details: [{ field, reason: "greater than zero" }],
    });
  }
  return value;
}

/** Prices a conversion at the live rate: the figures both the preview and the conversion use. */
async function quote(
  deps: Pick<Deps, "rates" | "clock" | "config">,
  caller: Pick<Caller, "feeSchedule">,
  from: Currency,
  to: Currency,
  amount: Decimal,
): Promise<Quote> {
  const rate = await currentRate(deps, from, to);
  const gross = roundAmount(amount.times(rate.rate), to, "down");
  const feePercent = new Decimal(effectiveFees(caller.feeSchedule).conversionPercent);
  const fee = roundAmount(gross.times(feePercent).div(100), to, "up");
  const net = gross.minus(fee);
  if (net.lte(0)) {
    throw new AppError(
      "NEGATIVE_REVENUE",
      `${formatAmount(amount, from)} ${from} converts to ${
        formatAmount(gross, to)
      } ${to} before the ${feePercent}% fee: nothing would be left`,
    );
  }
  return {
    fromCurrency: from,
    toCurrency: to,
    fromAmount: formatAmount(amount, from),
    rate: rate.rate,
    rateAsOf: rate.asOf,
    rateSource: rate.source,
    toAmountGross: formatAmount(gross, to),
    feePercent: feePercent.toFixed(),
    fee: formatAmount(fee, to),
    toAmountNet: formatAmount(net, to),
  };
}

/** GET /v1/conversions/wallet/preview: what `amount` of `fromCurrency` would give; nothing is kept. */
export async function previewConversion(
  deps: Pick<Deps, "rates" | "clock" | "config">,
  caller: Pick<Caller, "feeSchedule">,
  input: { fromCurrency: string; toCurrency: string; amount: string },
): Promise<Quote> {
  const from = normalizeCurrency(input.fromCurrency, "fromCurrency");
  const to = normalizeCurrency(input.toCurrency, "toCurrency");
  checkedPair(from, to);
  return await quote(deps, caller, from, to, parseFromAmount(input.amount, from, "amount"));
}

/**
 * POST /v1/conversions/wallet. Pass the idempotency transaction as `deps.db`. The from-wallet's row is
 * locked by the journal, so concurrent conversions of one balance serialize and none can overdraw it;
 * USDT that is credited but not yet solidified cannot be converted (INSUFFICIENT_BALANCE).
 */
export async function convertBetweenWallets(
  deps: ConvDeps,
  caller: Caller,
  input: { fromWalletId: string; toWalletId: string; fromAmount: string },
): Promise<ConversionRow> {
  assertLiveAllowed(caller, deps.clock.now());
  const scope: Scope = { merchantId: caller.merchantId, isSandbox: caller.isSandbox };
  // A malformed id (NUL bytes, 10 KB, another prefix) is an unknown wallet without a query.
  const fromWallet = isWellFormedId("wal", input.fromWalletId)
    ? await findOwnWallet(deps.db, scope, input.fromWalletId)
    : undefined;
  if (!fromWallet) throw walletNotFound("fromWalletId");
  const toWallet = isWellFormedId("wal", input.toWalletId)
    ? await findOwnWallet(deps.db, scope, input.toWalletId)
    : undefined;
  if (!toWallet) throw walletNotFound("toWalletId");
  const from = fromWallet.currency as Currency;
  const to = toWallet.currency as Currency;
  checkedPair(from, to);
  const amount = parseFromAmount(input.fromAmount, from, "fromAmount");
  const q = await quote(deps, caller, from, to, amount);
  const now = deps.clock.now();
  const id = newId("cnv", now.getTime());
  const fxFrom = await findSystemAccount(deps.db, "FX", scope.isSandbox, fromWallet.rail);
  const fxTo = await findSystemAccount(deps.db, "FX", scope.isSandbox, toWallet.rail);
  const fees = await findSystemAccount(deps.db, "FEES", scope.isSandbox, toWallet.rail);
  const postings = [
    { accountId: fromWallet.id, amount: new Decimal(q.fromAmount).negated() },
    { accountId: fxFrom.id, amount: q.fromAmount },
    { accountId: fxTo.id, amount: new Decimal(q.toAmountGross).negated() },
    { accountId: toWallet.id, amount: q.toAmountNet },
  ];
  if (new Decimal(q.fee).gt(0)) postings.push({ accountId: fees.id, amount: q.fee });
  let row: ConversionRow | undefined;
  await postJournal(deps.db, {
    reference: `conversion:${id}`,
    kind: "CONVERSION",
    merchantId: scope.merchantId,
    isSandbox: scope.isSandbox,
    postings,
    metadata: {
      conversionId: id,
      rate: q.rate,
      rateAsOf: q.rateAsOf.toISOString(),
      rateSource: q.rateSource,
    },
  }, async (tx, journalId) => {
    // The from-wallet is locked by the posting: USDT left must still cover the unsolidified credits.
    if (from === "USDT_TRC20") {
      const left = await findOwnWallet(tx, scope, fromWallet.id);
      if (new Decimal(left!.balance).lessThan(await unspendableUsdt(tx, scope))) {
        throw new AppError(
          "INSUFFICIENT_BALANCE",
          "Part of the USDT balance is not spendable yet (awaiting solidification)",
          { reason: AWAITING_SOLIDIFICATION },
        );
      }
    }
    // The plan's daily count, taken with the conversion (undone with it if anything below refuses).
    // Volume in USDT: the USDT side of the pair (checkedPair allows only USDT <-> XOF).
    const usdtSide = from === "USDT_TRC20" ? amount : new Decimal(q.toAmountGross);
    await consumePlanLimits({ ...deps, db: tx }, scope, ["conversionsDailyCount"], 1);
    await consumePlanLimits({ ...deps, db: tx }, scope, ["conversionsDailyVolumeUsdt"], usdtSide);
    row = await insertConversion(tx, {
      id,
      merchant_id: scope.merchantId,
      is_sandbox: scope.isSandbox,
      status: "CONFIRMED",
      from_wallet_id: fromWallet.id,
      to_wallet_id: toWallet.id,
      from_currency: from,
      from_rail: fromWallet.rail,
      to_currency: to,
      to_rail: toWallet.rail,
      from_amount: q.fromAmount,
      rate: q.rate,
      rate_as_of: q.rateAsOf,
      rate_source: q.rateSource,
      to_amount_gross: q.toAmountGross,
      fee_percent: q.feePercent,
      fee: q.fee,
      to_amount_net: q.toAmountNet,
      journal_id: journalId,
      now,
    });
    await emitEvent({ ...deps, db: tx }, {
      merchantId: scope.merchantId,
      isSandbox: scope.isSandbox,
      type: "conversion.confirmed",
      data: conversionEventData(row),
    });
  });
  if (!row) throw new Error(`conversion ${id}: journal reference already booked`);
  deps.log.info("money state change", {
    kind: "CONVERSION",
    id,
    merchantId: scope.merchantId,
    mode: scope.isSandbox ? "sandbox" : "live",
    to: "CONFIRMED",
    amount: q.fromAmount,
  });
  return row;
}

function walletNotFound(field: string): AppError {
  return new AppError("WALLET_NOT_FOUND", `${field} names none of this merchant's wallets in this mode`, {
    details: [{ field, reason: "unknown wallet" }],
  });
}

export async function listConversionsOf(
  deps: Pick<Deps, "db">,
  caller: Scope,
  q: { page: number; limit: number },
): Promise<{ rows: ConversionRow[]; total: number }> {
  return await listConversions(deps.db, caller, { limit: q.limit, offset: (q.page - 1) * q.limit });
}

/** A preview as the API shows it. */
export function quoteView(q: Quote) {
  return { ...q, rateAsOf: q.rateAsOf.toISOString() };
}
