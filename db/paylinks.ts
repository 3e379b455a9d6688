// SQL for paylinks, their products, promo codes, templates and plan limits (migration 019). Every read
// a merchant makes is scoped by (merchant_id, is_sandbox); the public reads go by slug.
import type { Db } from "./mod.ts";

export type PaylinkRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  slug: string;
  name: string | null;
  title: string | null;
  description: string | null;
  type: "FIXED" | "VARIABLE" | "RECURRING";
  status: "ACTIVE" | "INACTIVE" | "EXPIRED" | "DEPLETED";
  currency: "USDT_TRC20" | "XOF";
  accepted_methods: string[];
  category: string | null;
  use_count: number;
  max_uses: number | null;
  orders_count: number;
  expires_at: Date | null;
  auto_disable_on_depletion: boolean;
  collect_email: string;
  collect_name: string;
  collect_phone: string;
  collect_address: string;
  recurring_interval: string | null;
  recurring_interval_count: number | null;
  brand_color: string | null;
  logo_url: string | null;
  cover_image_key: string | null;
  post_payment_action: string | null;
  success_url: string | null;
  cancel_url: string | null;
  fee_bearer: "MERCHANT" | "CLIENT";
  created_at: Date;
  updated_at: Date;
};

export type ProductRow = {
  id: string;
  paylink_id: string;
  merchant_id: string;
  is_sandbox: boolean;
  name: string;
  description: string;
  price: string;
  product_type: "PHYSICAL" | "DIGITAL";
  digital_url: string | null;
  image_key: string | null;
  stock_enabled: boolean;
  stock_qty: number;
  low_stock_threshold: number;
  sort_order: number;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type PromoRow = {
  id: string;
  paylink_id: string;
  merchant_id: string;
  is_sandbox: boolean;
  code: string;
  discount_type: "PERCENT" | "FIXED";
  discount_value: string;
  max_uses: number | null;
  use_count: number;
  expires_at: Date | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
};

export type TemplateRow = {
  id: string;
  merchant_id: string;
  is_sandbox: boolean;
  name: string;
  config: Record<string, unknown>;
  created_at: Date;
};

/** Paylink columns a create or update may write, by their SQL names. */
export type PaylinkFields = Partial<
  Omit<
    PaylinkRow,
    "id" | "merchant_id" | "is_sandbox" | "created_at" | "updated_at" | "use_count" | "orders_count"
  >
>;

const PAYLINK_WRITABLE: ReadonlyArray<keyof PaylinkFields> = [
  "slug",
  "name",
  "title",
  "description",
  "type",
  "status",
  "currency",
  "accepted_methods",
  "category",
  "max_uses",
  "expires_at",
  "auto_disable_on_depletion",
  "collect_email",
  "collect_name",
  "collect_phone",
  "collect_address",
  "recurring_interval",
  "recurring_interval_count",
  "brand_color",
  "logo_url",
  "cover_image_key",
  "post_payment_action",
  "success_url",
  "cancel_url",
  "fee_bearer",
];

function cast(column: keyof PaylinkFields): string {
  return column === "accepted_methods" ? "::text[]" : "";
}

export async function insertPaylink(
  db: Db,
  p: { id: string; merchantId: string; isSandbox: boolean; now: Date } & PaylinkFields,
): Promise<PaylinkRow> {
  const columns = PAYLINK_WRITABLE.filter((c) => p[c] !== undefined);
  const values = columns.map((c) => p[c]);
  const placeholders = columns.map((c, i) => `$${i + 5}${cast(c)}`);
  return (await db.query<PaylinkRow>(
    `INSERT INTO paylinks (id, merchant_id, is_sandbox, created_at, updated_at${
      columns.map((c) => `, ${c}`).join("")
    })
     VALUES ($1, $2, $3, $4, $4${placeholders.map((ph) => `, ${ph}`).join("")}) RETURNING *`,
    [p.id, p.merchantId, p.isSandbox, p.now, ...values],
  ))[0];
}

/** Writes the given columns (undefined: unchanged, null: cleared). */
export async function updatePaylink(
  db: Db,
  id: string,
  fields: PaylinkFields,
  now: Date,
): Promise<PaylinkRow> {
  const columns = PAYLINK_WRITABLE.filter((c) => fields[c] !== undefined);
  const sets = columns.map((c, i) => `${c} = $${i + 3}${cast(c)}`);
  return (await db.query<PaylinkRow>(
    `UPDATE paylinks SET updated_at = $2${sets.map((s) => `, ${s}`).join("")} WHERE id = $1 RETURNING *`,
    [id, now, ...columns.map((c) => fields[c])],
  ))[0];
}

export async function findPaylinkOf(
  db: Db,
  owner: { merchantId: string; isSandbox: boolean },
  id: string,
  options: { lock?: boolean } = {},
): Promise<PaylinkRow | undefined> {
  return (await db.query<PaylinkRow>(
    `SELECT * FROM paylinks WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3${
      options.lock ? " FOR UPDATE" : ""
    }`,
    [id, owner.merchantId, owner.isSandbox],
  ))[0];
}

export async function findPaylinkBySlug(
  db: Db,
  slug: string,
  options: { lock?: boolean } = {},
): Promise<PaylinkRow | undefined> {
  return (await db.query<PaylinkRow>(
    `SELECT * FROM paylinks WHERE slug = $1${options.lock ? " FOR UPDATE" : ""}`,
    [slug],
  ))[0];
}

export async function slugTaken(db: Db, slug: string): Promise<boolean> {
  return (await db.query("SELECT 1 FROM paylinks WHERE slug = $1", [slug])).length > 0;
}

export async function listPaylinksOf(
  db: Db,
  owner: { merchantId: string; isSandbox: boolean },
  page: { page: number; limit: number },
): Promise<{ rows: PaylinkRow[]; total: number }> {
  const rows = await db.query<PaylinkRow>(
    `SELECT * FROM paylinks WHERE merchant_id = $1 AND is_sandbox = $2
      ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
    [owner.merchantId, owner.isSandbox, page.limit, (page.page - 1) * page.limit],
  );
  return { rows, total: await countPaylinksOf(db, owner) };
}

export async function countPaylinksOf(db: Db, owner: { merchantId: string; isSandbox: boolean }) {
  const [row] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM paylinks WHERE merchant_id = $1 AND is_sandbox = $2",
    [owner.merchantId, owner.isSandbox],
  );
  return row.n;
}

/** Serializes paylink creations of one merchant (the plan limit check) until the transaction ends. */
export async function lockMerchantPaylinks(db: Db, merchantId: string): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock(hashtext('paylinks:' || $1))", [merchantId]);
}

export async function findPlanLimit(db: Db, merchantId: string): Promise<number | undefined> {
  return (await db.query<{ max_paylinks: number }>(
    "SELECT max_paylinks FROM paylink_plan_limits WHERE merchant_id = $1",
    [merchantId],
  ))[0]?.max_paylinks;
}

export async function upsertPlanLimit(db: Db, merchantId: string, maxPaylinks: number, now: Date) {
  await db.query(
    `INSERT INTO paylink_plan_limits (merchant_id, max_paylinks, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (merchant_id) DO UPDATE SET max_paylinks = EXCLUDED.max_paylinks, updated_at = EXCLUDED.updated_at`,
    [merchantId, maxPaylinks, now],
  );
}

// ---- products

export type NewProduct = {
  id: string;
  name: string;
  description: string;
  price: string;
  productType: "PHYSICAL" | "DIGITAL";
  digitalUrl: string | null;
  stockEnabled: boolean;
  stockQty: number;
  lowStockThreshold: number;
  sortOrder: number;
};

export async function insertProducts(
  db: Db,
  paylink: { id: string; merchantId: string; isSandbox: boolean },
  products: NewProduct[],
  now: Date,
): Promise<ProductRow[]> {
  if (products.length === 0) return [];
  return await db.query<ProductRow>(
    `INSERT INTO paylink_products (id, paylink_id, merchant_id, is_sandbox, name, description, price, product_type,
       digital_url, stock_enabled, stock_qty, low_stock_threshold, sort_order, created_at, updated_at)
     SELECT p.id, $1, $2, $3, p.name, p.description, p.price::numeric, p.product_type, p.digital_url,
            p.stock_enabled, p.stock_qty, p.low_stock_threshold, p.sort_order, $4, $4
       FROM jsonb_to_recordset($5::text::jsonb) AS p(id text, name text, description text, price text,
            product_type text, digital_url text, stock_enabled boolean, stock_qty integer,
            low_stock_threshold integer, sort_order integer)
     RETURNING *`,
    [
      paylink.id,
      paylink.merchantId,
      paylink.isSandbox,
      now,
      JSON.stringify(products.map((p) => ({
        id: p.id,
        name: p.name,
        description: p.description,
        price: p.price,
        product_type: p.productType,
        digital_url: p.digitalUrl,
        stock_enabled: p.stockEnabled,
        stock_qty: p.stockQty,
        low_stock_threshold: p.lowStockThreshold,
        sort_order: p.sortOrder,
      }))),
    ],
  );
}

/** The products on sale (not archived), in the order the customer sees them. */
export async function listProducts(db: Db, paylinkIds: string[]): Promise<ProductRow[]> {
  if (paylinkIds.length === 0) return [];
  return await db.query<ProductRow>(
    `SELECT * FROM paylink_products WHERE paylink_id = ANY($1::text[]) AND archived_at IS NULL
      ORDER BY sort_order, created_at, id`,
    [paylinkIds],
  );
}

export async function findProduct(
  db: Db,
  paylinkId: string,
  productId: string,
): Promise<ProductRow | undefined> {
  return (await db.query<ProductRow>(
    "SELECT * FROM paylink_products WHERE id = $1 AND paylink_id = $2 AND archived_at IS NULL",
    [productId, paylinkId],
  ))[0];
}

export type ProductFields = Partial<
  Pick<
    ProductRow,
    | "name"
    | "description"
    | "price"
    | "product_type"
    | "digital_url"
    | "image_key"
    | "stock_enabled"
    | "stock_qty"
    | "low_stock_threshold"
    | "sort_order"
  >
>;

const PRODUCT_WRITABLE: ReadonlyArray<keyof ProductFields> = [
  "name",
  "description",
  "price",
  "product_type",
  "digital_url",
  "image_key",
  "stock_enabled",
  "stock_qty",
  "low_stock_threshold",
  "sort_order",
];

export async function updateProduct(
  db: Db,
  paylinkId: string,
  productId: string,
  fields: ProductFields,
  now: Date,
): Promise<ProductRow | undefined> {
  const columns = PRODUCT_WRITABLE.filter((c) => fields[c] !== undefined);
  const sets = columns.map((c, i) => `${c} = $${i + 4}${c === "price" ? "::numeric" : ""}`);
  return (await db.query<ProductRow>(
    `UPDATE paylink_products SET updated_at = $3${sets.map((s) => `, ${s}`).join("")}
      WHERE id = $1 AND paylink_id = $2 AND archived_at IS NULL RETURNING *`,
    [productId, paylinkId, now, ...columns.map((c) => fields[c])],
  ))[0];
}

export async function archiveProduct(db: Db, paylinkId: string, productId: string, now: Date) {
  return (await db.query<ProductRow>(
    `UPDATE paylink_products SET archived_at = $3, updated_at = $3
      WHERE id = $1 AND paylink_id = $2 AND archived_at IS NULL RETURNING *`,
    [productId, paylinkId, now],
  ))[0];
}

/**
 * Takes `quantity` units of a product for an order, atomically: a product without stock tracking always
 * succeeds; one with stock only while enough is left. Undefined when it is not (or no longer) on sale or
 * short: two checkouts racing for the last unit cannot both get a row back.
 */
export async function takeStock(
  db: Db,
  paylinkId: string,
  productId: string,
  quantity: number,
  now: Date,
): Promise<ProductRow | undefined> {
  return (await db.query<ProductRow>(
    `UPDATE paylink_products
        SET stock_qty = CASE WHEN stock_enabled THEN stock_qty - $3 ELSE stock_qty END,
            updated_at = CASE WHEN stock_enabled THEN $4 ELSE updated_at END
      WHERE id = $1 AND paylink_id = $2 AND archived_at IS NULL AND (NOT stock_enabled OR stock_qty >= $3)
      RETURNING *`,
    [productId, paylinkId, quantity, now],
  ))[0];
}

/** Gives units back (an order released); archived products too, their count stays true. */
export async function returnStock(db: Db, productId: string, quantity: number, now: Date): Promise<void> {
  await db.query(
    "UPDATE paylink_products SET stock_qty = stock_qty + $2, updated_at = $3 WHERE id = $1 AND stock_enabled",
    [productId, quantity, now],
  );
}

/**
 * Takes back, for an order paid after its hold was released, up to `quantity` units of a product (on sale
 * or archived): what is left if fewer. Answers how many units were missing (0 when all were there).
 */
export async function retakeStock(db: Db, productId: string, quantity: number, now: Date): Promise<number> {
  const [before] = await db.query<{ stock_qty: number; stock_enabled: boolean }>(
    "SELECT stock_qty, stock_enabled FROM paylink_products WHERE id = $1 FOR UPDATE",
    [productId],
  );
  if (!before?.stock_enabled) return 0;
  await db.query(
    "UPDATE paylink_products SET stock_qty = GREATEST(stock_qty - $2, 0), updated_at = $3 WHERE id = $1",
    [productId, quantity, now],
  );
  return Math.max(0, quantity - before.stock_qty);
}

/** Whether nothing is left for sale: every product on sale tracks stock and has none left. */
export async function allTrackedStockGone(db: Db, paylinkId: string): Promise<boolean> {
  const [row] = await db.query<{ tracked: number; left: number }>(
    `SELECT count(*) FILTER (WHERE stock_enabled)::int AS tracked,
            count(*) FILTER (WHERE NOT stock_enabled OR stock_qty > 0)::int AS left
       FROM paylink_products WHERE paylink_id = $1 AND archived_at IS NULL`,
    [paylinkId],
  );
  return row.tracked > 0 && row.left === 0;
}

// ---- promo codes

export async function insertPromo(
  db: Db,
  p: {
    id: string;
    paylinkId: string;
    merchantId: string;
    isSandbox: boolean;
    code: string;
    discountType: string;
    discountValue: string;
    maxUses: number | null;
    expiresAt: Date | null;
    now: Date;
  },
): Promise<PromoRow> {
  return (await db.query<PromoRow>(
    `INSERT INTO paylink_promo_codes (id, paylink_id, merchant_id, is_sandbox, code, discount_type, discount_value,
       max_uses, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8, $9, $10, $10) RETURNING *`,
    [
      p.id,
      p.paylinkId,
      p.merchantId,
      p.isSandbox,
      p.code,
      p.discountType,
      p.discountValue,
      p.maxUses,
      p.expiresAt,
      p.now,
    ],
  ))[0];
}

export async function listPromos(db: Db, paylinkIds: string[]): Promise<PromoRow[]> {
  if (paylinkIds.length === 0) return [];
  return await db.query<PromoRow>(
    "SELECT * FROM paylink_promo_codes WHERE paylink_id = ANY($1::text[]) ORDER BY created_at, id",
    [paylinkIds],
  );
}

export async function findPromo(db: Db, paylinkId: string, promoId: string): Promise<PromoRow | undefined> {
  return (await db.query<PromoRow>(
    "SELECT * FROM paylink_promo_codes WHERE id = $1 AND paylink_id = $2",
    [promoId, paylinkId],
  ))[0];
}

/** The code on this paylink, locked for the redemption when `lock` (FOR UPDATE reads the latest count). */
export async function findPromoByCode(
  db: Db,
  paylinkId: string,
  code: string,
  options: { lock?: boolean } = {},
): Promise<PromoRow | undefined> {
  return (await db.query<PromoRow>(
    `SELECT * FROM paylink_promo_codes WHERE paylink_id = $1 AND code = $2${
      options.lock ? " FOR UPDATE" : ""
    }`,
    [paylinkId, code],
  ))[0];
}

export type PromoFields = Partial<
  Pick<PromoRow, "code" | "discount_type" | "discount_value" | "max_uses" | "expires_at" | "is_active">
>;

export async function updatePromo(
  db: Db,
  paylinkId: string,
  promoId: string,
  fields: PromoFields,
  now: Date,
): Promise<PromoRow | undefined> {
  const columns =
    (["code", "discount_type", "discount_value", "max_uses", "expires_at", "is_active"] as const)
      .filter((c) => fields[c] !== undefined);
  const sets = columns.map((c, i) => `${c} = $${i + 4}${c === "discount_value" ? "::numeric" : ""}`);
  return (await db.query<PromoRow>(
    `UPDATE paylink_promo_codes SET updated_at = $3${sets.map((s) => `, ${s}`).join("")}
      WHERE id = $1 AND paylink_id = $2 RETURNING *`,
    [promoId, paylinkId, now, ...columns.map((c) => fields[c])],
  ))[0];
}

export async function deletePromo(db: Db, paylinkId: string, promoId: string): Promise<boolean> {
  return (await db.query("DELETE FROM paylink_promo_codes WHERE id = $1 AND paylink_id = $2 RETURNING id", [
    promoId,
    paylinkId,
  ])).length > 0;
}

/** Counts one redemption unless the code is full; the row must be locked by findPromoByCode first. */
export async function countPromoUse(db: Db, promoId: string, now: Date): Promise<boolean> {
  return (await db.query(
    `UPDATE paylink_promo_codes SET use_count = use_count + 1, updated_at = $2
      WHERE id = $1 AND (max_uses IS NULL OR use_count < max_uses) RETURNING id`,
    [promoId, now],
  )).length > 0;
}

export async function returnPromoUse(db: Db, promoId: string, now: Date): Promise<void> {
  await db.query(
    "UPDATE paylink_promo_codes SET use_count = use_count - 1, updated_at = $2 WHERE id = $1 AND use_count > 0",
    [promoId, now],
  );
}

// ---- paylink uses and orders count

/** One more use and one more order unless maxUses is reached; the paylink row must be locked. */
export async function countPaylinkUse(db: Db, paylinkId: string, now: Date): Promise<PaylinkRow | undefined> {
  return (await db.query<PaylinkRow>(
    `UPDATE paylinks SET use_count = use_count + 1, orders_count = orders_count + 1, updated_at = $2
      WHERE id = $1 AND (max_uses IS NULL OR use_count < max_uses) RETURNING *`,
    [paylinkId, now],
  ))[0];
}

/** One more use (not one more order) unless maxUses is reached: an order paid after its release. */
export async function retakePaylinkUse(db: Db, paylinkId: string, now: Date): Promise<boolean> {
  return (await db.query(
    `UPDATE paylinks SET use_count = use_count + 1, updated_at = $2
      WHERE id = $1 AND (max_uses IS NULL OR use_count < max_uses) RETURNING id`,
    [paylinkId, now],
  )).length > 0;
}

export async function returnPaylinkUse(db: Db, paylinkId: string, now: Date): Promise<PaylinkRow> {
  return (await db.query<PaylinkRow>(
    `UPDATE paylinks SET use_count = GREATEST(use_count - 1, 0), updated_at = $2 WHERE id = $1 RETURNING *`,
    [paylinkId, now],
  ))[0];
}

// ---- templates

export async function insertTemplate(
  db: Db,
  t: { id: string; merchantId: string; isSandbox: boolean; name: string; config: object; now: Date },
): Promise<TemplateRow> {
  return (await db.query<TemplateRow>(
    `INSERT INTO paylink_templates (id, merchant_id, is_sandbox, name, config, created_at)
     VALUES ($1, $2, $3, $4, $5::text::jsonb, $6) RETURNING *`,
    [t.id, t.merchantId, t.isSandbox, t.name, JSON.stringify(t.config), t.now],
  ))[0];
}

export async function listTemplatesOf(
  db: Db,
  owner: { merchantId: string; isSandbox: boolean },
  page: { page: number; limit: number },
): Promise<{ rows: TemplateRow[]; total: number }> {
  const rows = await db.query<TemplateRow>(
    `SELECT * FROM paylink_templates WHERE merchant_id = $1 AND is_sandbox = $2
      ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
    [owner.merchantId, owner.isSandbox, page.limit, (page.page - 1) * page.limit],
  );
  const [count] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM paylink_templates WHERE merchant_id = $1 AND is_sandbox = $2",
    [owner.merchantId, owner.isSandbox],
  );
  return { rows, total: count.n };
}

export async function deleteTemplate(
  db: Db,
  owner: { merchantId: string; isSandbox: boolean },
  id: string,
): Promise<boolean> {
  return (await db.query(
    "DELETE FROM paylink_templates WHERE id = $1 AND merchant_id = $2 AND is_sandbox = $3 RETURNING id",
    [id, owner.merchantId, owner.isSandbox],
  )).length > 0;
}
