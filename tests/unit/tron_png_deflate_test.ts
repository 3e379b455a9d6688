// The QR PNG's own DEFLATE encoder (rails/tron/png_deflate.ts): node:zlib inflates its streams back to
// exactly the scanlines, checksum included, for QR images of every version and for arbitrary rows.
import { Buffer } from "node:buffer";
import { deflateSync, inflateSync } from "node:zlib";
import fc from "fast-check";
import { PNG } from "pngjs";
import { assert, assertEquals } from "../assert.ts";
import { deflateScanlines } from "../../rails/tron/png_deflate.ts";
import { qrMatrix, qrPng } from "../../rails/tron/qr.ts";

const MARGIN = 4;
const SCALE = 6;

/** Adler-32 as RFC 1950 defines it, byte by byte. */
function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function expand(rows: Uint8Array, stride: number, repeats: number[]): Uint8Array {
  const out = new Uint8Array(stride * repeats.reduce((n, k) => n + k, 0));
  let at = 0;
  repeats.forEach((k, r) => {
    for (let copy = 0; copy < k; copy++, at += stride) {
      out.set(rows.subarray(r * stride, (r + 1) * stride), at);
    }
  });
  return out;
}

/** Inflates `stream` and checks it is `expected`, its Adler-32 trailer included. */
function assertInflatesTo(stream: Uint8Array, expected: Uint8Array, label: string): void {
  const inflated = new Uint8Array(inflateSync(stream));
  assertEquals(inflated.length, expected.length, label);
  assert(inflated.every((byte, i) => byte === expected[i]), `${label}: inflated bytes differ`);
  const trailer = new DataView(stream.buffer, stream.byteOffset + stream.length - 4).getUint32(0);
  assertEquals(trailer, adler32(expected), label);
}

/** A QR image's scanlines drawn pixel by pixel: filter byte 0, then 1 = white, 0 = dark module. */
function referenceScanlines(size: number, dark: Uint8Array): Uint8Array {
  const width = (size + 2 * MARGIN) * SCALE;
  const stride = Math.ceil(width / 8) + 1;
  const out = new Uint8Array(stride * width);
  for (let y = 0; y < width; y++) {
    for (let x = 0; x < (stride - 1) * 8; x++) {
      const [mx, my] = [Math.floor(x / SCALE) - MARGIN, Math.floor(y / SCALE) - MARGIN];
      const isDark = x < width && mx >= 0 && mx < size && my >= 0 && my < size && dark[my * size + mx] === 1;
      if (!isDark) out[y * stride + 1 + (x >> 3)] |= 0x80 >> (x & 7);
    }
  }
  return out;
}

function idat(png: Uint8Array): Uint8Array {
  const view = new DataView(png.buffer, png.byteOffset);
  for (let at = 8; at < png.length;) {
    const length = view.getUint32(at);
    if (String.fromCharCode(...png.subarray(at + 4, at + 8)) === "IDAT") {
      return png.subarray(at + 8, at + 8 + length);
    }
    at += 12 + length;
  }
  throw new Error("no IDAT");
}

Deno.test("png deflate: a QR PNG of every version 1..40 inflates to its scanlines and decodes to its modules", () => {
  for (let version = 1; version <= 40; version++) {
    const size = 17 + 4 * version;
    const dark = crypto.getRandomValues(new Uint8Array(size * size)).map((byte) => byte & 1);
    const png = qrPng(size, dark);
    assertInflatesTo(idat(png), referenceScanlines(size, dark), `version ${version}`);
    if (version % 13 !== 1) continue; // pngjs on a few sizes is enough: the scanlines are checked above
    const decoded = PNG.sync.read(Buffer.from(png));
    const width = (size + 2 * MARGIN) * SCALE;
    assertEquals([decoded.width, decoded.height], [width, width]);
    for (let my = 0; my < size; my++) {
      for (let mx = 0; mx < size; mx++) {
        const pixel = decoded.data[(((my + MARGIN) * SCALE + 3) * width + (mx + MARGIN) * SCALE + 3) * 4];
        assertEquals(pixel, dark[my * size + mx] ? 0 : 255, `version ${version} module ${mx},${my}`);
      }
    }
  }
});

Deno.test("png deflate: a TRON address's PNG is about as small as zlib makes it", () => {
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  for (let n = 0; n < 100; n++) {
    const random = crypto.getRandomValues(new Uint8Array(33));
    const address = "T" + Array.from(random, (b) => alphabet[b % alphabet.length]).join("");
    const { size, modules } = qrMatrix(new TextEncoder().encode(address));
    const dark = Uint8Array.from(modules);
    const ours = idat(qrPng(size, dark)).length;
    const zlib = deflateSync(referenceScanlines(size, dark)).length;
    // Seen from 27 bytes smaller to 13 bigger; the fixed codes would make it about twice as big.
    assert(ours <= zlib + 32, `${address}: ${ours} bytes where zlib makes ${zlib}`);
  }
});

Deno.test("png deflate: any rows, widths and repeats inflate back exactly", () => {
  const rowsArb = fc.record({
    stride: fc.integer({ min: 3, max: 300 }),
    count: fc.integer({ min: 1, max: 8 }),
    // QR bytes (cheap literals), any byte (15-bit literals), or rows that mostly repeat the row above
    style: fc.constantFrom("qr", "any", "similar"),
    random: fc.uint8Array({ minLength: 300 * 8, maxLength: 300 * 8 }),
    repeats: fc.array(fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 600 })), {
      minLength: 8,
      maxLength: 8,
    }),
  });
  fc.assert(
    fc.property(rowsArb, ({ stride, count, style, random, repeats }) => {
      const rows = new Uint8Array(stride * count);
      const qrBytes = [0x00, 0xff, 0x03, 0x0f, 0x3f, 0xc0, 0xf0, 0xfc];
      for (let i = 0; i < rows.length; i++) {
        rows[i] = style === "any"
          ? random[i]
          : style === "qr"
          ? qrBytes[random[i] & 7]
          : i >= stride && random[i] < 200
          ? rows[i - stride]
          : random[i];
      }
      const rowRepeats = repeats.slice(0, count);
      assertInflatesTo(
        deflateScanlines(rows, stride, rowRepeats),
        expand(rows, stride, rowRepeats),
        "random",
      );
    }),
    { numRuns: 300 },
  );
});

Deno.test("png deflate: copies of every length around DEFLATE's 258-byte matches, in both codes", () => {
  // QR bytes get our codes, any other byte the fixed ones.
  const bytes = [(i: number) => [0x00, 0xff, 0x03, 0xfc][i % 4], (i: number) => (i * 37) & 0xff];
  for (
    const [stride, byte] of [3, 4, 5, 257, 258, 259].flatMap((stride) =>
      bytes.map((b) => [stride, b] as const)
    )
  ) {
    for (let repeats = 1; repeats <= 200; repeats++) {
      const rows = Uint8Array.from({ length: 2 * stride }, (_, i) => byte(i));
      const counts = [repeats, 2];
      assertInflatesTo(
        deflateScanlines(rows, stride, counts),
        expand(rows, stride, counts),
        `${stride}x${repeats}`,
      );
    }
  }
});

Deno.test("png deflate: Adler-32 stays right where its sums wrap, over a large image", () => {
  const stride = 140; // a version 40 QR code's scanline
  const rows = new Uint8Array(3 * stride).fill(0xff);
  rows[0] = rows[stride] = rows[2 * stride] = 0;
  rows.fill(0x00, stride + 1, 2 * stride);
  const repeats = [70_000, 5, 65_521];
  const stream = deflateScanlines(rows, stride, repeats);
  assertInflatesTo(stream, expand(rows, stride, repeats), "large");
});

Deno.test("png deflate: rows it cannot describe are refused", () => {
  const cases: Array<[rows: Uint8Array, stride: number, repeats: number[]]> = [
    [new Uint8Array(10), 2, [1, 1, 1, 1, 1]],
    [new Uint8Array(10), 5, [1]],
    [new Uint8Array(10), 5, [1, 0]],
    [new Uint8Array(10), 5, [1, 1.5]],
    [new Uint8Array(40_000), 40_000, [1]],
  ];
  for (const [rows, stride, repeats] of cases) {
    let refused = false;
    try {
      deflateScanlines(rows, stride, repeats);
    } catch (err) {
      refused = err instanceof RangeError;
    }
    assert(refused, `stride ${stride}, repeats ${repeats}`);
  }
});
