// Whether a merchant takes money from customers: only an ACTIVE one does. Every public way of starting a
// payment (paylink checkout, rate lock, promo preview, a subscription renewal from its page or the cron)
// asks here, and the hosted pages use the same rule to say "unavailable" instead of inviting payment.
// A suspended merchant is refused with MERCHANT_STATUS_INVALID and a closed one with ACCOUNT_CLOSED, the
// codes its API keys already answer (docs/decisions.md).
import { findMerchant, type MerchantRow } from "../../db/merchants.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";

type MerchantStatus = MerchantRow["status"];

export function takesPayments(merchant: { status: MerchantStatus | string }): boolean {
  return merchant.status === "ACTIVE";
}

/** The catalogue's refusal for a merchant that does not take payments; undefined for an ACTIVE one. */
export function paymentRefusalOf(merchant: { status: MerchantStatus | string }): AppError | undefined {
  if (takesPayments(merchant)) return undefined;
  if (merchant.status === "CLOSED") {
    return new AppError("ACCOUNT_CLOSED", "This merchant's account is closed: it takes no payments");
  }
  return new AppError("MERCHANT_STATUS_INVALID", "This merchant is not taking payments right now", {
    reason: `MERCHANT_${merchant.status}`,
  });
}

/**
 * The refusal for a merchant given by id or by a row already read; undefined when it takes payments. An
 * unknown id is MERCHANT_NOT_FOUND.
 */
export async function merchantPaymentRefusal(
  deps: Pick<Deps, "db">,
  merchant: string | Pick<MerchantRow, "id" | "status">,
): Promise<AppError | undefined> {
  const row = typeof merchant === "string" ? await findMerchant(deps.db, merchant) : merchant;
  return row ? paymentRefusalOf(row) : new AppError("MERCHANT_NOT_FOUND");
}

/** Throws the catalogue's refusal unless the merchant takes payments. */
export async function assertMerchantTakesPayments(
  deps: Pick<Deps, "db">,
  merchant: string | Pick<MerchantRow, "id" | "status">,
): Promise<void> {
  const refusal = await merchantPaymentRefusal(deps, merchant);
  if (refusal) throw refusal;
}
