// What the public checkout calls inside its own transaction: reserve the order (paylink use, stock,
// promo redemption, order and items), attach the pay-in, and give everything back exactly once when the
// pay-in expires or fails, or when the hold (CHECKOUT_HOLD_MINUTES) ends unpaid. Each reservation is one
// conditional UPDATE, so two checkouts racing for the last unit or the last use of a code cannot both
// win, on PGlite as on PostgreSQL. One client address holds at most a small share at once (holdCap).
import * as db from "../../db/paylinks.ts";
import * as orders from "../../db/paylink_orders.ts";
import { AppError, type FieldProblem } from "../errors.ts";
import { newId } from "../ids.ts";
import { type Currency, Decimal } from "../money.ts";
import { assertPromoUsable, discountOf, normalizeCode, PROMO_CODE_PATTERN } from "./promo_rules.ts";
import { SLUG_PATTERN } from "./queries.ts";
import { effectiveStatus } from "./states.ts";
import { chosenSubtotal } from "./variable.ts";
import { holdCap, type HoldDeps, holdMs, holdRefused, retakeReleased } from "./holds.ts";

type TxDeps = HoldDeps;

export const MAX_ORDER_LINES = 50;
export const MAX_LINE_QUANTITY = 1000;

export type CheckoutItem = { productId: string; quantity: number };
export type CheckoutCustomer = {
  email?: string | null;
  name?: string | null;
  phone?: string | null;
  address?: string | null;
};

export type ReservedOrder = {
  paylink: db.PaylinkRow;
  order: orders.OrderRow;
  items: orders.OrderItemRow[];
  /** Products as they are after the reservation (stock left). */
  products: db.ProductRow[];
};

function invalid(details: FieldProblem[]): never {
  throw new AppError(
    "VALIDATION_ERROR",
    `Validation failed: ${details.map((d) => `${d.field}: ${d.reason}`).join("; ")}`,
    {
      details,
    },
  );
}

/**
 * A cart line naming a product the paylink does not sell (never had, or archived): which products exist
 * is state, so NOT_FOUND naming the line, not a validation error.
 */
export function noSuchProduct(line: number, productId: string): AppError {
  return new AppError("NOT_FOUND", `No product ${productId.slice(0, 64)} on this paylink`, {
    details: [{ field: `items.${line}.productId`, reason: "no such product on this paylink" }],
  });
}

/** Same product on two lines counts as one line; quantities are whole, 1 to MAX_LINE_QUANTITY. */
function mergeItems(items: CheckoutItem[]): CheckoutItem[] {
  if (items.length === 0) invalid([{ field: "items", reason: "at least one item is required" }]);
  const merged = new Map<string, number>();
  items.forEach((item, i) => {
    if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > MAX_LINE_QUANTITY) {
      invalid([{ field: `items.${i}.quantity`, reason: `a whole number from 1 to ${MAX_LINE_QUANTITY}` }]);
    }
    merged.set(item.productId, (merged.get(item.productId) ?? 0) + item.quantity);
  });
  if (merged.size > MAX_ORDER_LINES) {
    invalid([{ field: "items", reason: `at most ${MAX_ORDER_LINES} products` }]);
  }
  // Locked in id order, so two carts naming the same products never deadlock.
  return [...merged].map(([productId, quantity]) => ({ productId, quantity }))
    .sort((a, b) => a.productId < b.productId ? -1 : 1);
}

function checkCustomer(paylink: db.PaylinkRow, products: db.ProductRow[], customer: CheckoutCustomer) {
  const problems: FieldProblem[] = [];
  const needsEmail = paylink.type === "RECURRING" || products.some((p) => p.product_type === "DIGITAL");
  const wanted: Array<[keyof CheckoutCustomer, string, string]> = [
    ["email", "customerEmail", needsEmail ? "REQUIRED" : paylink.collect_email],
    ["name", "customerName", paylink.collect_name],
    ["phone", "customerPhone", paylink.collect_phone],
    ["address", "customerAddress", paylink.collect_address],
  ];
  for (const [key, field, rule] of wanted) {
    if (rule === "REQUIRED" && !customer[key]?.trim()) {
      problems.push({ field, reason: "required by this paylink" });
    }
  }
  if (problems.length > 0) invalid(problems);
}

/**
 * Reserves an order on the paylink `slug`: one use of the paylink (maxUses), the items' stock, and the
 * promo code's redemption (the four errors checked again at submission), then writes the order and its
 * lines. Joins the caller's transaction: if the pay-in creation that follows fails, all of it rolls back.
 */
export async function reserveOrder(
  deps: TxDeps,
  input: {
    slug: string;
    items: CheckoutItem[];
    promoCode?: string | null;
    /** A VARIABLE paylink's amount chosen by the customer (domain/paylinks/variable.ts). */
    amount?: string | null;
    customer: CheckoutCustomer;
    /** The public routes' client address; null (a domain caller) holds without the per-client bound. */
    clientAddress?: string | null;
  },
): Promise<ReservedOrder> {
  const lines = mergeItems(input.items);
  return await deps.db.tx(async (tx) => {
    const now = deps.clock.now();
    const found = SLUG_PATTERN.test(input.slug) ? await db.findPaylinkBySlug(tx, input.slug) : undefined;
    if (!found) throw new AppError("NOT_FOUND", "No such paylink");
    // The use is counted first: it locks the paylink row, so the checks below see a settled state (a
    // refusal rolls the count back with everything else).
    const counted = await db.countPaylinkUse(tx, found.id, now);
    const status = counted ? effectiveStatus(counted, now) : "DEPLETED";
    if (!counted || status !== "ACTIVE") {
      throw new AppError("INVALID_STATE", `This paylink is not taking orders (${status})`, {
        reason: `PAYLINK_${status}`,
      });
    }
    let paylink = counted;
    const client = input.clientAddress ?? null;
    // Read under the paylink's lock: concurrent checkouts of this paylink see each other's holds.
    const held = client === null ? undefined : await orders.heldOnPaylink(tx, paylink.id, client);
    if (held && paylink.max_uses !== null && held.orders + 1 > holdCap(paylink.max_uses)) {
      holdRefused(
        "This address already holds unpaid orders on this paylink; pay them or wait until they end",
        "items",
        `at most ${holdCap(paylink.max_uses)} unpaid order(s) at once`,
      );
    }
    const taken: db.ProductRow[] = [];
    for (const [i, line] of lines.entries()) {
      const product = await db.takeStock(tx, paylink.id, line.productId, line.quantity, now);
      if (product?.stock_enabled && held) {
        // Unsold stock: what is still for sale before this order, plus what unpaid orders hold.
        const holding = held.units.get(product.id) ?? { all: 0, mine: 0 };
        const cap = holdCap(product.stock_qty + line.quantity + holding.all);
        if (holding.mine + line.quantity > cap) {
          holdRefused(
            `At most ${cap} of "${product.name}" may be held unpaid at once from one address`,
            `items.${i}.quantity`,
            `${holding.mine} already held unpaid, at most ${cap}`,
          );
        }
      }
      if (!product) {
        const exists = await db.findProduct(tx, paylink.id, line.productId);
        if (!exists) throw noSuchProduct(i, line.productId);
        throw new AppError(
          "CONFLICT",
          `Only ${exists.stock_qty} of "${exists.name}" left`,
          {
            reason: "OUT_OF_STOCK",
            details: [{ field: `items.${i}.quantity`, reason: `${exists.stock_qty} left` }],
          },
        );
      }
      taken.push(product);
    }
    checkCustomer(paylink, taken, input.customer);
    const currency = paylink.currency as Currency;
    const priced = lines.map((line, i) => {
      const unit = new Decimal(taken[i].price);
      return { ...line, product: taken[i], unit, lineTotal: unit.times(line.quantity) };
    });
    const cartPrice = priced.reduce((sum, l) => sum.plus(l.lineTotal), new Decimal(0));
    const subtotal = chosenSubtotal(paylink.type, currency, cartPrice, input.amount);
    let discount = new Decimal(0);
    let promo: db.PromoRow | undefined;
    if (input.promoCode) {
      const code = normalizeCode(input.promoCode);
      promo = PROMO_CODE_PATTERN.test(code)
        ? await db.findPromoByCode(tx, paylink.id, code, { lock: true })
        : undefined;
      assertPromoUsable(promo, now);
      discount = discountOf(promo, subtotal, currency);
      if (!await db.countPromoUse(tx, promo.id, now)) {
        throw new AppError("PROMO_CODE_USAGE_LIMIT_REACHED", "This promo code has reached its usage limit");
      }
      // Only a code with uses left gets here: a used-up one says so, whoever holds its uses.
      const mine = held?.promoUses.get(promo.id) ?? 0;
      if (held && promo.max_uses !== null && mine + 1 > holdCap(promo.max_uses)) {
        holdRefused(
          "This address already holds this promo code on an unpaid order; pay it or wait until it ends",
          "promoCode",
          `at most ${holdCap(promo.max_uses)} use(s) held unpaid at once`,
        );
      }
    }
    const { order, items } = await orders.insertOrder(tx, {
      id: newId("ord", now.getTime()),
      paylinkId: paylink.id,
      merchantId: paylink.merchant_id,
      isSandbox: paylink.is_sandbox,
      customer: input.customer,
      currency,
      subtotal: subtotal.toFixed(),
      discount: discount.toFixed(),
      total: subtotal.minus(discount).toFixed(),
      promoCodeId: promo?.id ?? null,
      promoCode: promo?.code ?? null,
      clientAddress: client,
      holdUntil: new Date(now.getTime() + holdMs(deps)),
      items: priced.map((l) => ({
        productId: l.productId,
        productName: l.product.name,
        quantity: l.quantity,
        unitPrice: l.unit.toFixed(),
        lineTotal: l.lineTotal.toFixed(),
        stockReserved: l.product.stock_enabled,
      })),
      now,
    });
    const usedUp = paylink.max_uses !== null && paylink.use_count >= paylink.max_uses;
    if (usedUp || (paylink.auto_disable_on_depletion && await db.allTrackedStockGone(tx, paylink.id))) {
      paylink = await db.updatePaylink(tx, paylink.id, { status: "DEPLETED" }, now);
    }
    return { paylink, order, items, products: taken };
  });
}

/** Records the pay-in the checkout created for a reserved order (once). */
export async function attachPayin(
  deps: TxDeps,
  orderId: string,
  payin: { payinId: string; rail: string; payAmount: string; payCurrency: string; fxRate?: string | null },
): Promise<orders.OrderRow> {
  const row = await orders.setOrderPayin(deps.db, orderId, {
    ...payin,
    fxRate: payin.fxRate ?? null,
    now: deps.clock.now(),
  });
  if (!row) throw new AppError("CONFLICT", "This order already has a pay-in");
  return row;
}

/**
 * Gives back what an order held (stock, the promo code's use, the paylink's use), exactly once, and
 * records `status`. A DEPLETED paylink that has room again returns to ACTIVE. Safe to call twice or from
 * two processes: the order row is locked and `released_at` is set in the same transaction.
 */
export async function releaseOrder(
  deps: TxDeps,
  orderId: string,
  status: string,
): Promise<orders.OrderRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const now = deps.clock.now();
    const order = await orders.findOrder(tx, orderId, { lock: true });
    if (!order) return undefined;
    // Released earlier (its hold ended): nothing to give back twice, the status still follows the pay-in.
    if (order.released_at) {
      return order.status === status ? order : await orders.setOrderStatus(tx, order.id, status, now);
    }
    const items = await orders.listOrderItems(tx, [order.id]);
    for (const item of [...items].sort((a, b) => a.product_id < b.product_id ? -1 : 1)) {
      if (item.stock_reserved) await db.returnStock(tx, item.product_id, item.quantity, now);
    }
    if (order.promo_code_id) await db.returnPromoUse(tx, order.promo_code_id, now);
    const paylink = await db.returnPaylinkUse(tx, order.paylink_id, now);
    if (paylink.status === "DEPLETED") {
      const roomInUses = paylink.max_uses === null || paylink.use_count < paylink.max_uses;
      const stockGone = paylink.auto_disable_on_depletion && await db.allTrackedStockGone(tx, paylink.id);
      if (roomInUses && !stockGone) await db.updatePaylink(tx, paylink.id, { status: "ACTIVE" }, now);
    }
    return await orders.setOrderStatus(tx, order.id, status, now, { released: true });
  });
}

const ENDED_WITHOUT_MONEY = new Set(["EXPIRED", "FAILED"]);
const PAID = new Set(["CONFIRMED", "OVERPAID", "UNDERPAID"]);

/**
 * Makes the order of `payinId` follow its pay-in's new status: paid statuses stamp `paidAt` (and take back
 * what a released hold gave away), an expired or failed pay-in releases the reservation. No order: nothing
 * to do (a plain pay-in).
 */
export async function followPayin(
  deps: TxDeps,
  payinId: string,
  status: string,
): Promise<orders.OrderRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const txDeps = { ...deps, db: tx };
    const order = await orders.findOrderByPayin(tx, payinId, { lock: true });
    if (!order) return undefined;
    if (ENDED_WITHOUT_MONEY.has(status)) return await releaseOrder(txDeps, order.id, status);
    const paid = PAID.has(status);
    if (paid && order.released_at && !order.paid_at) {
      await retakeReleased(txDeps, order);
      deps.log?.warn("paylink order paid after its hold was released", { orderId: order.id, payinId });
    }
    return await orders.setOrderStatus(tx, order.id, status, deps.clock.now(), { paid });
  });
}

/**
 * The cron's pass (every minute): releases orders whose pay-in expired or failed without the checkout
 * being told, and unpaid orders whose hold ended. Returns how many were released.
 */
export async function releaseEndedOrders(deps: TxDeps, limit = 200): Promise<number> {
  const ids = await orders.listOrdersToRelease(deps.db, deps.clock.now(), limit);
  for (const id of ids) {
    const order = await orders.findOrder(deps.db, id);
    const status = order?.payin_id ? await orders.payinStatus(deps.db, order.payin_id) : "EXPIRED";
    await releaseOrder(deps, id, status ?? "EXPIRED");
  }
  return ids.length;
}
