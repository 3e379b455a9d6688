// The payment details of a fiat destination: which fields each kind has (MOMO: operator and number;
// BANK: bank and holder names, and an IBAN or an account number with its bank code), and the checks that
// answer the specification's codes (MISSING_MOBILE_MONEY_FIELDS, MISSING_BANK_FIELDS, OPERATOR_NOT_SUPPORTED,
// FIAT_DESTINATION_INVALID). The registration body's schema (api/fiat_destinations/routes.ts) declares the same
// structure; `detailsRefusal` gives the code a body refused by that schema answers.
import type { FiatDetails } from "../../db/fiat_destinations.ts";
import { isE164, resolveOperator } from "../../rails/fiat/operators.ts";
import type { OperatorCode } from "../../rails/fiat/provider.ts";
import { AppError } from "../errors.ts";

export const OPERATOR_CODES: readonly OperatorCode[] = ["OPERATOR_A_BF", "OPERATOR_B_BF"];

export type FiatDestinationInput = {
  kind: "MOMO" | "BANK";
  label?: string | null;
  isPrimary?: boolean;
  momoOperator?: string;
  momoPhone?: string;
  bankName?: string;
  bankAccountName?: string;
  bankIban?: string;
  bankAccountNumber?: string;
  bankCode?: string;
};

export type FiatDestinationPatch = Omit<Partial<FiatDestinationInput>, "kind">;

export const MOMO_FIELDS = ["momoOperator", "momoPhone"] as const;
export const BANK_FIELDS = [
  "bankName",
  "bankAccountName",
  "bankIban",
  "bankAccountNumber",
  "bankCode",
] as const;

export function invalid(field: string, reason: string): AppError {
  return new AppError("FIAT_DESTINATION_INVALID", `${field}: ${reason}`, { details: [{ field, reason }] });
}

/** ISO 13616: two letters, two check digits, up to 30 alphanumerics; the number mod 97 is 1. */
export function isValidIban(value: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(value)) return false;
  const moved = value.slice(4) + value.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const digits = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/** Spaces out, upper-case: "bf42 bf00 ..." and "BF42BF00..." are the same account. */
function compact(value: string): string {
  return value.replace(/[\s-]/g, "").toUpperCase();
}

export function text(field: string, value: string | undefined | null, max = 140): string | null {
  if (value === undefined || value === null) return null;
  const v = value.trim();
  if (v === "") return null;
  // deno-lint-ignore no-control-regex -- control characters are what is refused
  if (v.length > max || /[\u0000-\u001f\u007f]/.test(v)) {
    throw invalid(field, `at most ${max} printable characters`);
  }
  return v;
}

function checkMomo(
  operator: string,
  phone: string,
): Pick<FiatDetails, "momo_operator" | "momo_phone"> {
  if (!OPERATOR_CODES.includes(operator as OperatorCode)) {
    throw new AppError("OPERATOR_NOT_SUPPORTED", `momoOperator must be one of ${OPERATOR_CODES.join(", ")}`, {
      details: [{ field: "momoOperator", reason: `one of ${OPERATOR_CODES.join(", ")}` }],
    });
  }
  if (!isE164(phone)) {
    throw invalid("momoPhone", "an E.164 number: + then the country code and number, no spaces");
  }
  const owner = resolveOperator(phone);
  if (owner === null) {
    throw new AppError("OPERATOR_NOT_SUPPORTED", "momoPhone is not a Burkina Faso mobile money number", {
      details: [{ field: "momoPhone", reason: "a Burkina Faso number (+226) of a supported operator" }],
    });
  }
  if (owner !== operator) throw invalid("momoPhone", `this number belongs to ${owner}, not ${operator}`);
  return { momo_operator: operator, momo_phone: phone };
}

function checkBank(b: {
  name: string | null;
  accountName: string | null;
  iban: string | null;
  accountNumber: string | null;
  code: string | null;
}): Omit<FiatDetails, "momo_operator" | "momo_phone"> {
  if (b.iban && !isValidIban(b.iban)) {
    throw invalid("bankIban", "not a valid IBAN (format or mod-97 checksum)");
  }
  if (b.accountNumber && !/^[A-Z0-9]{5,34}$/.test(b.accountNumber)) {
    throw invalid("bankAccountNumber", "5 to 34 letters and digits");
  }
  if (b.code && !/^[A-Z0-9]{3,11}$/.test(b.code)) throw invalid("bankCode", "3 to 11 letters and digits");
  return {
    bank_name: b.name,
    bank_account_name: b.accountName,
    bank_iban: b.iban,
    bank_account_number: b.iban ? null : b.accountNumber,
    bank_code: b.code,
  };
}

const NO_MOMO = { momo_operator: null, momo_phone: null };
const NO_BANK = {
  bank_name: null,
  bank_account_name: null,
  bank_iban: null,
  bank_account_number: null,
  bank_code: null,
};

/** A field counts as given unless absent or blank (a value of another type is given, and wrong). */
function given(value: unknown): boolean {
  return value !== undefined && !(typeof value === "string" && value.trim() === "");
}

/**
 * What is wrong with which fields a destination of `kind` has, whatever their values: a field of the other
 * kind (FIAT_DESTINATION_INVALID), a required one missing (MISSING_MOBILE_MONEY_FIELDS or
 * MISSING_BANK_FIELDS: an IBAN, or an account number and its bank code), or both an IBAN and an account
 * number (FIAT_DESTINATION_INVALID). Undefined when the fields are the right ones. Takes any object, so
 * the route can name the code a body its schema refused answers.
 */
export function detailsRefusal(kind: "MOMO" | "BANK", fields: Record<string, unknown>): AppError | undefined {
  const foreign = (kind === "MOMO" ? BANK_FIELDS : MOMO_FIELDS).filter((f) => fields[f] !== undefined);
  if (foreign.length > 0) return invalid(foreign[0], `not a field of a ${kind} destination`);
  const missing = kind === "MOMO" ? MOMO_FIELDS.filter((f) => !given(fields[f])) : [
    ...(["bankName", "bankAccountName"] as const).filter((f) => !given(fields[f])),
    ...(!given(fields.bankIban) && !given(fields.bankAccountNumber) ? ["bankIban or bankAccountNumber"] : []),
    ...(!given(fields.bankIban) && given(fields.bankAccountNumber) && !given(fields.bankCode)
      ? ["bankCode"]
      : []),
  ];
  if (missing.length > 0) {
    const [code, what] = kind === "MOMO"
      ? ["MISSING_MOBILE_MONEY_FIELDS" as const, `Mobile money destinations need ${missing.join(" and ")}`]
      : ["MISSING_BANK_FIELDS" as const, `Bank destinations need ${missing.join(", ")}`];
    return new AppError(code, what, {
      details: missing.map((field) => ({ field, reason: `required for ${kind}` })),
    });
  }
  if (given(fields.bankIban) && given(fields.bankAccountNumber)) {
    return invalid("bankAccountNumber", "give either bankIban or bankAccountNumber, not both");
  }
  return undefined;
}

/** The stored details of a destination of `kind` from the given fields; throws the spec's codes. */
export function checkedDetails(kind: "MOMO" | "BANK", input: FiatDestinationPatch): FiatDetails {
  const refusal = detailsRefusal(kind, input);
  if (refusal) throw refusal;
  if (kind === "MOMO") {
    return { ...checkMomo(input.momoOperator!.trim(), input.momoPhone!.trim()), ...NO_BANK };
  }
  const opt = (v: string | undefined) => (v === undefined || v.trim() === "" ? null : compact(v));
  return {
    ...NO_MOMO,
    ...checkBank({
      name: text("bankName", input.bankName),
      accountName: text("bankAccountName", input.bankAccountName),
      iban: opt(input.bankIban),
      accountNumber: opt(input.bankAccountNumber),
      code: opt(input.bankCode),
    }),
  };
}
