// The refusals an operation may answer that its request's shape cannot predict (balance, the state of a
// resource, the mode of the key, a limit, a provider), by operationId. The served document lists them
// under each response status and as `x-error-codes` (listStateCodes, called by api/system/docs.ts), beside the
// lists the money routes declare themselves (errorResponsesWith). Codes every operation may answer are not
// repeated: GENERIC_CODES, and KEYED_CODES on an operation that takes credentials.
import { ERROR_CATALOGUE, type ErrorCode } from "../../domain/errors.ts";

/** Any operation: a malformed request, an unknown or foreign id, a server fault. */
export const GENERIC_CODES: readonly ErrorCode[] = [
  "VALIDATION_ERROR",
  "BAD_REQUEST",
  "NOT_FOUND",
  "RATE_LIMIT_EXCEEDED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
];

/** Any operation with a `security` requirement: the credentials, their scope, their merchant's status. */
export const KEYED_CODES: readonly ErrorCode[] = [
  "UNAUTHORIZED",
  "INVALID_API_KEY",
  "FORBIDDEN",
  "MERCHANT_STATUS_INVALID",
  "ACCOUNT_CLOSED",
];

const MERCHANT_TAKES_PAYMENTS: ErrorCode[] = ["MERCHANT_STATUS_INVALID", "ACCOUNT_CLOSED"];
// The plan's limits on a new pay-in (domain/limits/plan.ts, takePayinLimits).
const PAYIN_LIMITS: ErrorCode[] = [
  "MERCHANT_LIMIT_EXCEEDED",
  "BALANCE_CAP_REACHED",
  "DAILY_CAP_EXCEEDED",
  "MONTHLY_LIMIT_EXCEEDED",
];
const RATES: ErrorCode[] = ["RATE_UNAVAILABLE", "RATE_STALE"];
const PROMO_REDEMPTION: ErrorCode[] = [
  "PROMO_CODE_INVALID",
  "PROMO_CODE_INACTIVE",
  "PROMO_CODE_EXPIRED",
  "PROMO_CODE_USAGE_LIMIT_REACHED",
];
const SUBSCRIPTION_MOVE: ErrorCode[] = ["INVALID_TRANSACTION_STATUS", "CONFLICT"];
const CALLBACK: ErrorCode[] = ["INVALID_WEBHOOK_SIGNATURE", "CONFLICT", "CONFIG_MISSING"];
const DISPUTE_OPEN: ErrorCode[] = ["INVALID_TRANSACTION_STATUS", "INVALID_STATE", "INVALID_AMOUNT"];
// The acquirer's outcome: already applied (CONFLICT), or the dispute was closed by someone else.
const DISPUTE_OUTCOME: ErrorCode[] = ["INVALID_TRANSACTION_STATUS", "CONFLICT"];

export const STATE_CODES: Record<string, readonly ErrorCode[]> = {
  // Operators: signing in (public, so its wrong credentials are its own refusal), their accounts.
  adminSignIn: ["UNAUTHORIZED", "TOTP_REQUIRED", "TOTP_INVALID", "BACKUP_CODE_INVALID"],
  adminCreateOperator: ["DUPLICATE_RESOURCE"],
  // Wallets, whitelist, fiat destinations.
  bulkAddWhitelistAddresses: ["INVALID_CONTEXT", "INVALID_ADDRESS", "WHITELIST_VALIDATION_FAILED"],
  replaceWhitelistContexts: ["INVALID_CONTEXT"],
  listWhitelist: ["INVALID_CONTEXT"],
  registerFiatDestination: [
    "MISSING_MOBILE_MONEY_FIELDS",
    "MISSING_BANK_FIELDS",
    "FIAT_DESTINATION_INVALID",
    "OPERATOR_NOT_SUPPORTED",
  ],
  updateFiatDestination: [
    "FIAT_DESTINATION_NOT_FOUND",
    "MISSING_MOBILE_MONEY_FIELDS",
    "MISSING_BANK_FIELDS",
    "FIAT_DESTINATION_INVALID",
    "OPERATOR_NOT_SUPPORTED",
  ],
  deleteFiatDestination: ["FIAT_DESTINATION_NOT_FOUND"],
  // Payouts and withdrawals (beyond what the creation routes list themselves).
  createWithdrawal: ["FIAT_DESTINATION_NOT_FOUND", "ADDRESS_NOT_FOUND", "CONFIG_MISSING"],
  cancelWithdrawal: ["CANNOT_CANCEL", "INVALID_TRANSACTION_STATUS"],
  // Pay-ins.
  createPayment: ["CONFIG_MISSING"],
  createCardPayment: ["CONFIG_MISSING"],
  submitPaymentOtp: ["OTP_NOT_APPLICABLE", "OTP_INVALID", "OTP_EXPIRED", "RATE_LIMITED", "CONFIG_MISSING"],
  submitPayinOtpLegacy: [
    "OTP_NOT_APPLICABLE",
    "OTP_INVALID",
    "OTP_EXPIRED",
    "RATE_LIMITED",
    "CONFIG_MISSING",
  ],
  simulateSandboxPayment: ["INVALID_STATE", "INVALID_TRANSACTION_STATUS"],
  simulatorProviderCallback: CALLBACK,
  providerCallback: CALLBACK,
  simulatorDisbursementCallback: CALLBACK,
  disbursementCallback: CALLBACK,
  providerCallbackPing: [],
  disbursementCallbackPing: [],
  // Paylinks (merchant side).
  simulatePaylink: ["NO_METHODS_ENABLED", ...RATES],
  createPaylink: [
    "PAYLINK_EMPTY",
    "NO_METHODS_ENABLED",
    "DUPLICATE_RESOURCE",
    "LIMIT_EXCEEDED_PAYLINKS",
    "KYB_REQUIRED",
    "SANDBOX_KEY_LIVE_REQUEST",
    "LIVE_KEY_SANDBOX_REQUEST",
  ],
  updatePaylink: ["CANNOT_CHANGE_CURRENCY_AFTER_PRODUCTS", "CONFLICT", "INVALID_STATE", "NO_METHODS_ENABLED"],
  addPaylinkProduct: ["CONFLICT"],
  updatePaylinkProduct: ["CONFLICT"],
  removePaylinkProduct: ["PAYLINK_EMPTY"],
  createPromoCode: ["CONFLICT", "DUPLICATE_RESOURCE"],
  updatePromoCode: ["CONFLICT"],
  importPaylinkProductsCsv: ["IMPORT_VALIDATION_FAILED"],
  // Paylinks (public side).
  checkoutPaylink: [
    "PAYMENT_METHOD_NOT_ACCEPTED",
    "NO_METHODS_ENABLED",
    "INVALID_STATE",
    "CONFLICT",
    ...PROMO_REDEMPTION,
    "RATE_LOCK_NOT_FOUND",
    "RATE_LOCK_EXPIRED",
    "RATE_LOCK_ALREADY_USED",
    "AMOUNT_TOO_SMALL",
    "AMOUNT_TOO_LARGE",
    "AMOUNT_TOO_LOW",
    "AMOUNT_BELOW_MINIMUM",
    "CUSTOMER_PHONE_REQUIRED",
    "OPERATOR_NOT_SUPPORTED",
    "KYB_REQUIRED",
    ...MERCHANT_TAKES_PAYMENTS,
    ...PAYIN_LIMITS,
    ...RATES,
    "CONFIG_MISSING",
  ],
  applyPaylinkPromo: [...PROMO_REDEMPTION, ...MERCHANT_TAKES_PAYMENTS],
  lockPaylinkRate: [
    "PAYMENT_METHOD_NOT_ACCEPTED",
    "NO_METHODS_ENABLED",
    ...MERCHANT_TAKES_PAYMENTS,
    ...RATES,
  ],
  // Conversions.
  previewConversion: [
    "INVALID_AMOUNT",
    "INVALID_CONVERSION_PAIR",
    "CONVERSION_NOT_ALLOWED",
    "NEGATIVE_REVENUE",
    ...RATES,
  ],
  createConversion: RATES,
  // Bulk payments.
  addBulkPaymentItems: [
    "INVALID_TRANSACTION_STATUS",
    "LIMIT_EXCEEDED_BULK_BATCH",
    "IMPORT_VALIDATION_FAILED",
    "AML_BLOCKED",
    "AML_SCREENING_UNAVAILABLE",
  ],
  importBulkPaymentItems: [
    "INVALID_TRANSACTION_STATUS",
    "LIMIT_EXCEEDED_BULK_BATCH",
    "IMPORT_VALIDATION_FAILED",
    "AML_BLOCKED",
    "AML_SCREENING_UNAVAILABLE",
  ],
  validateBulkPayment: [
    "BAD_REQUEST",
    "INVALID_TRANSACTION_STATUS",
    "INSUFFICIENT_BALANCE",
    "AMOUNT_TOO_LARGE",
    "MERCHANT_LIMIT_EXCEEDED",
    "WALLET_NOT_FOUND",
  ],
  executeBulkPayment: [
    "INVALID_TRANSACTION_STATUS",
    "AMOUNT_TOO_LARGE",
    "MERCHANT_LIMIT_EXCEEDED",
    "DAILY_CAP_EXCEEDED",
    "MONTHLY_LIMIT_EXCEEDED",
    "ADDRESS_NOT_WHITELISTED",
    "CONFLICT",
  ],
  retryBulkPayment: [
    "INVALID_TRANSACTION_STATUS",
    "AMOUNT_TOO_LARGE",
    "MERCHANT_LIMIT_EXCEEDED",
    "ADDRESS_NOT_WHITELISTED",
    "CONFLICT",
  ],
  cancelBulkPayment: ["CANNOT_CANCEL", "INVALID_TRANSACTION_STATUS", "CONFLICT"],
  // Webhooks.
  createWebhookEndpoint: ["LIMIT_EXCEEDED_WEBHOOKS"],
  sendTestWebhook: ["INVALID_STATE"],
  retryWebhookDelivery: ["INVALID_STATE"],
  // Merchant.
  getMerchantProfile: ["MERCHANT_NOT_FOUND"],
  updateMerchantProfile: ["MERCHANT_NOT_FOUND"],
  // Subscriptions.
  updateSubscription: SUBSCRIPTION_MOVE,
  pauseSubscription: SUBSCRIPTION_MOVE,
  resumeSubscription: SUBSCRIPTION_MOVE,
  cancelSubscription: SUBSCRIPTION_MOVE,
  // Operator.
  adminGetMerchant: ["MERCHANT_NOT_FOUND"],
  adminGetMerchantOverview: ["MERCHANT_NOT_FOUND"],
  adminUpdateMerchant: ["MERCHANT_NOT_FOUND"],
  adminSetKybStatus: ["MERCHANT_NOT_FOUND"],
  adminIssueKey: ["MERCHANT_NOT_FOUND"],
  adminGetPaylinkLimit: ["MERCHANT_NOT_FOUND"],
  adminSetPaylinkLimit: ["MERCHANT_NOT_FOUND"],
  adminApproveOutbound: [
    "INVALID_TRANSACTION_STATUS",
    "WITHDRAWAL_NOT_PENDING_REVIEW",
    "WITHDRAWAL_APPROVE_NOT_SUPPORTED_FOR_FIAT",
  ],
  adminRejectOutbound: [
    "INVALID_TRANSACTION_STATUS",
    "WITHDRAWAL_NOT_PENDING_REVIEW",
    "REASON_NOTE_REQUIRED",
  ],
  adminCancelUnsentOutbound: ["CANNOT_CANCEL", "INVALID_TRANSACTION_STATUS", "REASON_NOTE_REQUIRED"],
  adminCompleteFiatWithdrawal: [
    "WITHDRAWAL_NOT_FIAT",
    "WITHDRAWAL_NOT_PENDING_REVIEW",
    "INVALID_TRANSACTION_STATUS",
    "INVALID_AMOUNT",
  ],
  adminApproveBulkPayment: ["INVALID_TRANSACTION_STATUS", "CONFLICT"],
  adminRejectBulkPayment: ["INVALID_TRANSACTION_STATUS", "CONFLICT", "REASON_NOTE_REQUIRED"],
  adminReviewPayinHold: ["INVALID_STATE"],
  // Live aggregators (issue 26): an operator settles a status the gateway did not know.
  adminResolveHeldProviderStatus: ["INVALID_STATE", "REASON_NOTE_REQUIRED"],
  // Refunds (issue 23): the pay-in's state, rail, window and what is left; the operator's decisions.
  createRefund: [
    "INVALID_AMOUNT",
    "INVALID_TRANSACTION_STATUS",
    "REFUND_WINDOW_EXPIRED",
    "REFUND_EXCEEDS_AMOUNT",
    "REFUND_RAIL_NOT_AVAILABLE",
    "INSUFFICIENT_BALANCE",
    "CONFLICT",
  ],
  cancelRefund: ["CANNOT_CANCEL"],
  adminApproveRefund: ["INVALID_TRANSACTION_STATUS", "REASON_NOTE_REQUIRED"],
  adminRejectRefund: ["INVALID_TRANSACTION_STATUS", "REASON_NOTE_REQUIRED"],
  adminGetRefundAutoApprove: ["MERCHANT_NOT_FOUND"],
  adminSetRefundAutoApprove: ["MERCHANT_NOT_FOUND"],
  simulatorCardRefundCallback: CALLBACK,
  cardRefundCallback: CALLBACK,
  // Disputes (issue 23): the table's refusals, the pay-in's state and amount, the deadline.
  simulatorChargebackCallback: ["INVALID_WEBHOOK_SIGNATURE", "CONFIG_MISSING", ...DISPUTE_OPEN],
  chargebackCallback: ["INVALID_WEBHOOK_SIGNATURE", "CONFIG_MISSING", ...DISPUTE_OPEN],
  simulatorDisputeOutcomeCallback: ["INVALID_WEBHOOK_SIGNATURE", "CONFIG_MISSING", ...DISPUTE_OUTCOME],
  disputeOutcomeCallback: ["INVALID_WEBHOOK_SIGNATURE", "CONFIG_MISSING", ...DISPUTE_OUTCOME],
  submitDisputeEvidence: ["INVALID_TRANSACTION_STATUS"],
  acceptDispute: ["INVALID_TRANSACTION_STATUS"],
  adminOpenDispute: [...DISPUTE_OPEN, "REASON_NOTE_REQUIRED"],
  adminResolveDispute: ["INVALID_TRANSACTION_STATUS", "REASON_NOTE_REQUIRED"],
  adminRejectDispute: ["INVALID_TRANSACTION_STATUS", "REASON_NOTE_REQUIRED"],
  adminEscalateDispute: ["INVALID_TRANSACTION_STATUS", "REASON_NOTE_REQUIRED"],
  // KYB and the merchant agreement (api/kyb/).
  saveMerchantKyb: ["INVALID_STATE"],
  uploadMerchantKybDocument: ["INVALID_STATE"],
  submitMerchantKyb: ["INVALID_STATE"],
  replyMerchantKybThread: ["INVALID_STATE"],
  signMerchantAgreement: ["CONFLICT", "MERCHANT_NOT_FOUND"],
  getMerchantAgreement: ["MERCHANT_NOT_FOUND"],
  adminGetKybReview: ["MERCHANT_NOT_FOUND"],
  adminApproveKyb: ["INVALID_STATE", "MERCHANT_NOT_FOUND"],
  adminRejectKyb: ["INVALID_STATE", "MERCHANT_NOT_FOUND", "REASON_NOTE_REQUIRED"],
  adminOpenKybThread: ["MERCHANT_NOT_FOUND"],
  adminReplyKybThread: ["INVALID_STATE"],
  adminResolveKybThread: ["INVALID_STATE"],
  adminDismissKybThread: ["INVALID_STATE"],
  adminPublishAgreement: ["CONFLICT"],
  adminGetPlanLimits: ["MERCHANT_NOT_FOUND"],
  adminSetPlanLimits: ["MERCHANT_NOT_FOUND"],
};

type Operation = {
  operationId?: string;
  security?: unknown[];
  responses?: Record<string, { description?: string; content?: unknown }>;
  "x-error-codes"?: string[];
};

const LISTED = /\. Codes: ([A-Z0-9_, ]+)$/;

/** The codes a response description lists (errorResponsesWith's ". Codes: A, B" suffix). */
export function codesListedIn(description: string | undefined): string[] {
  return LISTED.exec(description ?? "")?.[1].split(", ") ?? [];
}

/**
 * Adds STATE_CODES to the document: each code under its status (a response entry is added where the
 * operation had none, sharing the error envelope's schema) and every operation's listed codes, its own
 * and the table's, as `x-error-codes`.
 */
export function listStateCodes(
  paths: Record<string, Record<string, Operation>>,
  errorContent: unknown,
): void {
  for (const operation of Object.values(paths).flatMap((item) => Object.values(item))) {
    const responses = operation.responses ?? {};
    const byStatus = new Map<string, Set<string>>();
    for (const [status, response] of Object.entries(responses)) {
      const listed = codesListedIn(response.description);
      if (listed.length > 0) byStatus.set(status, new Set(listed));
    }
    for (const code of STATE_CODES[operation.operationId ?? ""] ?? []) {
      const status = String(ERROR_CATALOGUE[code][0]);
      byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
    }
    for (const [status, codes] of byStatus) {
      const entry = responses[status] ?? { description: "Refused", content: errorContent };
      const base = (entry.description ?? "").replace(LISTED, "");
      responses[status] = { ...entry, description: `${base}. Codes: ${[...codes].join(", ")}` };
    }
    const all = [...byStatus.values()].flatMap((codes) => [...codes]);
    if (all.length > 0) {
      operation.responses = responses;
      operation["x-error-codes"] = [...new Set(all)].sort();
    }
  }
}
