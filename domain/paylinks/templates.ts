// Templates: a paylink's settings, branding and products kept under a name, to create paylinks from.
// Never orders, uses or promo codes.
import * as db from "../../db/paylinks.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isWellFormedId, newId } from "../ids.ts";
import type { ProductShapeInput } from "./create.ts";
import { getPaylink, type Owner } from "./queries.ts";
import { plainDecimal } from "./view.ts";

type D = Pick<Deps, "db" | "clock">;

export async function createTemplate(
  deps: D,
  owner: Owner,
  input: { name: string; config: ProductShapeInput },
) {
  return await db.insertTemplate(deps.db, {
    id: newId("tpl", deps.clock.now().getTime()),
    ...owner,
    name: input.name,
    config: input.config,
    now: deps.clock.now(),
  });
}

export async function listTemplates(
  deps: Pick<Deps, "db">,
  owner: Owner,
  page: { page: number; limit: number },
) {
  return await db.listTemplatesOf(deps.db, owner, page);
}

export async function deleteTemplate(deps: Pick<Deps, "db">, owner: Owner, id: string) {
  if (!isWellFormedId("tpl", id) || !await db.deleteTemplate(deps.db, owner, id)) {
    throw new AppError("NOT_FOUND", "No such template");
  }
}

/** The paylink's creation fields as they are now: what POST /v1/paylinks would take to make a twin. */
export async function saveAsTemplate(deps: D, owner: Owner, paylinkId: string, name?: string) {
  const { paylink: p, products } = await getPaylink(deps, owner, paylinkId);
  const config: ProductShapeInput = {
    name: p.name,
    title: p.title,
    description: p.description,
    type: p.type,
    currency: p.currency,
    category: p.category,
    acceptedMethods: p.accepted_methods,
    maxUses: p.max_uses,
    autoDisableOnDepletion: p.auto_disable_on_depletion,
    collectEmail: p.collect_email as never,
    collectName: p.collect_name as never,
    collectPhone: p.collect_phone as never,
    collectAddress: p.collect_address as never,
    recurringInterval: p.recurring_interval as never,
    recurringIntervalCount: p.recurring_interval_count,
    brandColor: p.brand_color,
    logoUrl: p.logo_url,
    postPaymentAction: p.post_payment_action,
    successUrl: p.success_url,
    cancelUrl: p.cancel_url,
    feeBearer: p.fee_bearer,
    products: products.map((x) => ({
      name: x.name,
      description: x.description,
      price: plainDecimal(x.price),
      productType: x.product_type,
      digitalUrl: x.digital_url,
      stockEnabled: x.stock_enabled,
      stockQty: x.stock_qty,
      lowStockThreshold: x.low_stock_threshold,
      sortOrder: x.sort_order,
    })),
  };
  // Nulls are left out, so the config is a valid creation body as it stands.
  const clean = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== null)) as ProductShapeInput;
  clean.products = config.products.map((x) =>
    Object.fromEntries(Object.entries(x).filter(([, v]) => v !== null)) as typeof x
  );
  return await createTemplate(deps, owner, {
    name: name ?? `${p.title ?? p.name ?? p.slug} template`,
    config: clean,
  });
}
