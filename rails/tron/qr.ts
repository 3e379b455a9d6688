// QR codes for deposit addresses, as PNG data URLs the hosted pages embed directly (no CDN).
// `qrcode` computes the QR matrix (about 0.2 ms); we draw it ourselves as a 1-bit grayscale PNG, which
// costs a fraction of a millisecond where qrcode's RGBA PNG path costs about 3 ms, and compress it with
// png_deflate.ts, which knows the picture's repeats (node:zlib cost several times the rest together).
// Same geometry as before: error correction M, a 4-module quiet zone, 6 pixels per module.
// @ts-types="@types/qrcode"
import QRCode from "qrcode";
import { base64 } from "@scure/base";
import { encodeQr } from "./qr_encode.ts";
import { deflateScanlines } from "./png_deflate.ts";

const MARGIN = 4;
const SCALE = 6;
// A module's pixels at the top of a 16-bit window.
const MODULE_PIXELS = ((1 << SCALE) - 1) << (16 - SCALE);

/** A PNG QR code of `text` as `data:image/png;base64,...`. */
export function qrPngDataUrl(text: string): Promise<string> {
  try {
    return Promise.resolve(qrPngDataUrlSync(text));
  } catch (err) {
    return Promise.reject(err);
  }
}

export function qrPngDataUrlSync(text: string): string {
  if (typeof text !== "string" || text.length === 0) throw new RangeError("nothing to encode");
  const { size, modules } = qrMatrix(new TextEncoder().encode(text));
  return `data:image/png;base64,${base64.encode(qrPng(size, modules))}`;
}

/**
 * One byte-mode segment, level M, a fixed mask: our lean encoder (qr_encode.ts) up to version 10, else
 * `qrcode` told the same, so it skips its segmentation search and the scoring of all eight masks. Any
 * mask decodes alike; scoring only picks the prettiest.
 */
export function qrMatrix(bytes: Uint8Array): { size: number; modules: ArrayLike<number> } {
  const lean = encodeQr(bytes);
  if (lean) return lean;
  const { modules } = QRCode.create([{ data: bytes, mode: "byte" }], {
    errorCorrectionLevel: "M",
    maskPattern: 0,
  });
  return { size: modules.size, modules: modules.data };
}

/** Draws a size x size module matrix (1 = dark) as a 1-bit grayscale PNG (0 = black, 1 = white). */
export function qrPng(size: number, dark: ArrayLike<number>): Uint8Array {
  const width = (size + 2 * MARGIN) * SCALE;
  const rowBytes = Math.ceil(width / 8);
  const stride = rowBytes + 1; // filter type byte (0, None) + pixels
  // Only distinct scanlines are drawn: the quiet zone's, then one per module row, then the quiet zone's
  // again; the encoder repeats each as often as the image does.
  const rows = new Uint8Array(stride * (size + 2)).fill(0xff);
  const repeats = new Array<number>(size + 2).fill(SCALE);
  repeats[0] = repeats[size + 1] = MARGIN * SCALE;
  for (let row = 0; row < size + 2; row++) rows[row * stride] = 0;
  for (let my = 0; my < size; my++) {
    const first = (my + 1) * stride + 1;
    for (let mx = 0, x = MARGIN * SCALE; mx < size; mx++, x += SCALE) {
      if (!dark[my * size + mx]) continue;
      // The module's SCALE pixels from x, within the byte at x and the next one (SCALE is at most 9).
      const pixels = MODULE_PIXELS >>> (x & 7);
      rows[first + (x >> 3)] &= ~(pixels >> 8);
      rows[first + (x >> 3) + 1] &= ~pixels;
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, width);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, grayscale, deflate, adaptive filter, no interlace
  return concat([
    PNG_SIGNATURE,
    chunk("IHDR", header),
    chunk("IDAT", deflateScanlines(rows, stride, repeats)),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
