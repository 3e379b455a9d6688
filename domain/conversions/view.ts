// How a conversion is shown: API answers, webhook payloads and test-delivery samples share this.
import type { ConversionRow } from "../../db/conversions.ts";
import { type Currency, Decimal, formatAmount } from "../money.ts";

/** A conversion as the API and its webhooks show it (the specification's fields first). */
export function conversionView(r: ConversionRow) {
  const from = r.from_currency as Currency;
  const to = r.to_currency as Currency;
  return {
    id: r.id,
    status: r.status,
    fromAmount: formatAmount(r.from_amount, from),
    fromCurrency: from,
    toAmountNet: formatAmount(r.to_amount_net, to),
    toCurrency: to,
    fromWalletId: r.from_wallet_id,
    fromRail: r.from_rail,
    toWalletId: r.to_wallet_id,
    toRail: r.to_rail,
    rate: new Decimal(r.rate).toFixed(),
    rateAsOf: r.rate_as_of.toISOString(),
    rateSource: r.rate_source,
    toAmountGross: formatAmount(r.to_amount_gross, to),
    feePercent: new Decimal(r.fee_percent).toFixed(),
    fee: formatAmount(r.fee, to),
    createdAt: r.created_at.toISOString(),
    confirmedAt: r.confirmed_at ? r.confirmed_at.toISOString() : null,
  };
}

export function conversionEventData(r: ConversionRow) {
  return conversionView(r);
}

/** A conversion as it stands when `type` is sent, for test deliveries (same view as the real events). */
export function sampleConversionRow(
  type: "conversion.confirmed" | "conversion.failed",
  now: Date,
): ConversionRow {
  const confirmed = type === "conversion.confirmed";
  return {
    id: "cnv_test_0001",
    merchant_id: "mch_test_0001",
    is_sandbox: false,
    status: confirmed ? "CONFIRMED" : "FAILED",
    from_wallet_id: "wal_test_usdt",
    to_wallet_id: "wal_test_xof_momo",
    from_currency: "USDT_TRC20",
    from_rail: "TRC20",
    to_currency: "XOF",
    to_rail: "MOMO",
    from_amount: "100",
    rate: "603.48044",
    rate_as_of: now,
    rate_source: "fixed+peg",
    to_amount_gross: "60348",
    fee_percent: "1",
    fee: "604",
    to_amount_net: "59744",
    journal_id: confirmed ? "jrn_test_0001" : null,
    failure_reason: confirmed ? null : "RATE_STALE",
    created_at: now,
    confirmed_at: confirmed ? now : null,
  };
}
