// The hosted renewal page's side: what it shows (whom the customer pays, for which period, on which
// rails) and the pay-in it starts, through the same pay-in functions as any checkout. One pay-in runs at
// a time per renewal: while it can still be paid, asking again sends the customer back to it.
import { findMerchant } from "../../db/merchants.ts";
import { findPaylinkOf } from "../../db/paylinks.ts";
import { findPayin, type PayinRow } from "../../db/payins.ts";
import * as subsDb from "../../db/subscriptions.ts";
import type { OperatorCode } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { currentRate, roundAmount } from "../fx/rates.ts";
import { isWellFormedId } from "../ids.ts";
import { assertMerchantTakesPayments, takesPayments } from "../merchants/availability.ts";
import { brandingOf, type MerchantBranding } from "../merchants/branding.ts";
import type { PaymentRail } from "../merchants/mod.ts";
import { Decimal } from "../money.ts";
import { returnDepositAddress, takeDepositAddress } from "../payins/address_pool.ts";
import { createUsdtPayin } from "../payins/create.ts";
import { createCardPayin, createMobileMoneyPayin } from "../payins/create_fiat.ts";
import { merchantCaller } from "../shop/checkout.ts";
import { offeredRails, RAIL_CURRENCY } from "../shop/storefront.ts";
import { cancelUrl, formatAmount } from "./view.ts";

/** Pay-in statuses during which the customer should finish that payment rather than start another. */
const STILL_RUNNING = new Set(["AWAITING_PAYMENT", "PENDING", "CONFIRMING", "CONFIRMED", "OVERPAID"]);

export type RenewalPageView = {
  renewal: subsDb.RenewalRow;
  subscription: subsDb.SubscriptionRow;
  merchant: MerchantBranding;
  brandColor: string | null;
  rails: PaymentRail[];
  amount: string;
  /** The pay-in to go back to, while it can still be paid. */
  runningPayinId: string | null;
  cancelUrl: string;
  /** False while the merchant is suspended or closed: the page offers nothing to pay. */
  merchantAvailable: boolean;
  merchantStatus: string;
};

async function load(deps: Pick<Deps, "db">, renewalId: string) {
  const renewal = isWellFormedId("srn", renewalId) ? await subsDb.findRenewal(deps.db, renewalId) : undefined;
  if (!renewal) return undefined;
  const subscription = await subsDb.findSubscription(deps.db, renewal.subscription_id);
  const merchant = subscription && await findMerchant(deps.db, subscription.merchant_id);
  const owner = { merchantId: renewal.merchant_id, isSandbox: renewal.is_sandbox };
  const paylink = subscription && await findPaylinkOf(deps.db, owner, subscription.paylink_id);
  if (!subscription || !merchant || !paylink) return undefined;
  return { renewal, subscription, merchant, paylink };
}

export async function getRenewalPage(
  deps: Pick<Deps, "db" | "config">,
  renewalId: string,
): Promise<RenewalPageView | undefined> {
  const found = await load(deps, renewalId);
  if (!found) return undefined;
  const { renewal, subscription, merchant, paylink } = found;
  const payin = renewal.payin_id ? await findPayin(deps.db, renewal.payin_id) : undefined;
  return {
    renewal,
    subscription,
    merchant: brandingOf(merchant),
    brandColor: paylink.brand_color,
    rails: offeredRails(paylink, merchant.enabled_rails),
    amount: formatAmount(renewal.amount, renewal.currency),
    runningPayinId: payin && STILL_RUNNING.has(payin.status) ? payin.id : null,
    cancelUrl: await cancelUrl(deps.config, subscription.id),
    merchantAvailable: takesPayments(merchant),
    merchantStatus: merchant.status,
  };
}

export type RenewalPayInput = {
  paymentMethod: PaymentRail;
  customerPhone?: string;
  operatorCode?: OperatorCode;
};

/**
 * Starts (or finds) the renewal's pay-in on the chosen rail, at the live rate rounded up to the rail's
 * currency. Refused unless the renewal is still PENDING. Answers the pay-in id to send the customer to.
 */
export async function startRenewalPayin(
  deps: Deps,
  renewalId: string,
  input: RenewalPayInput,
): Promise<string> {
  const found = await load(deps, renewalId);
  if (!found) throw new AppError("NOT_FOUND", "No such renewal");
  const { subscription, merchant, paylink } = found;
  await assertMerchantTakesPayments(deps, merchant);
  const rail = input.paymentMethod;
  if (!offeredRails(paylink, merchant.enabled_rails).includes(rail)) {
    throw new AppError("PAYMENT_METHOD_NOT_ACCEPTED", `${rail} is not accepted for this subscription`);
  }
  const to = RAIL_CURRENCY[rail];
  const rate = await currentRate(deps, found.renewal.currency, to);
  const caller = merchantCaller(merchant, found.renewal.is_sandbox);
  // The deposit address is leased before the transaction (on PGlite a lease taken on the root handle
  // would wait for that very transaction) and handed back unless the new pay-in claimed it.
  const deposit = rail === "USDT_TRC20"
    ? await takeDepositAddress(deps, found.renewal.is_sandbox)
    : undefined;
  let claimed = false;
  try {
    const payinId = await inTransaction();
    if (deposit && !claimed) returnDepositAddress(deps, found.renewal.is_sandbox, deposit);
    return payinId;
  } catch (err) {
    if (deposit) returnDepositAddress(deps, found.renewal.is_sandbox, deposit);
    throw err;
  }

  async function inTransaction(): Promise<string> {
    return await deps.db.tx(async (tx) => {
      const txDeps: Deps = { ...deps, db: tx };
      const renewal = (await subsDb.findRenewal(tx, renewalId, { lock: true }))!;
      if (renewal.status !== "PENDING") {
        throw new AppError("INVALID_TRANSACTION_STATUS", `This renewal is ${renewal.status}`, {
          reason: `RENEWAL_${renewal.status}`,
        });
      }
      if (renewal.payin_id) {
        const running = await findPayin(tx, renewal.payin_id);
        if (running && STILL_RUNNING.has(running.status)) return running.id;
      }
      const amount = roundAmount(new Decimal(renewal.amount).times(rate.rate), to, "up").toFixed();
      const common = {
        amount,
        // Back from the checkout (paid or not), the customer lands on the renewal page, which says where it stands.
        successUrl: `${deps.config.publicUrl}/subscriptions/renewals/${renewal.id}`,
        cancelUrl: `${deps.config.publicUrl}/subscriptions/renewals/${renewal.id}`,
        metadata: {
          subscriptionId: subscription.id,
          renewalId: renewal.id,
          paylinkId: subscription.paylink_id,
          description: `${subscription.description} (${renewal.period_start.toISOString().slice(0, 10)})`
            .slice(
              0,
              200,
            ),
        },
      };
      let payin: PayinRow;
      if (rail === "USDT_TRC20") {
        payin = (await createUsdtPayin(txDeps, caller, renewal.is_sandbox, common, deposit)).payin;
        claimed = true;
      } else {
        const fiat = {
          ...common,
          customerName: subscription.customer_name ?? undefined,
          customerEmail: subscription.customer_email,
          customerPhone: input.customerPhone ?? subscription.customer_phone ?? undefined,
          operatorCode: input.operatorCode,
        };
        payin = rail === "CARD"
          ? (await createCardPayin(txDeps, caller, renewal.is_sandbox, fiat)).payin
          : (await createMobileMoneyPayin(txDeps, caller, renewal.is_sandbox, fiat)).payin;
      }
      await subsDb.setRenewalPayin(tx, renewal.id, payin.id, deps.clock.now());
      return payin.id;
    });
  }
}
