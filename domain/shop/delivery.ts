// Digital products reach the customer only once their order is paid: on the pay-in's success page. Before
// payment the page only knows that a delivery is waiting (so its script reloads when the payment lands).
import * as shopDb from "../../db/shop.ts";
import type { Deps } from "../deps.ts";

export type DigitalDelivery = { waiting: boolean; links: Array<{ name: string; url: string }> };

/** Null for a pay-in without a paylink order holding digital products. */
export async function digitalDeliveryOf(
  deps: Pick<Deps, "db">,
  payinId: string,
): Promise<DigitalDelivery | null> {
  const [row] = await deps.db.query<{ digital: number; paid: boolean }>(
    `SELECT count(*)::int AS digital, bool_or(o.paid_at IS NOT NULL AND o.status IN ('CONFIRMED', 'OVERPAID')) AS paid
       FROM paylink_orders o
       JOIN paylink_order_items i ON i.order_id = o.id
       JOIN paylink_products p ON p.id = i.product_id
      WHERE o.payin_id = $1 AND p.product_type = 'DIGITAL'`,
    [payinId],
  );
  if (!row || row.digital === 0) return null;
  if (!row.paid) return { waiting: true, links: [] };
  const links = (await shopDb.paidDigitalItems(deps.db, payinId))
    .filter((l) => /^https?:\/\//i.test(l.url));
  return { waiting: false, links };
}
