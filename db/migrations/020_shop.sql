-- The hosted shop: whom the customer pays (a merchant's display name and logo on every hosted page).
-- Paylink tables, products, promo codes and orders belong to the paylinks migrations; this file adds
-- what the public shop needs on top of them.
ALTER TABLE merchants ADD COLUMN display_name text;
ALTER TABLE merchants ADD COLUMN logo_data_url text;
