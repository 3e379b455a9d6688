// How long and how much an unpaid paylink order may hold (issue 18): the hold time (CHECKOUT_HOLD_MINUTES),
// the share of a product's unsold stock or of a code's or paylink's uses one client address may hold at
// once, and what an order paid after its hold was released takes back.
import * as db from "../../db/paylinks.ts";
import * as orders from "../../db/paylink_orders.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";

export type HoldDeps = Pick<Deps, "db" | "clock"> & {
  config?: Pick<Deps["config"], "checkoutHoldMinutes">;
  log?: Deps["log"];
};

/** How long an unpaid order holds what it reserved when the configuration does not say. */
export const DEFAULT_CHECKOUT_HOLD_MINUTES = 10;
/** The share of a product's unsold stock, of a code's uses or of a paylink's uses one client may hold. */
export const CLIENT_HOLD_SHARE = 0.2;

/** At most max(1, floor(20 % of `total`)) held unpaid by one client address at once. */
export function holdCap(total: number): number {
  return Math.max(1, Math.floor(total * CLIENT_HOLD_SHARE));
}

export function holdMs(deps: HoldDeps): number {
  return (deps.config?.checkoutHoldMinutes ?? DEFAULT_CHECKOUT_HOLD_MINUTES) * 60_000;
}

export function holdRefused(message: string, field: string, reason: string): never {
  throw new AppError("CONFLICT", message, { reason: "HOLD_LIMIT_REACHED", details: [{ field, reason }] });
}

/**
 * An order paid after its hold was released takes back what it can: its units (what is left of each when
 * fewer; a shortfall marks the order `oversold` for the merchant, stock never goes below 0), the promo
 * code's use and the paylink's use (each only if there is room: the price was agreed at checkout). The
 * payment itself is never refused: the order is paid as any other.
 */
export async function retakeReleased(deps: HoldDeps, order: orders.OrderRow): Promise<void> {
  const now = deps.clock.now();
  // The checkout's lock order: the paylink, then its products in id order, then the promo code.
  await db.retakePaylinkUse(deps.db, order.paylink_id, now);
  const items = await orders.listOrderItems(deps.db, [order.id]);
  let missing = 0;
  for (const item of [...items].sort((a, b) => a.product_id < b.product_id ? -1 : 1)) {
    if (item.stock_reserved) missing += await db.retakeStock(deps.db, item.product_id, item.quantity, now);
  }
  if (order.promo_code_id) await db.countPromoUse(deps.db, order.promo_code_id, now);
  const paylink = await db.findPaylinkOf(
    deps.db,
    { merchantId: order.merchant_id, isSandbox: order.is_sandbox },
    order.paylink_id,
  );
  if (paylink?.status === "ACTIVE") {
    const usedUp = paylink.max_uses !== null && paylink.use_count >= paylink.max_uses;
    if (usedUp || (paylink.auto_disable_on_depletion && await db.allTrackedStockGone(deps.db, paylink.id))) {
      await db.updatePaylink(deps.db, paylink.id, { status: "DEPLETED" }, now);
    }
  }
  if (missing > 0) await orders.markOversold(deps.db, order.id, now);
}
