// Changing a paylink after creation (PATCH) and its products (add, change, remove). The currency is
// fixed once products exist (CANNOT_CHANGE_CURRENCY_AFTER_PRODUCTS); the slug and type never change.
import * as db from "../../db/paylinks.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { Currency } from "../money.ts";
import {
  checkExpiry,
  checkProducts,
  type PaylinkSettings,
  type ProductInput,
  productRows,
  recurringProblem,
  settingsColumns,
} from "./create.ts";
import { acceptedRails, checkStoredCurrencyPrice, conflict, refuse } from "./input.ts";
import { getPaylink, getPaylinkRow, type Owner } from "./queries.ts";
import { assertPaylinkMove, effectiveStatus } from "./states.ts";
import type { PaylinkWithChildren } from "./view.ts";

export type PaylinkPatch = Omit<PaylinkSettings, "slug" | "type"> & { status?: "ACTIVE" | "INACTIVE" };

type D = Pick<Deps, "db" | "clock">;

/** Whether the paylink can take an order now as far as uses and stock go. */
async function hasRoom(tx: D["db"], p: db.PaylinkRow): Promise<boolean> {
  if (p.max_uses !== null && p.use_count >= p.max_uses) return false;
  return !(p.auto_disable_on_depletion && await db.allTrackedStockGone(tx, p.id));
}

/** Re-derives DEPLETED/ACTIVE after a change of maxUses, stock or autoDisableOnDepletion. */
async function settleDepletion(deps: D & { db: D["db"] }, p: db.PaylinkRow): Promise<void> {
  if (p.status !== "ACTIVE" && p.status !== "DEPLETED") return;
  const room = await hasRoom(deps.db, p);
  const next = room ? "ACTIVE" : "DEPLETED";
  if (next !== p.status) await db.updatePaylink(deps.db, p.id, { status: next }, deps.clock.now());
}

export async function updatePaylink(
  deps: D,
  caller: Owner & Pick<Caller, "enabledRails">,
  id: string,
  patch: PaylinkPatch,
): Promise<PaylinkWithChildren> {
  await deps.db.tx(async (tx) => {
    const now = deps.clock.now();
    const row = await getPaylinkRow({ db: tx }, caller, id, { lock: true });
    if (patch.currency !== undefined && patch.currency !== row.currency) {
      if ((await db.listProducts(tx, [row.id])).length > 0) {
        throw new AppError(
          "CANNOT_CHANGE_CURRENCY_AFTER_PRODUCTS",
          `This paylink's prices are in ${row.currency}; its currency cannot change once it has products`,
        );
      }
    }
    // The type never changes, so whether an interval fits is the stored paylink's question: CONFLICT.
    const interval = patch.recurringInterval === undefined ? row.recurring_interval : patch.recurringInterval;
    const recurring = recurringProblem(row.type, interval);
    if (recurring) conflict([{ ...recurring, reason: `${recurring.reason} (this one is ${row.type})` }]);
    checkExpiry(patch, now);
    if (patch.maxUses !== undefined && patch.maxUses !== null && patch.maxUses < row.use_count) {
      conflict([{ field: "maxUses", reason: `${row.use_count} uses are already taken` }]);
    }
    const fields = settingsColumns(patch);
    if (patch.acceptedMethods !== undefined) {
      fields.accepted_methods = acceptedRails(patch.acceptedMethods, caller.enabledRails);
    }
    let updated = await db.updatePaylink(tx, row.id, fields, now);
    if (patch.status !== undefined) {
      const current = effectiveStatus(row, now);
      const after = effectiveStatus(updated, now);
      if (patch.status === "ACTIVE" && after === "EXPIRED") {
        throw new AppError(
          "INVALID_STATE",
          "This paylink's expiresAt has passed: move it into the future first",
        );
      }
      assertPaylinkMove(current, patch.status, "merchant");
      if (patch.status === "ACTIVE" && !await hasRoom(tx, updated)) {
        throw new AppError(
          "INVALID_STATE",
          "This paylink has no uses or stock left: raise maxUses or stock first",
        );
      }
      updated = await db.updatePaylink(tx, row.id, { status: patch.status }, now);
    }
    await settleDepletion({ ...deps, db: tx }, updated);
  });
  return await getPaylink(deps, caller, id);
}

export type ProductPatch = Partial<ProductInput>;

export async function addProduct(deps: D, owner: Owner, paylinkId: string, input: ProductInput) {
  return await deps.db.tx(async (tx) => {
    const now = deps.clock.now();
    const paylink = await getPaylinkRow({ db: tx }, owner, paylinkId, { lock: true });
    checkStoredCurrencyPrice("price", input.price, paylink.currency as Currency);
    checkProducts([input], "USDT_TRC20", "product");
    const existing = await db.listProducts(tx, [paylink.id]);
    const [row] = productRows([input], now);
    const [product] = await db.insertProducts(tx, { id: paylink.id, ...owner }, [{
      ...row,
      sortOrder: input.sortOrder ?? existing.length,
    }], now);
    await settleDepletion({ ...deps, db: tx }, paylink);
    return product;
  });
}

/** Stock is set as what is left for sale now (stockQty >= 0); a price change applies to new orders. */
export async function updateProduct(
  deps: D,
  owner: Owner,
  paylinkId: string,
  productId: string,
  patch: ProductPatch,
) {
  return await deps.db.tx(async (tx) => {
    const now = deps.clock.now();
    const paylink = await getPaylinkRow({ db: tx }, owner, paylinkId, { lock: true });
    const current = await db.findProduct(tx, paylink.id, productId);
    if (!current) throw new AppError("NOT_FOUND", "No such product on this paylink");
    if (patch.price !== undefined) {
      checkStoredCurrencyPrice("price", patch.price, paylink.currency as Currency);
    }
    const type = patch.productType ?? current.product_type;
    if (type !== "DIGITAL" && (patch.digitalUrl ?? (patch.productType ? null : current.digital_url))) {
      // A PHYSICAL productType beside a link is the body's contradiction; a link for a product stored
      // PHYSICAL is state.
      const problem = { field: "digitalUrl", reason: `only DIGITAL products have one; this one is ${type}` };
      if (patch.productType) refuse([problem]);
      conflict([problem]);
    }
    const product = await db.updateProduct(tx, paylink.id, productId, {
      name: patch.name,
      description: patch.description,
      price: patch.price,
      product_type: patch.productType,
      digital_url: patch.digitalUrl === undefined
        ? (type === "DIGITAL" ? undefined : null)
        : patch.digitalUrl,
      stock_enabled: patch.stockEnabled ?? (patch.stockQty !== undefined ? true : undefined),
      stock_qty: patch.stockQty,
      low_stock_threshold: patch.lowStockThreshold,
      sort_order: patch.sortOrder,
    }, now);
    await settleDepletion({ ...deps, db: tx }, paylink);
    return product!;
  });
}

/** Removes a product from sale (kept for the orders naming it); the last one cannot go: PAYLINK_EMPTY. */
export async function removeProduct(deps: D, owner: Owner, paylinkId: string, productId: string) {
  await deps.db.tx(async (tx) => {
    const paylink = await getPaylinkRow({ db: tx }, owner, paylinkId, { lock: true });
    const products = await db.listProducts(tx, [paylink.id]);
    if (!products.some((p) => p.id === productId)) {
      throw new AppError("NOT_FOUND", "No such product on this paylink");
    }
    if (products.length === 1) throw new AppError("PAYLINK_EMPTY", "A paylink keeps at least one product");
    await db.archiveProduct(tx, paylink.id, productId, deps.clock.now());
    await settleDepletion({ ...deps, db: tx }, paylink);
  });
}
