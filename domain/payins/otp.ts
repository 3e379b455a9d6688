// Mobile money OTP: the customer's SMS code goes to the provider; the final state still arrives only
// through the provider's callback, so the pay-in stays AWAITING_PAYMENT here.
import { findMerchantPayin, findPayin, type PayinRow } from "../../db/payins.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { fiatProvidersFor } from "./create_fiat.ts";
import { takeTokens } from "../limits/rate_limit.ts";

/**
 * Codes a pay-in may be sent per minute, whichever route sends them: with 4 to 8 digits a code must
 * not be guessable by trying, whatever limit the provider itself keeps.
 */
export const OTP_ATTEMPTS_PER_MINUTE = 5;

type OtpDeps = Pick<Deps, "fiat" | "kv" | "db" | "config" | "clock">;

async function submitOtpFor(deps: OtpDeps, payin: PayinRow, otp: string) {
  // Counted first: every code sent counts, and the answer to the sixth does not depend on whether the
  // provider has failed the pay-in meanwhile (it does after three wrong codes, by its own callback).
  const [attempts] = await takeTokens(deps, [{ bucket: ["otp", payin.id], limit: OTP_ATTEMPTS_PER_MINUTE }]);
  if (!attempts.allowed) {
    throw new AppError(
      "RATE_LIMITED",
      `Too many codes for this payment; retry in ${attempts.retryAfterSeconds} s`,
      {
        headers: { "Retry-After": String(attempts.retryAfterSeconds) },
      },
    );
  }
  if (
    payin.payment_method !== "MOBILE_MONEY" || payin.next_step !== "otp" ||
    payin.status !== "AWAITING_PAYMENT"
  ) {
    throw new AppError(
      "OTP_NOT_APPLICABLE",
      "This pay-in does not take an OTP (not mobile money, approval mode, or no longer awaiting payment)",
    );
  }
  const result = await fiatProvidersFor(deps, payin.is_sandbox).momo.submitOtp(payin.provider_ref!, otp);
  if (!result.ok) throw new AppError(result.code);
  return { transactionId: payin.id, status: "AWAITING_PAYMENT" as const };
}

/** POST /v1/payments/:id/submit-otp (and /v1/payins/:id/submit-otp): the merchant drives the flow. */
export async function submitPayinOtp(
  deps: Pick<Deps, "db"> & OtpDeps,
  caller: Caller,
  id: string,
  otp: string,
) {
  const payin = await findMerchantPayin(deps.db, caller.merchantId, caller.isSandbox, id);
  if (!payin) throw new AppError("NOT_FOUND", "Pay-in not found");
  return await submitOtpFor(deps, payin, otp);
}

/** The hosted page's form: the customer enters the code on our page. */
export async function submitCheckoutOtp(deps: Pick<Deps, "db"> & OtpDeps, id: string, otp: string) {
  const payin = await findPayin(deps.db, id);
  if (!payin) throw new AppError("NOT_FOUND", "Pay-in not found");
  if (!/^\d{4,8}$/.test(otp)) throw new AppError("OTP_INVALID", "The code is 4 to 8 digits");
  return await submitOtpFor(deps, payin, otp);
}
