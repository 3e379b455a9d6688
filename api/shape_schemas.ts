// Request fields whose shape rule the specification answers with its own code (INVALID_ADDRESS,
// INVALID_AMOUNT, INVALID_CONTEXT, MISSING_IDEMPOTENCY_KEY...): the domain keeps the check that answers
// that code, and the schema declares the same rule (pattern, enum, minItems, required) so that the
// document tells the truth. A rule answered VALIDATION_ERROR is plain zod instead (docs/decisions.md).
import { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../domain/errors.ts";
import { USAGE_CONTEXTS } from "../domain/whitelist/mod.ts";

/** rails/tron/address.ts BASE58_34; the checksum is checked too (INVALID_ADDRESS). */
export const TRON_ADDRESS_PATTERN = "^T[1-9A-HJ-NP-Za-km-z]{33}$";
/** domain/money.ts DECIMAL_STRING with at most 6 decimals (USDT). */
export const USDT_AMOUNT_PATTERN = "^(0|[1-9][0-9]{0,17})(\\.[0-9]{1,6})?$";
/** A whole number of XOF francs (XOF has no minor unit). */
export const XOF_AMOUNT_PATTERN = "^[1-9][0-9]{0,14}$";
/** domain/idempotency.ts UUID. */
export const UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/** rails/fiat/operators.ts isE164: "+", 7 to 15 digits, a Burkina Faso (+226) number exactly 8 after it. */
export const E164_PHONE = /^(\+226[0-9]{8}|\+(?!226)[1-9][0-9]{6,14})$/;

/** The e-mail form zod checks (z.email()), which is narrower than JSON Schema's `format: email`. */
export const EMAIL_PATTERN = z.regexes.email.source;

/** A TRON address (USDT_TRC20 batch) or a Burkina Faso number (MOBILE_MONEY batch). */
export const BULK_RECIPIENT_PATTERN = "^(T[1-9A-HJ-NP-Za-km-z]{33}|\\+226[0-9]{8})$";

/** A USDT amount or a whole XOF one; which applies depends on a field beside it. */
export const USDT_OR_XOF_DESCRIPTION =
  "USDT: at most 6 decimals; XOF: a whole number of francs (XOF with decimals: INVALID_AMOUNT)";

/**
 * A positive amount in a currency a field beside it names: the form (a decimal string, at most 6
 * decimals) is zod's, answered VALIDATION_ERROR like the domain's check of the currency's decimals.
 */
export const DecimalAmount = z.string().max(40).regex(
  new RegExp(USDT_AMOUNT_PATTERN),
  "must be a decimal string such as 12.50",
);

export const TronAddress = z.string().max(64).openapi({
  pattern: TRON_ADDRESS_PATTERN,
  example: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE",
  description: "TRON base58 address; malformed or a bad checksum: INVALID_ADDRESS",
});

export const UsdtAmount = z.string().max(40).openapi({
  pattern: USDT_AMOUNT_PATTERN,
  example: "25.50",
  description: "USDT as a decimal string, at most 6 decimals; otherwise INVALID_AMOUNT",
});

export const XofAmount = z.string().max(40).openapi({
  pattern: XOF_AMOUNT_PATTERN,
  example: "5000",
  description: "XOF as a whole number of francs in a string; otherwise INVALID_AMOUNT",
});

/**
 * The part `file` of a multipart/form-data body: required (missing or not a file: VALIDATION_ERROR).
 * `format: binary`, which a generated client types as a Blob (tests/openapi_types.ts).
 */
export const FilePart = z.custom<File>((value) => value instanceof File, "a file part is required")
  .openapi({ type: "string", format: "binary" });

/** Whitelist usage contexts: an unknown one or an empty list answers INVALID_CONTEXT. */
export const UsageContexts = z.array(
  z.string().max(32).openapi({ enum: [...USAGE_CONTEXTS] }),
).max(8).openapi({ minItems: 1, example: ["WITHDRAWAL"] });

const IDEMPOTENCY_DESCRIPTION =
  "A UUID; a retry with the same key and body replays the first answer (Idempotent-Replayed). " +
  "Missing: MISSING_IDEMPOTENCY_KEY; not a UUID: IDEMPOTENCY_KEY_INVALID";

/**
 * The Idempotency-Key header. The middleware answers its own codes, so zod only reads it; the
 * document says what the middleware wants: a UUID, required where `required` is.
 */
export function idempotencyKeyHeader(required: boolean) {
  return z.string().optional().openapi({
    format: "uuid",
    pattern: UUID_PATTERN,
    description: IDEMPOTENCY_DESCRIPTION,
    example: "6f1c2d9e-0b7a-4c1e-9d8f-3a2b1c0d9e8f",
    param: { required },
  });
}

/** What a request carrying an Idempotency-Key may also answer. */
export const IDEMPOTENCY_CODES: ErrorCode[] = [
  "IDEMPOTENCY_KEY_INVALID",
  "IDEMPOTENCY_KEY_MISMATCH",
  "CONFLICT",
];

/** Headers of a money-moving route that needs an Idempotency-Key. */
export const RequiredIdempotencyHeaders = z.object({ "idempotency-key": idempotencyKeyHeader(true) });

/**
 * JSON Schema's `false` for a property in a constraint-only branch (`oneOf: [{ properties: { x: ABSENT } }]`):
 * the property must be absent. The OpenAPI metadata's type knows no boolean schemas.
 */
export const ABSENT = false as never;
