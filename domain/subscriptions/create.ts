// A RECURRING paylink's first paid checkout starts a subscription, in the transaction that marks the
// order paid (domain/payins/transition.ts): `subscription.created` with the first billing period, and the
// customer's welcome e-mail with the cancel link. Once per order, however often the paid move repeats.
import { findMerchant } from "../../db/merchants.ts";
import type { OrderRow } from "../../db/paylink_orders.ts";
import { listOrderItems } from "../../db/paylink_orders.ts";
import * as subsDb from "../../db/subscriptions.ts";
import type { Deps } from "../deps.ts";
import { emitEvent } from "../webhooks/events.ts";
import { newId } from "../ids.ts";
import { brandingOf } from "../merchants/branding.ts";
import { queueWelcomeMail } from "./mail.ts";
import { periodStart } from "./periods.ts";
import { subscriptionEventData } from "./view.ts";

/** Pay-in statuses that pay for a period in full: an underpaid one starts or renews nothing. */
export const FULLY_PAID = new Set(["CONFIRMED", "OVERPAID"]);

export type FollowDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log">;

function describe(title: string | null, items: Array<{ product_name: string; quantity: number }>): string {
  const lines = items.map((i) => `${i.quantity} × ${i.product_name}`).join(", ");
  return (title ? `${title}: ${lines}` : lines).slice(0, 200);
}

/**
 * Starts the subscription of `order` when its pay-in has just become `status` and its paylink is
 * RECURRING. The price of each renewal is the order's subtotal: a promo code applies to the first payment.
 */
export async function startSubscriptionOfOrder(
  deps: FollowDeps,
  order: OrderRow,
  status: string,
): Promise<subsDb.SubscriptionRow | undefined> {
  if (!FULLY_PAID.has(status)) return undefined;
  const paylink = await subsDb.findPaylinkSchedule(deps.db, order.paylink_id);
  if (!paylink || paylink.type !== "RECURRING" || !paylink.recurring_interval || !order.customer_email) {
    return undefined;
  }
  return await deps.db.tx(async (tx) => {
    const txDeps = { ...deps, db: tx };
    const now = deps.clock.now();
    const schedule = {
      anchor_at: now,
      anchor_index: 1,
      billing_interval: paylink.recurring_interval!,
      interval_count: paylink.recurring_interval_count ?? 1,
    };
    const items = await listOrderItems(tx, [order.id]);
    const end = periodStart(schedule, 2);
    const created = await subsDb.insertSubscription(tx, {
      id: newId("sub", now.getTime()),
      merchant_id: order.merchant_id,
      is_sandbox: order.is_sandbox,
      paylink_id: order.paylink_id,
      first_order_id: order.id,
      customer_email: order.customer_email!,
      customer_name: order.customer_name,
      customer_phone: order.customer_phone,
      currency: order.currency,
      amount: order.subtotal,
      description: describe(paylink.title, items),
      first_rail: order.rail as subsDb.SubscriptionRow["first_rail"],
      ...schedule,
      current_period_index: 1,
      current_period_start: now,
      current_period_end: end,
      next_period_index: 2,
      next_period_start: end,
      created_at: now,
    });
    if (!created) return undefined;
    await emitEvent(txDeps, {
      merchantId: created.merchant_id,
      isSandbox: created.is_sandbox,
      type: "subscription.created",
      data: subscriptionEventData(deps.config, created, { transactionId: order.payin_id }),
    });
    const merchant = await findMerchant(tx, created.merchant_id);
    await queueWelcomeMail(txDeps, created, merchant ? brandingOf(merchant).displayName : "");
    deps.log.info("subscription created", {
      subscriptionId: created.id,
      merchantId: created.merchant_id,
      mode: created.is_sandbox ? "sandbox" : "live",
    });
    return created;
  });
}
