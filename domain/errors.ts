// The single error catalogue: every code of the specification's error table with its HTTP status and
// default message. Routes and domain functions throw `AppError`; one `onError` writes the envelope.

export const ERROR_CATALOGUE = {
  UNAUTHORIZED: [401, "key missing or invalid"],
  FORBIDDEN: [403, "key lacks the scope (INSUFFICIENT_SCOPE); use a secret key with the needed scope"],
  INVALID_API_KEY: [401, "key invalid or revoked"],
  INSUFFICIENT_SCOPE: [403, "key lacks permission"],
  TOTP_REQUIRED: [403, "two-factor code required"],
  TOTP_INVALID: [400, "two-factor code invalid or expired"],
  BACKUP_CODE_INVALID: [400, "backup code invalid"],
  EMAIL_UNVERIFIED: [403, "account e-mail not verified"],
  ACCOUNT_CLOSED: [403, "merchant account closed"],
  REGISTRATION_BLOCKED: [403, "registrations blocked"],
  SANDBOX_KEY_LIVE_REQUEST: [400, "sandbox key sent on a live creation request without the sandbox flag"],
  LIVE_KEY_SANDBOX_REQUEST: [400, "sandbox flag sent with a live key"],
  IP_ALLOWLIST_SELF_LOCKOUT: [400, "change would lock out caller's IP"],
  MERCHANT_NOT_FOUND: [404, "merchant not found"],
  MERCHANT_STATUS_INVALID: [403, "merchant state invalid for the action"],
  KYB_REQUIRED: [403, "business verification required"],
  RATE_LIMIT_EXCEEDED: [429, "too many requests; header `Retry-After` gives seconds to wait"],
  RATE_LIMITED: [429, "too many requests, including per-merchant resource quotas; `Retry-After` present"],
  MERCHANT_LIMIT_EXCEEDED: [403, "merchant transaction limit exceeded"],
  MONTHLY_LIMIT_EXCEEDED: [403, "monthly limit reached; resets on the first of the next month"],
  BALANCE_CAP_REACHED: [403, "wallet balance cap reached"],
  DAILY_CAP_EXCEEDED: [403, "daily transaction cap exceeded"],
  DAILY_CONVERSION_LIMIT: [403, "daily conversion volume limit"],
  DAILY_CONVERSION_COUNT_LIMIT: [403, "daily conversion count limit"],
  LIMIT_EXCEEDED_PAYLINKS: [403, "paylink count limit of the plan"],
  LIMIT_EXCEEDED_WEBHOOKS: [403, "webhook endpoint count limit"],
  LIMIT_EXCEEDED_API_KEYS: [403, "API key count limit"],
  LIMIT_EXCEEDED_TEAM_MEMBERS: [403, "team member count limit"],
  LIMIT_EXCEEDED_BULK_BATCH: [403, "item count limit of a bulk batch"],
  INVALID_ADDRESS: [400, "TRON address malformed (starts with T, 34 base58 characters)"],
  ADDRESS_IN_USE: [409, "address used by another transaction"],
  ADDRESS_NOT_FOUND: [404, "whitelistAddressId matches no saved address"],
  NO_WHITELISTED_ADDRESS: [400, "no whitelisted withdrawal address"],
  NO_PAYOUT_ADDRESS: [400, "no payout address configured"],
  ADDRESS_NOT_WHITELISTED: [403, "destination not on the whitelist"],
  ADDRESS_COOLDOWN: [403, "address in cooldown"],
  ADDRESS_REMOVAL_DISABLED: [410, "saved crypto recipients cannot be deleted"],
  WHITELIST_VALIDATION_FAILED: [400, "whitelist validation failed"],
  INVALID_CONTEXT: [400, "invalid usage context"],
  WALLET_NOT_FOUND: [404, "wallet not found"],
  WALLET_DIRECT_WITHDRAW_DISABLED: [403, "direct withdrawal from this wallet type disabled"],
  INSUFFICIENT_BALANCE: [
    400,
    "USDT balance too low for the payout or withdrawal; also raised by bulk validate on live batches",
  ],
  AMOUNT_TOO_SMALL: [400, "below the minimum for the operation"],
  AMOUNT_TOO_LARGE: [400, "above the maximum for the operation or compliance tier"],
  AMOUNT_TOO_LOW: [400, "example error in the envelope sample; message names the minimum pay-in amount"],
  AMOUNT_BELOW_MINIMUM: [400, "card amount below the card minimum; message carries the threshold"],
  INVALID_AMOUNT: [400, "amount not a valid number"],
  INVALID_TRANSACTION_TYPE: [400, "invalid transaction type"],
  INVALID_TRANSACTION_STATUS: [400, "operation not allowed in the current status"],
  REFUND_WINDOW_EXPIRED: [400, "refund window expired"],
  REFUND_EXCEEDS_AMOUNT: [400, "refund above original amount"],
  REASON_NOTE_REQUIRED: [400, "reason note required"],
  CANNOT_CANCEL: [400, "resource already approved, broadcast or completed"],
  DUPLICATE_EXTERNAL_REF: [409, "externalRef already used by the merchant"],
  MISSING_IDEMPOTENCY_KEY: [400, "Idempotency-Key header required"],
  IDEMPOTENCY_KEY_INVALID: [400, "Idempotency-Key malformed"],
  IDEMPOTENCY_KEY_MISMATCH: [409, "same key, different parameters"],
  CONFIG_MISSING: [500, "system configuration missing"],
  AML_BLOCKED: [403, "transaction flagged by AML screening"],
  AML_SCREENING_UNAVAILABLE: [503, "screening temporarily unavailable"],
  // HTTP status not shown in the specification: 503, like the other "upstream degraded" codes.
  COMPLIANCE_HOLD: [503, "compliance check degraded; the transaction is held"],
  COMPLIANCE_LIMIT_REACHED: [403, "monthly volume reached the tier's compliance limit"],
  CONVERSION_NOT_ALLOWED: [403, "conversion between these currencies not permitted"],
  RATE_LOCK_EXPIRED: [400, "rate lock expired"],
  RATE_LOCK_NOT_FOUND: [404, "rate lock not found"],
  RATE_LOCK_ALREADY_USED: [409, "rate lock already used"],
  RATE_UNAVAILABLE: [503, "exchange rate unavailable"],
  RATE_STALE: [400, "exchange rate stale"],
  FX_UNAVAILABLE: [503, "FX service unavailable"],
  INVALID_CONVERSION_PAIR: [400, "pair not supported"],
  NEGATIVE_REVENUE: [400, "conversion would yield negative revenue"],
  MISSING_PHONE: [400, "customer phone required"],
  MISSING_OPERATOR: [400, "operator code required"],
  MISSING_BANK_DETAILS: [400, "bank details required"],
  MISSING_MOBILE_MONEY_FIELDS: [400, "mobile money fields missing"],
  MISSING_BANK_FIELDS: [400, "bank transfer fields missing"],
  FIAT_DESTINATION_REQUIRED: [400, "a fiat destination must exist before withdrawing"],
  FIAT_DESTINATION_NOT_FOUND: [404, "fiat destination not found"],
  FIAT_DESTINATION_INVALID: [400, "fiat destination configuration invalid"],
  REFUND_RAIL_NOT_AVAILABLE: [400, "refund not possible on the original rail"],
  WITHDRAWAL_NOT_FIAT: [400, "operation needs a fiat withdrawal"],
  WITHDRAWAL_APPROVE_NOT_SUPPORTED_FOR_FIAT: [
    400,
    "fiat withdrawals cannot be approved on the standard approve route; a complete-fiat route with a `providerRef` is used after the bank transfer",
  ],
  WITHDRAWAL_NOT_PENDING_REVIEW: [400, "withdrawal not in PENDING_REVIEW"],
  BENEFICIARY_REQUIRED: [400, "beneficiary required"],
  BENEFICIARY_INVALID: [400, "beneficiary invalid"],
  BENEFICIARY_NOT_FOUND: [404, "beneficiary not found"],
  BENEFICIARY_ALREADY_EXISTS: [409, "beneficiary exists"],
  BENEFICIARY_IN_USE: [409, "beneficiary used by an active transaction"],
  BENEFICIARY_REJECTED: [403, "rejected by compliance"],
  BENEFICIARY_COOLDOWN: [403, "in cooldown"],
  BENEFICIARY_NOT_VERIFIED: [403, "not verified"],
  SELF_OWNED_REQUIRED: [400, "self-owned beneficiary required"],
  MAX_BENEFICIARIES_REACHED: [403, "maximum reached"],
  THIRD_PARTY_NOT_ALLOWED: [403, "third-party beneficiaries not allowed"],
  CARD_PAYMENTS_DISABLED: [403, "card not enabled for the merchant"],
  MOBILE_MONEY_PAYMENTS_DISABLED: [403, "mobile money not enabled"],
  USDT_PAYMENTS_DISABLED: [403, "USDT not enabled"],
  NO_METHODS_ENABLED: [403, "no payment method enabled for the paylink"],
  FEE_NOT_CONFIGURED: [500, "fee configuration missing for the method"],
  PAYMENT_METHOD_NOT_ACCEPTED: [400, "method not accepted for this transaction"],
  PROVIDER_INITIATE_FAILED: [502, "provider failed to initiate"],
  PROVIDER_MISSING_URL: [502, "provider returned no redirect URL"],
  OPERATOR_NOT_SUPPORTED: [400, "operator not supported in the region"],
  INVALID_STATE: [400, "transaction not in the right state"],
  OTP_INVALID: [400, "OTP incorrect"],
  OTP_EXPIRED: [400, "OTP expired"],
  OTP_NOT_APPLICABLE: [400, "OTP not applicable to this transaction"],
  MOMO_PROVIDER_ERROR: [502, "mobile money provider error"],
  CUSTOMER_PHONE_REQUIRED: [400, "phone required for mobile money"],
  CANNOT_CHANGE_CURRENCY_AFTER_PRODUCTS: [400, "paylink currency fixed once products exist"],
  PAYLINK_EMPTY: [400, "paylink has no products"],
  PROMO_CODE_INVALID: [400, "code not found on the paylink"],
  PROMO_CODE_INACTIVE: [400, "code deactivated"],
  PROMO_CODE_EXPIRED: [400, "code past expiresAt"],
  PROMO_CODE_USAGE_LIMIT_REACHED: [400, "useCount reached maxUses"],
  MARKETPLACE_DISABLED: [403, "marketplace features not enabled"],
  NOT_A_PLATFORM_MERCHANT: [403, "merchant is not a platform"],
  SPLIT_RULE_NOT_FOUND: [404, "split rule not found"],
  SPLIT_RULE_IN_USE: [409, "split rule in use"],
  SPLIT_RULE_INVALID_BPS_SUM: [400, "basis points do not sum to 10000"],
  SPLIT_RULE_MISSING_SERVICE_RECIPIENT: [400, "service fee recipient missing"],
  SPLIT_RULE_MISSING_PLATFORM_RECIPIENT: [400, "platform recipient missing"],
  SPLIT_RULE_MISSING_SUB_MERCHANT_RECIPIENT: [400, "sub-merchant recipient missing"],
  SPLIT_RULE_INVALID_SERVICE_BPS: [400, "service fee basis points below minimum"],
  SUB_MERCHANT_NOT_CONNECTED: [403, "sub-merchant not connected"],
  SUB_MERCHANT_ALREADY_CONNECTED: [409, "already connected to a platform"],
  SUB_MERCHANT_KYB_REQUIRED: [403, "sub-merchant must complete verification"],
  SUB_MERCHANT_SUSPENDED: [403, "sub-merchant suspended"],
  SUB_MERCHANT_AML_FLAGGED: [403, "sub-merchant flagged by AML"],
  SUB_MERCHANT_INVITATION_NOT_FOUND: [404, "invitation not found"],
  SUB_MERCHANT_INVITATION_EXPIRED: [400, "invitation expired"],
  SUB_MERCHANT_INVITATION_ALREADY_USED: [409, "invitation already accepted"],
  SUB_MERCHANT_HAS_PENDING_BALANCE: [409, "pending balance must be settled first"],
  SPLIT_PAYMENT_NOT_FOUND: [404, "split payment not found"],
  SPLIT_PAYMENT_ALREADY_REVERSED: [409, "already reversed"],
  IMPORT_VALIDATION_FAILED: [400, "items of a bulk import failed validation"],
  VALIDATION_ERROR: [400, "body failed validation"],
  NOT_FOUND: [404, "resource missing or not owned by the merchant"],
  DUPLICATE_RESOURCE: [409, "unique value already exists"],
  CONFLICT: [409, "conflict with an existing resource"],
  BAD_REQUEST: [400, "malformed request"],
  INVALID_WEBHOOK_SIGNATURE: [400, "webhook signature verification failed"],
  INTERNAL_ERROR: [500, "unexpected server error"],
  SERVICE_UNAVAILABLE: [503, "temporarily unavailable"],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function codeToStatus(code: ErrorCode): number {
  return ERROR_CATALOGUE[code][0];
}

/** `line`: the line of an imported file (bulk payments), counting the header as line 1. */
export type FieldProblem = { field: string; reason: string; line?: number };

/**
 * The `error.cause` of an INSUFFICIENT_BALANCE that only waits for USDT credits to solidify (19 blocks):
 * a passing state, so the answer is not kept as an Idempotency-Key's outcome and a retry may succeed.
 */
export const AWAITING_SOLIDIFICATION = "AWAITING_SOLIDIFICATION";

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: FieldProblem[];
  /** A finer-grained reason inside a broader code, e.g. FORBIDDEN caused by INSUFFICIENT_SCOPE. */
  readonly reason?: string;
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    extra: { details?: FieldProblem[]; reason?: string; headers?: Record<string, string> } = {},
  ) {
    super(message ?? defaultMessage(code));
    this.name = "AppError";
    this.code = code;
    this.status = codeToStatus(code);
    this.details = extra.details;
    this.reason = extra.reason;
    this.headers = extra.headers;
  }
}

function defaultMessage(code: ErrorCode): string {
  const text = ERROR_CATALOGUE[code][1];
  return text.charAt(0).toUpperCase() + text.slice(1);
}
