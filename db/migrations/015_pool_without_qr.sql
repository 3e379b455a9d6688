-- The address pool no longer stores each address's QR code: a pay-in's creation answer and its checkout
-- page draw it from the address (rails/tron/qr.ts, a few tens of microseconds). A pool row goes through
-- three versions (derived, leased, claimed), and the ~550-byte PNG data URL made each a few times larger,
-- in the table and in the WAL. Rows derived before keep theirs; nothing reads it any more.
ALTER TABLE deposit_addresses ALTER COLUMN qr_png DROP NOT NULL;

-- Leasing an address (leased_until, in no index) can then be a HOT update: the new version fits on the
-- row's own page, and none of the table's five indexes gets an entry for it. Only pages written from now on.
ALTER TABLE deposit_addresses SET (fillfactor = 50);
