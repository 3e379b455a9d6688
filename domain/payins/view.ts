// What merchants see of a pay-in: the creation response, the record, and webhook payloads, with the
// specification's field names.
import type { Config } from "../../config.ts";
import type { PayinRow } from "../../db/payins.ts";
import { Decimal, formatAmount } from "../money.ts";

export function paymentUrl(config: Pick<Config, "publicUrl">, payinId: string): string {
  return `${config.publicUrl}/checkout/${payinId}`;
}

/** Creation response of a card pay-in (the specification shows only hostedPaymentUrl and status). */
export function cardCreationView(p: PayinRow) {
  return {
    transactionId: p.id,
    paymentMethod: "CARD" as const,
    hostedPaymentUrl: p.hosted_payment_url!,
    amount: formatAmount(p.amount, p.currency),
    currency: p.currency,
    status: p.status,
    expiresAt: p.expires_at.toISOString(),
  };
}

/** Creation response of a mobile money pay-in: exactly the specification's fields. */
export function mobileMoneyCreationView(
  p: PayinRow,
  extra: { nextStep: "otp" | "approval"; operatorCode: string; instruction: { fr: string; en: string } },
) {
  return {
    transactionId: p.id,
    paymentMethod: "MOBILE_MONEY" as const,
    hostedPaymentUrl: p.hosted_payment_url!,
    nextStep: extra.nextStep,
    operatorCode: extra.operatorCode,
    instruction: extra.instruction,
    amount: formatAmount(p.amount, p.currency),
    currency: p.currency,
    status: p.status,
    expiresAt: p.expires_at.toISOString(),
  };
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
export function payinRecordView(
  config: Pick<Config, "publicUrl">,
  p: PayinRow,
  refunded: string = "0",
  disputed = false,
) {
  return {
    id: p.id,
    address: p.address,
    amount: formatAmount(p.amount, p.currency),
    amountReceived: formatAmount(p.amount_received, p.currency),
    serviceFee: formatAmount(p.service_fee, p.currency),
    // What completed refunds gave back to the customer (issue 23); in-flight refunds are not counted.
    refundedAmount: formatAmount(refunded, p.currency),
    // A dispute was opened on it (issue 23), whatever its outcome: GET /v1/disputes tells which.
    disputed,
    status: p.status,
    txHash: p.tx_hash,
    externalRef: p.external_ref,
    currency: p.currency,
    chain: p.chain,
    paymentUrl: p.hosted_payment_url ?? paymentUrl(config, p.id),
    isSandbox: p.is_sandbox,
    createdAt: p.created_at.toISOString(),
    updatedAt: p.updated_at.toISOString(),
    paymentMethod: p.payment_method,
    ...(p.payment_method === "USDT_TRC20" ? {} : {
      hostedPaymentUrl: p.hosted_payment_url,
      nextStep: p.next_step,
      operatorCode: p.operator_code,
    }),
    // A USDT pay-in carries its pricing only when converted from another currency (a paylink in XOF).
    ...(p.payment_method === "USDT_TRC20" && p.pricing_currency === null ? {} : {
      pricingCurrency: p.pricing_currency,
      pricingAmount: p.pricing_amount,
      fxRate: p.fx_rate === null ? null : new Decimal(p.fx_rate).toFixed(8),
    }),
    amountExpected: formatAmount(p.amount_expected, p.currency),
    networkFee: formatAmount(p.network_fee, p.currency),
    netAmount: formatAmount(p.net_amount, p.currency),
    expiresAt: p.expires_at.toISOString(),
    confirmedAt: iso(p.confirmed_at),
    failureReason: p.failure_reason,
    metadata: p.metadata,
  };
}

/**
 * What a publishable key (a browser checkout) may read of a pay-in: what the customer is shown and its
 * progress. Never the merchant's own data (`metadata`, `externalRef`, customer fields) nor its fees.
 */
export function publishablePayinView(record: ReturnType<typeof payinRecordView>) {
  const {
    metadata: _metadata,
    externalRef: _externalRef,
    serviceFee: _serviceFee,
    netAmount: _netAmount,
    refundedAmount: _refundedAmount,
    disputed: _disputed,
    ...visible
  } = record;
  return visible;
}

export type PayinEvent =
  | "payin.created"
  | "payin.confirming"
  | "payin.confirmed"
  | "payin.expired"
  | "payin.failed"
  | "payin.underpaid"
  | "payin.overpaid";

/** `payin.confirmed` on card and mobile money: the specification's fiat field list. */
function fiatConfirmedData(p: PayinRow) {
  const money = (v: string) => formatAmount(v, p.currency);
  return {
    transactionId: p.id,
    status: p.status,
    currency: p.currency,
    chain: p.chain,
    externalRef: p.external_ref,
    amount: money(p.amount_received),
    amountRequested: money(p.amount),
    txHash: p.tx_hash,
    confirmedAt: iso(p.confirmed_at),
    pricingCurrency: p.pricing_currency ?? p.currency,
    pricingAmount: p.pricing_amount ?? p.amount,
    fxRate: new Decimal(p.fx_rate ?? 1).toFixed(8),
    paymentMethod: p.payment_method,
    fee: money(p.service_fee),
    netAmount: money(p.net_amount),
    metadata: p.metadata,
  };
}

/** Payload fields per the specification's Part 2 table; `metadata` is echoed on every pay-in event. */
export function payinEventData(config: Pick<Config, "publicUrl">, p: PayinRow, event: PayinEvent) {
  if (event === "payin.confirmed" && p.payment_method !== "USDT_TRC20") return fiatConfirmedData(p);
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
