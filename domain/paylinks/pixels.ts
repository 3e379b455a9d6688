// Image decoding and re-encoding with no native code: imagescript's WebAssembly PNG and JPEG decoders and
// its pure-JS PNG encoder. (Its main entry loads a native addon, which needs --allow-ffi and cannot run on
// Deno Deploy, so only these parts are imported.)
import pngDecoder from "imagescript/wasm/node/png.js";
import jpegDecoder from "imagescript/wasm/node/jpeg.js";
import pngEncoder from "imagescript/png/node.js";

type Decoded = { width: number; height: number };

/** Fully decodes a PNG; returns its RGBA pixels. Throws on damaged data. */
export async function decodePng(bytes: Uint8Array): Promise<Decoded & { rgba: Uint8Array }> {
  const { width, height, framebuffer } = (await pngDecoder.init()).decode(bytes);
  return { width, height, rgba: framebuffer as Uint8Array };
}

/** Fully decodes a JPEG (to prove it is one); returns its size. Throws on damaged data. */
export async function decodeJpeg(bytes: Uint8Array): Promise<Decoded> {
  const frame = (await jpegDecoder.init()).decode(bytes);
  return { width: frame.width, height: frame.height };
}

/** A fresh PNG of RGBA pixels: nothing of the original file but its pixels survives. */
export function encodePng(rgba: Uint8Array, width: number, height: number): Uint8Array {
  return pngEncoder.encode(rgba, { width, height, channels: 4, level: 3 });
}

/**
 * The JPEG without its metadata segments: EXIF and XMP (APP1), ICC and vendor data (APP2-APP13, APP15) and
 * comments are dropped; JFIF (APP0) and Adobe (APP14, which says how colours are stored) are kept, as is
 * everything from the first scan on. The compressed picture itself is not touched (no loss).
 */
export function stripJpegMetadata(b: Uint8Array): Uint8Array {
  const out: Uint8Array[] = [b.subarray(0, 2)];
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) throw new Error("jpg: bad segment marker");
    const marker = b[i + 1];
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    if (marker === 0xda) break; // start of scan: the rest is picture data
    const length = (b[i + 2] << 8) | b[i + 3];
    const end = i + 2 + length;
    if (length < 2 || end > b.length) throw new Error("jpg: segment runs past the end");
    const isMetadata = (marker >= 0xe1 && marker <= 0xef && marker !== 0xee) || marker === 0xfe;
    if (!isMetadata) out.push(b.subarray(i, end));
    i = end;
  }
  out.push(b.subarray(i));
  const size = out.reduce((s, part) => s + part.length, 0);
  const clean = new Uint8Array(size);
  let at = 0;
  for (const part of out) {
    clean.set(part, at);
    at += part.length;
  }
  return clean;
}
