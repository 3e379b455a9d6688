// Reading paylinks with their products and promo codes: by id for their merchant, by slug for the public
// page and checkout (the shop's side).
import * as db from "../../db/paylinks.ts";
import type { Db } from "../../db/mod.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isWellFormedId } from "../ids.ts";
import type { PaylinkWithChildren } from "./view.ts";

export type Owner = { merchantId: string; isSandbox: boolean };

/** A slug as the public routes take it: anything that cannot be one is simply not found. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,62}[a-z0-9])$/;

async function withChildren(conn: Db, paylink: db.PaylinkRow): Promise<PaylinkWithChildren> {
  const [products, promos] = [
    await db.listProducts(conn, [paylink.id]),
    await db.listPromos(conn, [paylink.id]),
  ];
  return { paylink, products, promos };
}

/** The merchant's paylink (in the key's mode), or NOT_FOUND: another merchant's id reads as unknown. */
export async function getPaylinkRow(
  deps: Pick<Deps, "db">,
  owner: Owner,
  id: string,
  options: { lock?: boolean } = {},
): Promise<db.PaylinkRow> {
  const row = isWellFormedId("plk", id) ? await db.findPaylinkOf(deps.db, owner, id, options) : undefined;
  if (!row) throw new AppError("NOT_FOUND", "No such paylink");
  return row;
}

export async function getPaylink(
  deps: Pick<Deps, "db">,
  owner: Owner,
  id: string,
): Promise<PaylinkWithChildren> {
  return await withChildren(deps.db, await getPaylinkRow(deps, owner, id));
}

/**
 * A paylink by its public slug, with its products on sale and its promo codes: what the hosted page and
 * the public checkout read. Undefined for an unknown or malformed slug. The caller decides what to show
 * (publicProductView hides digitalUrl; promo codes are never listed to customers).
 */
export async function findPaylinkBySlug(
  deps: Pick<Deps, "db">,
  slug: string,
  options: { lock?: boolean } = {},
): Promise<PaylinkWithChildren | undefined> {
  if (!SLUG_PATTERN.test(slug)) return undefined;
  const row = await db.findPaylinkBySlug(deps.db, slug, options);
  return row ? await withChildren(deps.db, row) : undefined;
}

export async function listPaylinks(
  deps: Pick<Deps, "db">,
  owner: Owner,
  page: { page: number; limit: number },
): Promise<{ items: PaylinkWithChildren[]; total: number }> {
  const { rows, total } = await db.listPaylinksOf(deps.db, owner, page);
  const ids = rows.map((r) => r.id);
  const [products, promos] = [await db.listProducts(deps.db, ids), await db.listPromos(deps.db, ids)];
  return {
    items: rows.map((paylink) => ({
      paylink,
      products: products.filter((p) => p.paylink_id === paylink.id),
      promos: promos.filter((p) => p.paylink_id === paylink.id),
    })),
    total,
  };
}
