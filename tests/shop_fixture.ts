// A paylink with products and promo codes written straight through db/paylinks.ts, so the shop's tests
// do not depend on the merchant routes' body shapes (the paylinks branch tests those).
import * as paylinksDb from "../db/paylinks.ts";
import { newId } from "../domain/ids.ts";
import type { TestGateway } from "./helpers.ts";

export type FixtureProduct = {
  name: string;
  price: string;
  productType?: "PHYSICAL" | "DIGITAL";
  digitalUrl?: string | null;
  stockEnabled?: boolean;
  stockQty?: number;
  lowStockThreshold?: number;
  description?: string;
};

export async function makePaylink(
  gw: TestGateway,
  merchantId: string,
  opts: {
    isSandbox?: boolean;
    slug?: string;
    title?: string;
    currency?: "USDT_TRC20" | "XOF";
    methods?: string[];
    products: FixtureProduct[];
    promos?: Array<
      { code: string; type: "PERCENT" | "FIXED"; value: string; maxUses?: number; expiresAt?: Date }
    >;
    fields?: paylinksDb.PaylinkFields;
  },
) {
  const now = gw.deps.clock.now();
  const isSandbox = opts.isSandbox ?? true;
  const paylink = await paylinksDb.insertPaylink(gw.db, {
    id: newId("plk"),
    merchantId,
    isSandbox,
    now,
    slug: opts.slug ?? `shop-${crypto.randomUUID().slice(0, 8)}`,
    title: opts.title ?? "Boutique Awa",
    currency: opts.currency ?? "XOF",
    accepted_methods: opts.methods ?? ["USDT_TRC20", "CARD", "MOBILE_MONEY"],
    ...opts.fields,
  });
  const products = await paylinksDb.insertProducts(
    gw.db,
    { id: paylink.id, merchantId, isSandbox },
    opts.products.map((p, i) => ({
      id: newId("prd"),
      name: p.name,
      description: p.description ?? "",
      price: p.price,
      productType: p.productType ?? "PHYSICAL",
      digitalUrl: p.digitalUrl ?? null,
      stockEnabled: p.stockEnabled ?? false,
      stockQty: p.stockQty ?? 0,
      lowStockThreshold: p.lowStockThreshold ?? 0,
      sortOrder: i,
    })),
    now,
  );
  const promos = [];
  for (const p of opts.promos ?? []) {
    promos.push(
      await paylinksDb.insertPromo(gw.db, {
        id: newId("prm"),
        paylinkId: paylink.id,
        merchantId,
        isSandbox,
        code: p.code,
        discountType: p.type,
        discountValue: p.value,
        maxUses: p.maxUses ?? null,
        expiresAt: p.expiresAt ?? null,
        now,
      }),
    );
  }
  products.sort((a, b) => a.sort_order - b.sort_order);
  return { paylink, products, promos };
}

export async function stockOf(gw: TestGateway, productId: string): Promise<number> {
  const [row] = await gw.db.query<{ stock_qty: number }>(
    "SELECT stock_qty FROM paylink_products WHERE id = $1",
    [productId],
  );
  return row.stock_qty;
}
