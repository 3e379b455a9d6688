// What merchants see of a pay-in: the creation response, the record, and webhook payloads, with the
// specification's field names.
import type { Config } from "../../config.ts";
import type { PayinRow } from "../../db/payins.ts";
import { Decimal, formatAmount } from "../money.ts";

export function paymentUrl(config: Pick<Config, "publicUrl">, payinId: string): string {
  return `${config.publicUrl}/checkout/${payinId}`;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Exactly the specification's creation response fields (USDT rail). */
export function usdtCreationView(config: Pick<Config, "publicUrl">, p: PayinRow, qrPng: string) {
  return {
    transactionId: p.id,
    address: p.address!,
    paymentUrl: paymentUrl(config, p.id),
    qrCodeUrl: qrPng,
    amount: formatAmount(p.amount, p.currency),
    amountExpected: formatAmount(p.amount_expected, p.currency),
    networkFee: formatAmount(p.network_fee, p.currency),
    currency: p.currency,
    chain: p.chain!,
    status: p.status,
    expiresAt: p.expires_at.toISOString(),
  };
}

/** The record of GET /v1/payments/:id: the specification's fields, then a few a merchant needs to reconcile. */
export function payinRecordView(config: Pick<Config, "publicUrl">, p: PayinRow) {
  return {
    id: p.id,
    address: p.address,
    amount: formatAmount(p.amount, p.currency),
    amountReceived: formatAmount(p.amount_received, p.currency),
    serviceFee: formatAmount(p.service_fee, p.currency),
    status: p.status,
    txHash: p.tx_hash,
    externalRef: p.external_ref,
    currency: p.currency,
    chain: p.chain,
    paymentUrl: paymentUrl(config, p.id),
    isSandbox: p.is_sandbox,
    createdAt: p.created_at.toISOString(),
    updatedAt: p.updated_at.toISOString(),
    paymentMethod: p.payment_method,
    amountExpected: formatAmount(p.amount_expected, p.currency),
    networkFee: formatAmount(p.network_fee, p.currency),
    netAmount: formatAmount(p.net_amount, p.currency),
    expiresAt: p.expires_at.toISOString(),
    confirmedAt: iso(p.confirmed_at),
    failureReason: p.failure_reason,
    metadata: p.metadata,
  };
}

type PayinEvent =
  | "payin.created"
  | "payin.confirming"
  | "payin.confirmed"
  | "payin.expired"
  | "payin.failed"
  | "payin.underpaid"
  | "payin.overpaid";

/** Payload fields per the specification's Part 2 table; `metadata` is echoed on every pay-in event. */
export function payinEventData(config: Pick<Config, "publicUrl">, p: PayinRow, event: PayinEvent) {
  const money = (v: string) => formatAmount(v, p.currency);
  const base = {
    transactionId: p.id,
    address: p.address,
    amount: money(p.amount),
    currency: p.currency,
    chain: p.chain,
    externalRef: p.external_ref,
  };
  const settled = {
    amountReceived: money(p.amount_received),
    txHash: p.tx_hash,
    confirmedAt: iso(p.confirmed_at),
  };
  switch (event) {
    case "payin.created":
      return {
        ...base,
        status: p.status,
        expiresAt: p.expires_at.toISOString(),
        paymentUrl: paymentUrl(config, p.id),
        metadata: p.metadata,
      };
    case "payin.confirming":
      return {
        ...base,
        amountReceived: money(p.amount_received),
        txHash: p.tx_hash,
        status: p.status,
        metadata: p.metadata,
      };
    case "payin.confirmed":
      return { ...base, ...settled, status: p.status, metadata: p.metadata };
    case "payin.expired":
      return { ...base, status: p.status, expiredAt: p.updated_at.toISOString(), metadata: p.metadata };
    case "payin.failed":
      return { ...base, status: p.status, reason: p.failure_reason, metadata: p.metadata };
    case "payin.underpaid": {
      const shortfall = money(new Decimal(p.amount_expected).minus(p.amount_received).toFixed());
      return {
        ...base,
        amountReceived: settled.amountReceived,
        shortfall,
        txHash: p.tx_hash,
        status: p.status,
        confirmedAt: settled.confirmedAt,
        metadata: p.metadata,
      };
    }
    case "payin.overpaid": {
      const surplus = money(new Decimal(p.amount_received).minus(p.amount_expected).toFixed());
      return {
        ...base,
        amountReceived: settled.amountReceived,
        surplus,
        txHash: p.tx_hash,
        status: p.status,
        confirmedAt: settled.confirmedAt,
        metadata: p.metadata,
      };
    }
  }
}
