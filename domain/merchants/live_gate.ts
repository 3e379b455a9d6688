// Whether a merchant may move live money: business verification approved AND the merchant agreement
// signed, and, when a newer agreement was published, re-signed within its 30-day window. Every live
// money-in and money-out path asks here (pay-ins, payouts, withdrawals, bulk batches, conversions); the
// sandbox never does. One code, KYB_REQUIRED, with a `reason` telling which step is missing
// (docs/decisions.md): the specification ties KYB and the agreement together as "live processing".
import { AppError } from "../errors.ts";

/** The specification's re-sign window (Part 2, Limits). */
export const RESIGN_WINDOW_DAYS = 30;

export type LiveReadiness = {
  isSandbox: boolean;
  kybStatus: string;
  agreementVersion: number | null;
  agreementResignBy: Date | null;
};

export type LiveBlock = "KYB_NOT_APPROVED" | "AGREEMENT_NOT_SIGNED" | "AGREEMENT_RESIGN_OVERDUE";

/** Why live processing is refused now, or null when it is allowed (always null in the sandbox). */
export function liveBlock(m: Omit<LiveReadiness, "isSandbox">, now: Date): LiveBlock | null {
  if (m.kybStatus !== "APPROVED") return "KYB_NOT_APPROVED";
  if (m.agreementVersion === null) return "AGREEMENT_NOT_SIGNED";
  if (m.agreementResignBy && now.getTime() >= new Date(m.agreementResignBy).getTime()) {
    return "AGREEMENT_RESIGN_OVERDUE";
  }
  return null;
}

const MESSAGES: Record<LiveBlock, string> = {
  KYB_NOT_APPROVED:
    "Live processing needs approved business verification (KYB): submit it at /v1/merchant/kyb; the sandbox works meanwhile",
  AGREEMENT_NOT_SIGNED:
    "Live processing needs the signed merchant agreement: read and sign it at /v1/merchant/agreement",
  AGREEMENT_RESIGN_OVERDUE:
    "A new merchant agreement was published and its 30-day re-sign window has ended: sign it at /v1/merchant/agreement",
};

/** Throws KYB_REQUIRED (with the missing step as `reason`) unless the caller may move live money. */
export function assertLiveAllowed(m: LiveReadiness, now: Date): void {
  if (m.isSandbox) return;
  const block = liveBlock(m, now);
  if (block) throw new AppError("KYB_REQUIRED", MESSAGES[block], { reason: block });
}
