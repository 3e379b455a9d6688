-- Paylinks: shareable payment links with products (and their stock), promo codes, templates, images,
-- and the orders customers place on them. Every table carries merchant_id and is_sandbox so a sandbox
-- reset and every merchant-scoped read filter on one index.

CREATE TABLE paylinks (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  -- Unique across the gateway: it is the public address /pay/link/<slug>.
  slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9](?:[a-z0-9-]{1,62}[a-z0-9])$'),
  name text,
  title text,
  description text,
  type text NOT NULL DEFAULT 'FIXED' CHECK (type IN ('FIXED', 'VARIABLE', 'RECURRING')),
  status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'INACTIVE', 'EXPIRED', 'DEPLETED')),
  currency text NOT NULL CHECK (currency IN ('USDT_TRC20', 'XOF')),
  accepted_methods text[] NOT NULL,
  category text,
  -- use_count: checkouts holding or having used a use (released when their pay-in expires or fails).
  use_count integer NOT NULL DEFAULT 0 CHECK (use_count >= 0),
  max_uses integer CHECK (max_uses > 0),
  orders_count integer NOT NULL DEFAULT 0 CHECK (orders_count >= 0),
  expires_at timestamptz,
  auto_disable_on_depletion boolean NOT NULL DEFAULT false,
  collect_email text NOT NULL DEFAULT 'HIDDEN' CHECK (collect_email IN ('HIDDEN', 'OPTIONAL', 'REQUIRED')),
  collect_name text NOT NULL DEFAULT 'HIDDEN' CHECK (collect_name IN ('HIDDEN', 'OPTIONAL', 'REQUIRED')),
  collect_phone text NOT NULL DEFAULT 'HIDDEN' CHECK (collect_phone IN ('HIDDEN', 'OPTIONAL', 'REQUIRED')),
  collect_address text NOT NULL DEFAULT 'HIDDEN' CHECK (collect_address IN ('HIDDEN', 'OPTIONAL', 'REQUIRED')),
  recurring_interval text CHECK (recurring_interval IN ('WEEKLY', 'MONTHLY', 'YEARLY')),
  recurring_interval_count integer CHECK (recurring_interval_count BETWEEN 1 AND 52),
  brand_color text,
  logo_url text,
  cover_image_key text,
  post_payment_action text,
  success_url text,
  cancel_url text,
  fee_bearer text NOT NULL DEFAULT 'MERCHANT' CHECK (fee_bearer IN ('MERCHANT', 'CLIENT')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT paylink_uses_within_max CHECK (max_uses IS NULL OR use_count <= max_uses)
);
CREATE INDEX paylinks_by_merchant ON paylinks (merchant_id, is_sandbox, created_at DESC, id DESC);

CREATE TABLE paylink_products (
  id text PRIMARY KEY,
  paylink_id text NOT NULL REFERENCES paylinks(id) ON DELETE CASCADE,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  -- In the paylink's currency (its display currency), never a JS number.
  price numeric NOT NULL CHECK (price > 0),
  product_type text NOT NULL DEFAULT 'PHYSICAL' CHECK (product_type IN ('PHYSICAL', 'DIGITAL')),
  digital_url text,
  image_key text,
  stock_enabled boolean NOT NULL DEFAULT false,
  -- What is still for sale: reserved at checkout, returned when the pay-in expires or fails.
  stock_qty integer NOT NULL DEFAULT 0 CHECK (stock_qty >= 0),
  low_stock_threshold integer NOT NULL DEFAULT 0 CHECK (low_stock_threshold >= 0),
  sort_order integer NOT NULL DEFAULT 0,
  -- Removed products stay for the orders that name them; they are never shown or sold again.
  archived_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX paylink_products_by_paylink ON paylink_products (paylink_id, sort_order, created_at, id);

CREATE TABLE paylink_promo_codes (
  id text PRIMARY KEY,
  paylink_id text NOT NULL REFERENCES paylinks(id) ON DELETE CASCADE,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  code text NOT NULL CHECK (code = upper(code)),
  discount_type text NOT NULL CHECK (discount_type IN ('PERCENT', 'FIXED')),
  discount_value numeric NOT NULL CHECK (discount_value > 0),
  max_uses integer CHECK (max_uses > 0),
  use_count integer NOT NULL DEFAULT 0 CHECK (use_count >= 0),
  expires_at timestamptz,
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT promo_code_per_paylink UNIQUE (paylink_id, code),
  CONSTRAINT promo_uses_within_max CHECK (max_uses IS NULL OR use_count <= max_uses)
);

CREATE TABLE paylink_templates (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  name text NOT NULL,
  -- Paylink creation fields: settings, branding and products; never orders.
  config jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX paylink_templates_by_merchant ON paylink_templates (merchant_id, is_sandbox, created_at DESC, id DESC);

CREATE TABLE paylink_orders (
  id text PRIMARY KEY,
  paylink_id text NOT NULL REFERENCES paylinks(id),
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  -- Follows the pay-in: AWAITING_PAYMENT until it has one, then the pay-in's own status.
  status text NOT NULL DEFAULT 'AWAITING_PAYMENT',
  customer_email text,
  customer_name text,
  customer_phone text,
  customer_address text,
  currency text NOT NULL CHECK (currency IN ('USDT_TRC20', 'XOF')),
  subtotal numeric NOT NULL CHECK (subtotal >= 0),
  discount numeric NOT NULL DEFAULT 0 CHECK (discount >= 0),
  total numeric NOT NULL CHECK (total >= 0),
  promo_code_id text REFERENCES paylink_promo_codes(id) ON DELETE SET NULL,
  promo_code text,
  -- The rail the customer chose and what it asks of them in its own currency.
  rail text CHECK (rail IN ('USDT_TRC20', 'CARD', 'MOBILE_MONEY')),
  pay_amount numeric,
  pay_currency text CHECK (pay_currency IN ('USDT_TRC20', 'XOF')),
  fx_rate numeric,
  payin_id text UNIQUE REFERENCES payins(id),
  -- Set once the stock, promo and paylink uses this order held were given back (exactly once).
  released_at timestamptz,
  paid_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT order_total_is_subtotal_less_discount CHECK (total = subtotal - discount)
);
CREATE INDEX paylink_orders_by_paylink ON paylink_orders (paylink_id, created_at DESC, id DESC);
CREATE INDEX paylink_orders_unreleased ON paylink_orders (created_at) WHERE released_at IS NULL;

CREATE TABLE paylink_order_items (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id text NOT NULL REFERENCES paylink_orders(id) ON DELETE CASCADE,
  paylink_id text NOT NULL REFERENCES paylinks(id),
  merchant_id text NOT NULL REFERENCES merchants(id),
  is_sandbox boolean NOT NULL,
  product_id text NOT NULL REFERENCES paylink_products(id),
  product_name text NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_price numeric NOT NULL CHECK (unit_price > 0),
  line_total numeric NOT NULL CHECK (line_total > 0),
  -- Whether this line took units from the product's stock (given back on release).
  stock_reserved boolean NOT NULL
);
CREATE INDEX paylink_order_items_by_order ON paylink_order_items (order_id);

-- The operator's plan limit on paylinks per merchant and mode; no row: the default of domain/paylinks.
CREATE TABLE paylink_plan_limits (
  merchant_id text PRIMARY KEY REFERENCES merchants(id),
  max_paylinks integer NOT NULL CHECK (max_paylinks >= 0),
  updated_at timestamptz NOT NULL
);

-- Stored files (images) when the storage seam keeps them in Postgres: content-addressed keys.
CREATE TABLE stored_objects (
  key text PRIMARY KEY,
  content_type text NOT NULL,
  bytes bytea NOT NULL,
  size integer NOT NULL,
  created_at timestamptz NOT NULL
);
