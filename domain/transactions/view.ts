// How one history row reads in the API and in the CSV export: every field present (null when it does not
// apply to the row's type), amounts as exact decimal strings in their currency's precision.
import type { TransactionRow } from "../../db/transactions.ts";
import { type Currency, CURRENCY_DECIMALS, Decimal } from "../money.ts";

/**
 * Exact: the currency's decimals (USDT 6, XOF 0) as every other answer shows them, more only if the
 * stored value has more (never rounded away).
 */
export function exactAmount(value: string, currency: string): string {
  const places = CURRENCY_DECIMALS[currency as Currency] ?? 0;
  // PostgreSQL's numeric text (the common case, and the export's hot loop): zeros added or dropped as text.
  const plain = PLAIN_DECIMAL.exec(value);
  if (plain) {
    let fraction = plain[2] ?? "";
    while (fraction.length > places && fraction.endsWith("0")) fraction = fraction.slice(0, -1);
    fraction = fraction.padEnd(places, "0");
    return fraction ? `${plain[1]}.${fraction}` : plain[1];
  }
  const d = new Decimal(value);
  return d.decimalPlaces() <= places ? d.toFixed(places) : d.toFixed();
}

const PLAIN_DECIMAL = /^(-?(?:0|[1-9]\d*))(?:\.(\d+))?$/;

const amountOrNull = (value: string | null, currency: string | null) =>
  value === null || currency === null ? null : exactAmount(value, currency);

export function transactionView(r: TransactionRow) {
  return {
    id: r.id,
    type: r.type,
    status: r.status,
    paymentMethod: r.payment_method,
    walletRail: r.wallet_rail,
    currency: r.currency,
    amount: exactAmount(r.amount, r.currency),
    amountReceived: amountOrNull(r.amount_received, r.currency),
    fee: exactAmount(r.fee, r.fee_currency),
    feeCurrency: r.fee_currency,
    netAmount: exactAmount(r.net_amount, r.currency),
    toCurrency: r.to_currency,
    toWalletRail: r.to_wallet_rail,
    toAmount: amountOrNull(r.to_amount, r.to_currency),
    externalRef: r.external_ref,
    customerName: r.customer_name,
    customerEmail: r.customer_email,
    customerPhone: r.customer_phone,
    recipientName: r.recipient_name,
    destination: r.destination,
    note: r.note,
    txHash: r.tx_hash,
    batchId: r.batch_id,
    failureReason: r.failure_reason,
    isSandbox: r.is_sandbox,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export type TransactionView = ReturnType<typeof transactionView>;
