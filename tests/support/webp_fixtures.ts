// WebP files built by hand for tests, following the WebP container and lossless bitstream
// specifications (RFC 9649). No WebP encoder is needed for the lossless one: a solid colour image is a
// VP8L header and five "simple" prefix codes of one symbol each, so every pixel costs zero bits.
import { Image } from "imagescript";

/** LSB-first bit writer, as the VP8L bitstream reads. */
class Bits {
  bytes: number[] = [];
  private bit = 0;
  put(value: number, count: number) {
    for (let i = 0; i < count; i++) {
      if (this.bit % 8 === 0) this.bytes.push(0);
      if ((value >>> i) & 1) this.bytes[this.bytes.length - 1] |= 1 << (this.bit % 8);
      this.bit++;
    }
  }
}

export function chunk(fourcc: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + data.length + (data.length % 2));
  out.set(new TextEncoder().encode(fourcc));
  new DataView(out.buffer).setUint32(4, data.length, true);
  out.set(data, 8);
  return out;
}

export function riff(...parts: Uint8Array[]): Uint8Array {
  const size = 4 + parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(8 + size);
  out.set(new TextEncoder().encode("RIFF"));
  new DataView(out.buffer).setUint32(4, size, true);
  out.set(new TextEncoder().encode("WEBP"), 8);
  let at = 12;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The payload of a VP8L chunk: a width × height image of one ARGB colour. */
export function vp8lSolid(width: number, height: number, argb: [number, number, number, number]): Uint8Array {
  const [a, r, g, b] = argb;
  const w = new Bits();
  w.put(0x2f, 8); // signature
  w.put(width - 1, 14);
  w.put(height - 1, 14);
  w.put(a === 255 ? 0 : 1, 1); // alpha_is_used (a hint)
  w.put(0, 3); // version
  w.put(0, 1); // no transform
  w.put(0, 1); // no colour cache
  w.put(0, 1); // no meta prefix codes
  // Green, red, blue, alpha, distance: each a simple code with one 8-bit symbol.
  for (const symbol of [g, r, b, a, 0]) {
    w.put(1, 1); // simple code
    w.put(0, 1); // one symbol
    w.put(1, 1); // 8-bit symbol
    w.put(symbol, 8);
  }
  return new Uint8Array(w.bytes);
}

/** A simple-format lossless WebP of one colour. */
export function losslessWebp(width: number, height: number, argb: [number, number, number, number]) {
  return riff(chunk("VP8L", vp8lSolid(width, height, argb)));
}

/** The VP8X header payload: flags and canvas size. */
export function vp8x(flags: number, width: number, height: number): Uint8Array {
  const d = new Uint8Array(10);
  d[0] = flags;
  const ww = width - 1, hh = height - 1;
  d.set([ww & 0xff, (ww >> 8) & 0xff, ww >> 16, hh & 0xff, (hh >> 8) & 0xff, hh >> 16], 4);
  return d;
}

/** The chunks of a WebP file, in order (name and payload). */
export function chunksOf(b: Uint8Array): Array<{ fourcc: string; data: Uint8Array }> {
  const out = [];
  let at = 12;
  while (at + 8 <= b.length) {
    const fourcc = new TextDecoder().decode(b.subarray(at, at + 4));
    const size = new DataView(b.buffer, b.byteOffset).getUint32(at + 4, true);
    out.push({ fourcc, data: b.subarray(at + 8, at + 8 + size) });
    at += 8 + size + (size % 2);
  }
  return out;
}

/** A lossy WebP (imagescript's encoder): opaque is simple `VP8 `, translucent is VP8X + ALPH + VP8. */
export async function lossyWebp(width: number, height: number, rgba: number): Promise<Uint8Array> {
  const img = new Image(width, height);
  img.fill(rgba);
  return await img.encodeWEBP(80);
}

/** An opaque lossy WebP in the extended format, carrying an ICC profile, EXIF (with GPS) and XMP. */
export async function webpWithMetadata(width: number, height: number): Promise<Uint8Array> {
  const simple = await lossyWebp(width, height, 0x2288ccff);
  const vp8 = chunksOf(simple).find((c) => c.fourcc === "VP8 ")!;
  const text = (s: string) => new TextEncoder().encode(s);
  return riff(
    chunk("VP8X", vp8x(0x20 | 0x08 | 0x04, width, height)),
    chunk("ICCP", text("fake-icc-profile Apple Display P3")),
    chunk("VP8 ", vp8.data),
    chunk("EXIF", text("Exif\0\0GPS 12.3714,-1.5197 secret-exif")),
    chunk("XMP ", text("<x:xmpmeta>secret-xmp CreatorTool</x:xmpmeta>")),
  );
}
