// Cover and product images: checked by their bytes (PNG, JPEG or WebP magic, sane dimensions read from
// the header before anything is decoded, then a real decode), re-encoded or stripped of metadata (EXIF,
// GPS, XMP, comments), stored under a content-addressed key behind the storage seam. WebP is not decoded
// but parsed and rewritten with its image chunks only (webp.ts).
import { decodeJpeg, decodePng, encodePng, stripJpegMetadata } from "./pixels.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import * as db from "../../db/paylinks.ts";
import { OBJECT_KEY, type ObjectStorage, openStorage } from "../../rails/storage/mod.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { getPaylinkRow, type Owner } from "./queries.ts";
import { type CleanWebp, cleanWebp, WebpError } from "./webp.ts";

/** Largest upload accepted (the multipart body may be a little larger). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Largest side in pixels: a bigger image is refused before decoding (no decompression bombs). */
export const MAX_IMAGE_SIDE = 4096;

type Kind = "png" | "jpg" | "webp";
const CONTENT_TYPES: Record<Kind, string> = { png: "image/png", jpg: "image/jpeg", webp: "image/webp" };

function notAnImage(reason: string): never {
  throw new AppError("VALIDATION_ERROR", `The file is not a usable image: ${reason}`, {
    details: [{ field: "file", reason }],
  });
}

export function sniffKind(b: Uint8Array): Kind | undefined {
  if (b.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v)) {
    return "png";
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpg";
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b.length >= 16 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "webp";
  return undefined;
}

/**
 * Width and height from a PNG or JPEG header alone, or undefined when the header is not there (a WebP is
 * measured by webp.ts while its chunks are parsed).
 */
export function headerSize(
  kind: "png" | "jpg",
  b: Uint8Array,
): { width: number; height: number } | undefined {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (kind === "png") {
    return b.length >= 24 ? { width: view.getUint32(16), height: view.getUint32(20) } : undefined;
  }
  // JPEG: walk the segments to the first start-of-frame.
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1];
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01 || marker === 0xff) {
      i += marker === 0xff ? 1 : 2;
      continue;
    }
    const length = view.getUint16(i + 2);
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) return { height: view.getUint16(i + 5), width: view.getUint16(i + 7) };
    i += 2 + length;
  }
  return undefined;
}

/** Checks, decodes and re-encodes an upload; returns the clean bytes, their key and content type. */
export async function cleanImage(
  bytes: Uint8Array,
): Promise<{ key: string; bytes: Uint8Array; contentType: string }> {
  if (bytes.length === 0) notAnImage("the file is empty");
  if (bytes.length > MAX_IMAGE_BYTES) notAnImage(`larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB`);
  const kind = sniffKind(bytes);
  if (!kind) notAnImage("only PNG, JPEG and WebP images are accepted");
  // WebP cannot be decoded here (imagescript has no WebP decoder): its container is checked chunk by
  // chunk and rewritten with the image chunks only (domain/paylinks/webp.ts); the pixels are kept as sent.
  if (kind === "webp") {
    let webp: CleanWebp;
    try {
      webp = cleanWebp(bytes, MAX_IMAGE_SIDE);
    } catch (err) {
      if (err instanceof WebpError) notAnImage(err.message);
      throw err;
    }
    return {
      key: `${bytesToHex(sha256(webp.bytes))}.webp`,
      bytes: webp.bytes,
      contentType: CONTENT_TYPES.webp,
    };
  }
  const size = headerSize(kind, bytes);
  if (!size || size.width < 1 || size.height < 1) notAnImage("the image header is damaged");
  if (size.width > MAX_IMAGE_SIDE || size.height > MAX_IMAGE_SIDE) {
    notAnImage(`at most ${MAX_IMAGE_SIDE} pixels on a side`);
  }
  // A real decode of every pixel, then a file holding nothing else: a PNG is re-encoded from its pixels,
  // a JPEG keeps its compressed picture and loses its metadata segments (EXIF, GPS, XMP, comments).
  let clean: Uint8Array;
  try {
    if (kind === "png") {
      const image = await decodePng(bytes);
      if (image.width !== size.width || image.height !== size.height) {
        notAnImage("the image header is damaged");
      }
      clean = encodePng(image.rgba, image.width, image.height);
    } else {
      const image = await decodeJpeg(bytes);
      if (image.width !== size.width || image.height !== size.height) {
        notAnImage("the image header is damaged");
      }
      clean = stripJpegMetadata(bytes);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    notAnImage("the image data cannot be decoded");
  }
  const outKind: Kind = kind;
  return {
    key: `${bytesToHex(sha256(clean))}.${outKind}`,
    bytes: clean,
    contentType: CONTENT_TYPES[outKind],
  };
}

export function storageOf(deps: Pick<Deps, "db" | "config">): ObjectStorage {
  return openStorage(deps.config.storage, deps.db);
}

export async function setCoverImage(
  deps: Pick<Deps, "db" | "clock" | "config">,
  owner: Owner,
  paylinkId: string,
  file: Uint8Array,
) {
  const paylink = await getPaylinkRow(deps, owner, paylinkId);
  const image = await cleanImage(file);
  await storageOf(deps).put(image.key, image.bytes, image.contentType);
  await db.updatePaylink(deps.db, paylink.id, { cover_image_key: image.key }, deps.clock.now());
  return image.key;
}

export async function removeCoverImage(deps: Pick<Deps, "db" | "clock">, owner: Owner, paylinkId: string) {
  const paylink = await getPaylinkRow(deps, owner, paylinkId);
  await db.updatePaylink(deps.db, paylink.id, { cover_image_key: null }, deps.clock.now());
}

export async function setProductImage(
  deps: Pick<Deps, "db" | "clock" | "config">,
  owner: Owner,
  paylinkId: string,
  productId: string,
  file: Uint8Array,
) {
  const paylink = await getPaylinkRow(deps, owner, paylinkId);
  if (!await db.findProduct(deps.db, paylink.id, productId)) {
    throw new AppError("NOT_FOUND", "No such product on this paylink");
  }
  const image = await cleanImage(file);
  await storageOf(deps).put(image.key, image.bytes, image.contentType);
  return (await db.updateProduct(
    deps.db,
    paylink.id,
    productId,
    { image_key: image.key },
    deps.clock.now(),
  ))!;
}

/** NOT_FOUND unless the product is on sale on the caller's paylink (checked before reading an upload). */
export async function assertProductOf(
  deps: Pick<Deps, "db">,
  owner: Owner,
  paylinkId: string,
  productId: string,
) {
  const paylink = await getPaylinkRow(deps, owner, paylinkId);
  if (!await db.findProduct(deps.db, paylink.id, productId)) {
    throw new AppError("NOT_FOUND", "No such product on this paylink");
  }
}

/** A stored image by key for the public route; NOT_FOUND for a malformed or unknown key. */
export async function readImage(deps: Pick<Deps, "db" | "config">, key: string) {
  // Dispute evidence (`.dsp`, domain/disputes/evidence.ts) shares the storage seam but is never public.
  const found = OBJECT_KEY.test(key) && !key.endsWith(".dsp") ? await storageOf(deps).get(key) : null;
  if (!found) throw new AppError("NOT_FOUND", "No such image");
  return found;
}
