// The public side of a paylink: rate locks and the checkout. A checkout is ONE transaction: the order is
// reserved (paylink use, stock, promo redemption: domain/paylinks/checkout.ts), the rate lock consumed,
// the pay-in created on the chosen rail through the pay-in domain functions, and the order pointed at it.
// Anything refused on the way (out of stock, a used-up code, a lock already used, a rail failing to
// start) rolls all of it back: nothing is half-written and no stock is held for a failed attempt.
import type { MerchantRow } from "../../db/merchants.ts";
import type { PayinRow } from "../../db/payins.ts";
import * as shopDb from "../../db/shop.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { currentRate, roundAmount } from "../fx/rates.ts";
import { isWellFormedId, newId } from "../ids.ts";
import type { PaymentRail } from "../merchants/mod.ts";
import { type Currency, Decimal, formatAmount } from "../money.ts";
import { attachPayin, type CheckoutItem, reserveOrder } from "../paylinks/checkout.ts";
import { createUsdtPayin } from "../payins/create.ts";
import { returnDepositAddress, takeDepositAddress } from "../payins/address_pool.ts";
import { createCardPayin, createMobileMoneyPayin } from "../payins/create_fiat.ts";
import type { OperatorCode } from "../../rails/fiat/provider.ts";
import { assertMerchantTakesPayments } from "../merchants/availability.ts";
import { loadShop, offeredRails, RAIL_CURRENCY } from "./storefront.ts";

/** The specification's Limits: a rate lock lasts 5 minutes. */
export const RATE_LOCK_SECONDS = 300;

export type RateLockView = {
  rateLockId: string;
  paymentMethod: PaymentRail;
  fromCurrency: Currency;
  toCurrency: Currency;
  rate: string;
  rateAsOf: string;
  expiresAt: string;
};

function lockView(l: shopDb.RateLockRow): RateLockView {
  return {
    rateLockId: l.id,
    paymentMethod: l.rail,
    fromCurrency: l.from_currency,
    toCurrency: l.to_currency,
    rate: new Decimal(l.rate).toFixed(),
    rateAsOf: l.rate_as_of.toISOString(),
    expiresAt: l.expires_at.toISOString(),
  };
}

/**
 * The rail the customer asked for, if the paylink offers it now: which rails it offers is state (its
 * accepted methods and the merchant's enabled rails), so a refusal is PAYMENT_METHOD_NOT_ACCEPTED, or
 * NO_METHODS_ENABLED when it offers none at all.
 */
function offeredRail(offered: PaymentRail[], asked: PaymentRail | undefined): PaymentRail {
  if (offered.length === 0) {
    throw new AppError("NO_METHODS_ENABLED", "This paylink offers no payment method at the moment");
  }
  const rail = asked ?? offered[0];
  if (!offered.includes(rail)) {
    throw new AppError("PAYMENT_METHOD_NOT_ACCEPTED", `This paylink does not take ${rail}`, {
      details: [{ field: "paymentMethod", reason: `offered: ${offered.join(", ")}` }],
    });
  }
  return rail;
}

/** Locks the live rate from the paylink's currency to the rail's for RATE_LOCK_SECONDS. */
export async function createRateLock(
  deps: Pick<Deps, "db" | "clock" | "config" | "rates">,
  slug: string,
  rail: PaymentRail,
): Promise<RateLockView> {
  const { paylink, merchant } = await loadShop(deps, slug);
  await assertMerchantTakesPayments(deps, merchant);
  offeredRail(offeredRails(paylink, merchant.enabled_rails), rail);
  const to = RAIL_CURRENCY[rail];
  const rate = await currentRate(deps, paylink.currency, to);
  const now = deps.clock.now();
  const lock = await shopDb.insertRateLock(deps.db, {
    id: newId("rlk", now.getTime()),
    paylink_id: paylink.id,
    is_sandbox: paylink.is_sandbox,
    rail,
    from_currency: paylink.currency,
    to_currency: to,
    rate: rate.rate,
    rate_as_of: rate.asOf,
    rate_source: rate.source,
    expires_at: new Date(now.getTime() + RATE_LOCK_SECONDS * 1000),
    created_at: now,
  });
  return lockView(lock);
}

/** Takes the lock for `orderId`, or the specification's error saying why it cannot be taken. */
async function consumeLock(
  deps: Pick<Deps, "db" | "clock">,
  p: { id: string; paylinkId: string; orderId: string; rail: PaymentRail },
): Promise<shopDb.RateLockRow> {
  const now = deps.clock.now();
  const taken = isWellFormedId("rlk", p.id)
    ? await shopDb.consumeRateLock(deps.db, { id: p.id, paylinkId: p.paylinkId, orderId: p.orderId, now })
    : undefined;
  if (!taken) {
    const lock = isWellFormedId("rlk", p.id) ? await shopDb.findRateLock(deps.db, p.id) : undefined;
    if (!lock || lock.paylink_id !== p.paylinkId) {
      throw new AppError("RATE_LOCK_NOT_FOUND", "No such rate lock on this paylink");
    }
    if (lock.used_at) throw new AppError("RATE_LOCK_ALREADY_USED", "This rate lock was already used");
    throw new AppError("RATE_LOCK_EXPIRED", "This rate lock has expired; lock the rate again");
  }
  if (taken.rail !== p.rail) {
    throw new AppError("PAYMENT_METHOD_NOT_ACCEPTED", `This rate lock is for ${taken.rail}, not ${p.rail}`, {
      details: [{ field: "rateLockId", reason: `locked for ${taken.rail}, not ${p.rail}` }],
    });
  }
  return taken;
}

/** The merchant as the pay-in functions expect their caller: its rails, KYB and fees. */
export function merchantCaller(m: MerchantRow, isSandbox: boolean): Caller {
  return {
    keyId: "public_checkout",
    merchantId: m.id,
    kind: isSandbox ? "test_secret" : "live_secret",
    isSandbox,
    scopes: null,
    rateLimits: m.rate_limits,
    kybStatus: m.kyb_status,
    agreementVersion: m.agreement_version,
    agreementResignBy: m.agreement_resign_by,
    enabledRails: m.enabled_rails,
    feeSchedule: m.fee_schedule,
  };
}

export type CheckoutInput = {
  items: CheckoutItem[];
  paymentMethod?: PaymentRail;
  promoCode?: string;
  /** VARIABLE paylinks only: what the customer chooses to pay, in the paylink's currency. */
  amount?: string;
  rateLockId?: string;
  customerEmail?: string;
  customerName?: string;
  customerPhone?: string;
  customerAddress?: string;
  operatorCode?: OperatorCode;
  /** Who is checking out, as the public routes' rate limiter sees it: bounds what one address may hold. */
  clientAddress?: string;
};

export type CheckoutResult = {
  orderId: string;
  transactionId: string;
  address: string | null;
  /** The order's total in the rail's currency. */
  amount: string;
  /** What the customer sends: the amount plus the USDT network fee (the amount itself on card and mobile money). */
  amountExpected: string;
  expiresAt: string;
  paymentMethod: PaymentRail;
  currency: Currency;
  checkoutUrl: string;
};

function describe(title: string | null, items: Array<{ product_name: string; quantity: number }>): string {
  const lines = items.map((i) => `${i.quantity} × ${i.product_name}`).join(", ");
  return (title ? `${title}: ${lines}` : lines).slice(0, 200);
}

/**
 * Creates the order and its pay-in. The rail defaults to the first the paylink offers; the price is the
 * order's total converted at the locked rate (or the live one without a lock), rounded up to the rail's
 * currency: what the customer pays never falls short of the price.
 */
export async function checkoutPaylink(
  deps: Deps,
  slug: string,
  input: CheckoutInput,
): Promise<CheckoutResult> {
  // Read outside the transaction: the rails on offer and the merchant's settings.
  const { paylink, merchant } = await loadShop(deps, slug);
  // A suspension committing after this read lets this one checkout through: its payment is then held for
  // review when it arrives (domain/payins/review_holds.ts), like any pay-in paid after a suspension.
  await assertMerchantTakesPayments(deps, merchant);
  const rail = offeredRail(offeredRails(paylink, merchant.enabled_rails), input.paymentMethod);
  const to = RAIL_CURRENCY[rail];
  // Without a lock the live rate is read before the transaction (a feed never waits inside one).
  const liveRate = input.rateLockId ? null : await currentRate(deps, paylink.currency, to);
  const caller = merchantCaller(merchant, paylink.is_sandbox);
  // The deposit address is leased before the transaction and handed back if the checkout fails.
  const deposit = rail === "USDT_TRC20" ? await takeDepositAddress(deps, paylink.is_sandbox) : undefined;
  try {
    return await inTransaction();
  } catch (err) {
    if (deposit) returnDepositAddress(deps, paylink.is_sandbox, deposit);
    throw err;
  }

  async function inTransaction(): Promise<CheckoutResult> {
    return await deps.db.tx(async (tx) => {
      const txDeps: Deps = { ...deps, db: tx };
      const reserved = await reserveOrder(txDeps, {
        slug,
        items: input.items,
        promoCode: input.promoCode ?? null,
        amount: input.amount ?? null,
        clientAddress: input.clientAddress ?? null,
        customer: {
          email: input.customerEmail ?? null,
          name: input.customerName ?? null,
          phone: input.customerPhone ?? null,
          address: input.customerAddress ?? null,
        },
      });
      const order = reserved.order;
      const rate = input.rateLockId
        ? (await consumeLock(txDeps, {
          id: input.rateLockId,
          paylinkId: paylink.id,
          orderId: order.id,
          rail,
        })).rate
        : liveRate!.rate;
      const amount = roundAmount(new Decimal(order.total).times(rate), to, "up").toFixed();
      const common = {
        amount,
        // The price the customer was shown, and the rate that turned it into `amount` (1 when the same).
        pricing: {
          currency: paylink.currency,
          amount: formatAmount(order.total, paylink.currency as Currency),
          fxRate: new Decimal(rate).toFixed(),
        },
        successUrl: paylink.success_url ?? undefined,
        cancelUrl: paylink.cancel_url ?? `${deps.config.publicUrl}/pay/link/${paylink.slug}`,
        metadata: {
          paylinkId: paylink.id,
          orderId: order.id,
          description: describe(paylink.title, reserved.items),
        },
      };
      let payin: PayinRow;
      if (rail === "USDT_TRC20") {
        payin = (await createUsdtPayin(txDeps, caller, paylink.is_sandbox, common, deposit)).payin;
      } else {
        const fiat = {
          ...common,
          customerName: input.customerName,
          customerEmail: input.customerEmail,
          customerPhone: input.customerPhone,
          operatorCode: input.operatorCode,
        };
        payin = rail === "CARD"
          ? (await createCardPayin(txDeps, caller, paylink.is_sandbox, fiat)).payin
          : (await createMobileMoneyPayin(txDeps, caller, paylink.is_sandbox, fiat)).payin;
      }
      await attachPayin(txDeps, order.id, {
        payinId: payin.id,
        rail,
        payAmount: payin.amount,
        payCurrency: payin.currency,
        fxRate: new Decimal(rate).toFixed(),
      });
      return {
        orderId: order.id,
        transactionId: payin.id,
        address: payin.address,
        amount: payin.amount,
        amountExpected: payin.amount_expected,
        expiresAt: payin.expires_at.toISOString(),
        paymentMethod: rail,
        currency: payin.currency as Currency,
        checkoutUrl: `${deps.config.publicUrl}/checkout/${payin.id}`,
      };
    });
  }
}
