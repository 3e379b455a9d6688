// The signed link to a USDT refund's hosted page (the merchant sends it to the customer): the refund id and
// an expiry, signed with an HMAC under the app secret. Forged, for another refund, or expired: refused.
import type { Config } from "../../config.ts";
import type { RefundRow } from "../../db/refunds.ts";
import { hmacSha256Hex, timingSafeEqual } from "../crypto.ts";
import { AppError } from "../errors.ts";

/** How long a refund page link stays valid after approval. */
export const REFUND_PAGE_LINK_TTL_DAYS = 30;

function linkSecret(config: Pick<Config, "appSecret">): string {
  if (!config.appSecret) throw new Error("APP_SECRET is not set: refund page links cannot be signed");
  return `refund-page:${config.appSecret}`;
}

async function signature(config: Pick<Config, "appSecret">, refundId: string, exp: number): Promise<string> {
  return (await hmacSha256Hex(linkSecret(config), `${refundId}.${exp}`)).slice(0, 48);
}

/** The columns an approved USDT refund gets: its page link and when the link expires. */
export async function customerPagePatch(
  config: Pick<Config, "appSecret" | "publicUrl">,
  row: Pick<RefundRow, "id" | "payment_method">,
  now: Date,
): Promise<Partial<RefundRow>> {
  if (row.payment_method !== "USDT_TRC20") return {};
  const expires = new Date(now.getTime() + REFUND_PAGE_LINK_TTL_DAYS * 86_400_000);
  const exp = Math.floor(expires.getTime() / 1000);
  const sig = await signature(config, row.id, exp);
  return {
    customer_page_url: `${config.publicUrl}/refunds/${row.id}?exp=${exp}&sig=${sig}`,
    customer_page_expires_at: new Date(exp * 1000),
  };
}

export type PageLink = { refundId: string; exp: string; sig: string };

/** NOT_FOUND for a forged link or another refund's; FORBIDDEN (reason LINK_EXPIRED) past its expiry. */
export async function verifyPageLink(
  config: Pick<Config, "appSecret">,
  link: PageLink,
  now: Date,
): Promise<void> {
  const exp = /^\d{1,12}$/.test(link.exp) ? Number(link.exp) : NaN;
  if (!Number.isFinite(exp) || !/^[0-9a-f]{48}$/.test(link.sig)) {
    throw new AppError("NOT_FOUND", "This refund link is not valid");
  }
  if (!timingSafeEqual(await signature(config, link.refundId, exp), link.sig)) {
    throw new AppError("NOT_FOUND", "This refund link is not valid");
  }
  if (now.getTime() > exp * 1000) {
    throw new AppError("FORBIDDEN", "This refund link has expired; ask the merchant for a new one", {
      reason: "LINK_EXPIRED",
    });
  }
}
