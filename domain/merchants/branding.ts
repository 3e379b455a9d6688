// Whom the customer pays: a merchant's display name and logo, shown on every hosted page (the pay-in
// checkout and the paylink shop). The logo is kept as a small data URL whose bytes are checked, so a
// page never loads anything from another host.
import * as merchantsDb from "../../db/merchants.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { keyCacheOf } from "../keys/key_cache.ts";

/** Decoded bytes of a logo; a hosted page is one small response. */
export const MAX_LOGO_BYTES = 48 * 1024;
/** The logo's form; the schema of the routes that take one declares it too (api/merchants/profile.ts). */
export const LOGO_DATA_URL = /^data:image\/(png|jpeg|webp);base64,([A-Za-z0-9+/]+={0,2})$/;

export type ImageKind = "png" | "jpeg" | "webp";

/** The image type its first bytes say, or null when they are not PNG, JPEG or WebP. */
export function sniffImage(bytes: Uint8Array): ImageKind | null {
  const at = (i: number, ...v: number[]) => v.every((b, j) => bytes[i + j] === b);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "png";
  if (at(0, 0xff, 0xd8, 0xff)) return "jpeg";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "webp";
  return null;
}

function invalid(field: string, reason: string): AppError {
  return new AppError("VALIDATION_ERROR", `Validation failed: ${field}: ${reason}`, {
    details: [{ field, reason }],
  });
}

/** A logo data URL whose declared type matches its bytes, at most MAX_LOGO_BYTES; else VALIDATION_ERROR. */
export function checkLogoDataUrl(value: string, field = "logoUrl"): string {
  const match = LOGO_DATA_URL.exec(value);
  if (!match) {
    throw invalid(field, "must be a data:image/png, image/jpeg or image/webp;base64 URL");
  }
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(match[2]), (ch) => ch.charCodeAt(0));
  } catch {
    throw invalid(field, "is not valid base64");
  }
  if (bytes.length > MAX_LOGO_BYTES) throw invalid(field, `must be at most ${MAX_LOGO_BYTES} bytes`);
  if (sniffImage(bytes) !== match[1]) throw invalid(field, `bytes are not a ${match[1]} image`);
  return value;
}

export type MerchantBranding = { displayName: string; logoUrl: string | null };

/** What a hosted page shows of a merchant: its display name (or its name) and its logo, if any. */
export function brandingOf(row: { name: string; display_name: string | null; logo_data_url: string | null }) {
  return { displayName: row.display_name ?? row.name, logoUrl: row.logo_data_url } as MerchantBranding;
}

/** `undefined` keeps a field, `null` clears it. */
export async function updateMerchantBranding(
  deps: Pick<Deps, "db" | "keyCache">,
  merchantId: string,
  patch: { displayName?: string | null; logoUrl?: string | null },
) {
  const current = await merchantsDb.findMerchant(deps.db, merchantId);
  if (!current) throw new AppError("MERCHANT_NOT_FOUND");
  const logo = patch.logoUrl === undefined
    ? current.logo_data_url
    : patch.logoUrl === null
    ? null
    : checkLogoDataUrl(patch.logoUrl);
  const row = await merchantsDb.updateMerchantBranding(deps.db, merchantId, {
    displayName: patch.displayName === undefined ? current.display_name : patch.displayName,
    logoDataUrl: logo,
  });
  if (!row) throw new AppError("MERCHANT_NOT_FOUND");
  keyCacheOf(deps).forgetMerchant(merchantId);
  return row;
}
