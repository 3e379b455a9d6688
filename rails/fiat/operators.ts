// Burkina Faso mobile money operators: which operator a phone number belongs to, and how it asks the
// customer to confirm (an SMS code, or an approval request pushed to the phone).
import type { OperatorCode } from "./provider.ts";

export type OperatorMode = "otp" | "approval";

/** OPERATOR_A_BF asks for the code received by SMS; OPERATOR_B_BF pushes a request to approve. */
export const OPERATOR_MODES: Record<OperatorCode, OperatorMode> = {
  OPERATOR_A_BF: "otp",
  OPERATOR_B_BF: "approval",
};

/** Burkina Faso's country code. National numbers have 8 digits. */
export const BF_COUNTRY_CODE = "+226";

function range(from: number, to: number): string[] {
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(String(n).padStart(2, "0"));
  return out;
}

/** The first two national digits of each operator's numbers. */
export const OPERATOR_PREFIXES: Record<OperatorCode, readonly string[]> = {
  OPERATOR_A_BF: ["05", "06", "07", ...range(54, 57), ...range(64, 67), ...range(74, 77)],
  OPERATOR_B_BF: ["01", "02", "03", ...range(50, 53), ...range(60, 63), ...range(70, 73)],
};

const BY_PREFIX = new Map<string, OperatorCode>(
  (Object.entries(OPERATOR_PREFIXES) as Array<[OperatorCode, readonly string[]]>)
    .flatMap(([op, prefixes]) => prefixes.map((p) => [p, op] as const)),
);

const BF_E164 = /^\+226\d{8}$/;
const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * An E.164 number: "+", then 7 to 15 digits, the first not 0, nothing else (no spaces). A Burkina Faso
 * number (+226) must have exactly 8 national digits. Other countries pass here; resolveOperator answers
 * null for them (the gateway's OPERATOR_NOT_SUPPORTED).
 */
export function isE164(phone: string): boolean {
  return E164.test(phone) && (!phone.startsWith(BF_COUNTRY_CODE) || BF_E164.test(phone));
}

/** A Burkina Faso number in E.164: "+226" then exactly 8 digits. */
export function isBurkinaFasoNumber(phone: string): boolean {
  return BF_E164.test(phone);
}

/** The 8 national digits of a valid number, or null. */
export function nationalNumber(phone: string): string | null {
  return BF_E164.test(phone) ? phone.slice(BF_COUNTRY_CODE.length) : null;
}

/** The operator of a Burkina Faso number, or null (malformed, another country, or an unknown prefix). */
export function resolveOperator(phone: string): OperatorCode | null {
  const national = nationalNumber(phone);
  if (national === null) return null;
  return BY_PREFIX.get(national.slice(0, 2)) ?? null;
}

/** "5000" -> "5 000" (French, narrow no-break space) or "5,000" (English). */
export function formatXof(amount: string, lang: "fr" | "en"): string {
  if (!/^\d+$/.test(amount)) return amount;
  const digits = amount.replace(/^0+(?=\d)/, "");
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, lang === "fr" ? "\u202f" : ",");
}

/** What the customer must do on the phone, in French and English, naming the amount in XOF. */
export function operatorInstruction(operator: OperatorCode, amount: string): { fr: string; en: string } {
  const fr = `${formatXof(amount, "fr")} XOF`;
  const en = `${formatXof(amount, "en")} XOF`;
  if (OPERATOR_MODES[operator] === "otp") {
    return {
      fr: `Composez le code reçu par SMS pour confirmer le paiement de ${fr}.`,
      en: `Enter the code received by SMS to confirm the payment of ${en}.`,
    };
  }
  return {
    fr: `Validez la demande sur votre téléphone pour confirmer le paiement de ${fr}.`,
    en: `Approve the request on your phone to confirm the payment of ${en}.`,
  };
}
