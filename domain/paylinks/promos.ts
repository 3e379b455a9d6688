// Promo codes of a paylink (merchant side): create, list, update (isActive...), delete, and the public
// preview the hosted page's apply-promo shows. Redemption itself happens in checkout.ts.
import * as db from "../../db/paylinks.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isWellFormedId, newId } from "../ids.ts";
import { type Currency, Decimal } from "../money.ts";
import { isUniqueViolation } from "./create.ts";
import { conflict, priceProblem, refuse } from "./input.ts";
import {
  assertPromoUsable,
  discountOf,
  normalizeCode,
  PERCENT_PATTERN,
  PROMO_CODE_PATTERN,
} from "./promo_rules.ts";
import { findPaylinkBySlug, getPaylinkRow, type Owner } from "./queries.ts";

type D = Pick<Deps, "db" | "clock">;

export type PromoInput = {
  code: string;
  discountType: "PERCENT" | "FIXED";
  discountValue: string;
  maxUses?: number | null;
  expiresAt?: string | null;
};

export type PromoPatch = Partial<Omit<PromoInput, "code">> & { isActive?: boolean };

/**
 * PERCENT: more than 0, at most 100 (PERCENT_PATTERN). FIXED: a price, in the paylink's currency. `fail`
 * answers a value wrong for its type: refuse when the body names the type, conflict when the type is
 * the stored one; a FIXED value with decimals the paylink's (stored) currency lacks is always CONFLICT.
 */
function checkDiscount(
  type: "PERCENT" | "FIXED",
  value: string,
  currency: Currency,
  fail: typeof refuse = refuse,
): void {
  const field = "discountValue";
  if (type === "PERCENT") {
    if (!new RegExp(PERCENT_PATTERN).test(value)) {
      fail([{ field, reason: "a percentage above 0 and at most 100" }]);
    }
    return;
  }
  const form = priceProblem(value, "USDT_TRC20");
  if (form) fail([{ field, reason: form }]);
  const decimals = priceProblem(value, currency);
  if (decimals) conflict([{ field, reason: `${decimals}: this paylink is priced in ${currency}` }]);
}

function checkExpiry(expiresAt: string | null | undefined, now: Date) {
  if (expiresAt && new Date(expiresAt).getTime() <= now.getTime()) {
    refuse([{ field: "expiresAt", reason: "must be in the future" }]);
  }
}

function duplicate() {
  return new AppError("DUPLICATE_RESOURCE", "This paylink already has this promo code", {
    details: [{ field: "code", reason: "already exists on this paylink" }],
  });
}

export async function createPromo(deps: D, owner: Owner, paylinkId: string, input: PromoInput) {
  const code = normalizeCode(input.code);
  if (!PROMO_CODE_PATTERN.test(code)) {
    refuse([{ field: "code", reason: "1 to 40 characters: letters, digits, - and _" }]);
  }
  const now = deps.clock.now();
  checkExpiry(input.expiresAt, now);
  try {
    return await deps.db.tx(async (tx) => {
      const paylink = await getPaylinkRow({ db: tx }, owner, paylinkId);
      checkDiscount(input.discountType, input.discountValue, paylink.currency as Currency);
      if (await db.findPromoByCode(tx, paylink.id, code)) throw duplicate();
      return await db.insertPromo(tx, {
        id: newId("prm", now.getTime()),
        paylinkId: paylink.id,
        ...owner,
        code,
        discountType: input.discountType,
        discountValue: input.discountValue,
        maxUses: input.maxUses ?? null,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
        now,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate();
    throw err;
  }
}

export async function listPromoCodes(deps: Pick<Deps, "db">, owner: Owner, paylinkId: string) {
  const paylink = await getPaylinkRow(deps, owner, paylinkId);
  return await db.listPromos(deps.db, [paylink.id]);
}

async function promoOf(deps: Pick<Deps, "db">, paylink: db.PaylinkRow, promoId: string, lock = false) {
  const promo = isWellFormedId("prm", promoId) ? await db.findPromo(deps.db, paylink.id, promoId) : undefined;
  if (!promo) throw new AppError("NOT_FOUND", "No such promo code on this paylink");
  if (lock) await db.findPromoByCode(deps.db, paylink.id, promo.code, { lock: true });
  return promo;
}

export async function updatePromoCode(
  deps: D,
  owner: Owner,
  paylinkId: string,
  promoId: string,
  patch: PromoPatch,
) {
  return await deps.db.tx(async (tx) => {
    const now = deps.clock.now();
    const paylink = await getPaylinkRow({ db: tx }, owner, paylinkId);
    const current = await promoOf({ db: tx }, paylink, promoId, true);
    const type = patch.discountType ?? current.discount_type;
    if (patch.discountType !== undefined || patch.discountValue !== undefined) {
      // Both in the body: the body is wrong or right by itself; one of them: the stored other decides.
      const bodyDecides = patch.discountType !== undefined && patch.discountValue !== undefined;
      checkDiscount(
        type,
        patch.discountValue ?? new Decimal(current.discount_value).toFixed(),
        paylink.currency as Currency,
        bodyDecides ? refuse : conflict,
      );
    }
    checkExpiry(patch.expiresAt, now);
    const fresh = await db.findPromo(tx, paylink.id, promoId);
    if (patch.maxUses !== undefined && patch.maxUses !== null && patch.maxUses < fresh!.use_count) {
      conflict([{ field: "maxUses", reason: `already used ${fresh!.use_count} times` }]);
    }
    return (await db.updatePromo(tx, paylink.id, promoId, {
      discount_type: patch.discountType,
      discount_value: patch.discountValue,
      max_uses: patch.maxUses,
      expires_at: patch.expiresAt === undefined
        ? undefined
        : patch.expiresAt === null
        ? null
        : new Date(patch.expiresAt),
      is_active: patch.isActive,
    }, now))!;
  });
}

/** Deleting a code: orders that used it keep its text (their promo_code_id is cleared). */
export async function deletePromoCode(deps: D, owner: Owner, paylinkId: string, promoId: string) {
  const paylink = await getPaylinkRow(deps, owner, paylinkId);
  await promoOf(deps, paylink, promoId);
  if (!await db.deletePromo(deps.db, paylink.id, promoId)) {
    throw new AppError("NOT_FOUND", "No such promo code");
  }
}

/**
 * The public preview (apply-promo): the same four errors as the checkout, and the discount on
 * `subtotal` when the page sends one. Nothing is counted: the checkout redeems.
 */
export async function previewPromo(
  deps: Pick<Deps, "db" | "clock">,
  slug: string,
  code: string,
  subtotal?: string,
) {
  const found = await findPaylinkBySlug(deps, slug);
  if (!found) throw new AppError("NOT_FOUND", "No such paylink");
  const normalized = normalizeCode(code);
  const promo = PROMO_CODE_PATTERN.test(normalized)
    ? await db.findPromoByCode(deps.db, found.paylink.id, normalized)
    : undefined;
  assertPromoUsable(promo, deps.clock.now());
  const currency = found.paylink.currency as Currency;
  return {
    code: promo.code,
    discountType: promo.discount_type,
    discountValue: new Decimal(promo.discount_value).toFixed(),
    currency,
    discount: subtotal === undefined ? null : discountOf(promo, subtotal, currency).toFixed(),
  };
}
