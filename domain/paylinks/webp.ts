// WebP without a decoder: the RIFF container is parsed here, checked chunk by chunk, and written again
// with the image chunks only (EXIF, XMP, ICCP and anything unknown dropped). Accepted: a still image,
// lossy (`VP8 `, optionally with an `ALPH` alpha chunk) or lossless (`VP8L`), in the simple format or in
// the extended one (`VP8X`) without animation. Dimensions come from the VP8/VP8L bitstream headers and
// must agree with the VP8X canvas. The compressed pixel data itself is not decoded (no WebP decoder is
// available here); it is kept byte for byte, so a browser decodes exactly what the merchant sent.

/** Why a WebP file is refused; the message is the customer-facing reason. */
export class WebpError extends Error {}

export type CleanWebp = { width: number; height: number; bytes: Uint8Array };

type Chunk = { fourcc: string; data: Uint8Array };

const fail = (reason: string): never => {
  throw new WebpError(reason);
};

const ascii = (b: Uint8Array, at: number) => String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);
const u24 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
const u32 = (b: Uint8Array, at: number) =>
  (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16)) + b[at + 3] * 2 ** 24;

/** The chunks of a RIFF/WEBP file; every size is checked against the bytes really there. */
function readChunks(b: Uint8Array): Chunk[] {
  if (b.length < 20 || ascii(b, 0) !== "RIFF" || ascii(b, 8) !== "WEBP") fail("not a WebP file");
  const riffSize = u32(b, 4);
  if (riffSize % 2 !== 0) fail("the WebP container size is odd");
  if (riffSize + 8 !== b.length) fail("the WebP container size does not match the file");
  const chunks: Chunk[] = [];
  let at = 12;
  while (at < b.length) {
    if (at + 8 > b.length) fail("a WebP chunk header is truncated");
    const fourcc = ascii(b, at);
    if (!/^[\x20-\x7e]{4}$/.test(fourcc)) fail("a WebP chunk name is not printable");
    const size = u32(b, at + 4);
    const end = at + 8 + size;
    if (end > b.length) fail(`the WebP ${fourcc.trim()} chunk is truncated`);
    chunks.push({ fourcc, data: b.subarray(at + 8, end) });
    // Chunks are padded to an even size; the padding must be there (a lying size is caught above).
    at = end + (size % 2);
    if (at > b.length) fail(`the WebP ${fourcc.trim()} chunk padding is missing`);
  }
  if (chunks.length > 64) fail("too many WebP chunks");
  return chunks;
}

/** Width and height of a lossy key frame (RFC 6386 section 9.1). */
function vp8Size(d: Uint8Array): { width: number; height: number } {
  if (d.length < 10) fail("the VP8 frame header is truncated");
  const tag = d[0] | (d[1] << 8) | (d[2] << 16);
  if ((tag & 1) !== 0) fail("the VP8 frame is not a key frame");
  if (((tag >> 1) & 7) > 3) fail("the VP8 version is unknown");
  if (((tag >> 4) & 1) !== 1) fail("the VP8 frame is not shown");
  const firstPartition = tag >>> 5;
  if (firstPartition === 0 || 10 + firstPartition > d.length) fail("the VP8 partition size is wrong");
  if (d[3] !== 0x9d || d[4] !== 0x01 || d[5] !== 0x2a) fail("the VP8 start code is missing");
  return { width: (d[6] | (d[7] << 8)) & 0x3fff, height: (d[8] | (d[9] << 8)) & 0x3fff };
}

/** Width, height and alpha hint of a lossless image (WebP lossless bitstream, section 3). */
function vp8lSize(d: Uint8Array): { width: number; height: number } {
  if (d.length < 6) fail("the VP8L header is truncated");
  if (d[0] !== 0x2f) fail("the VP8L signature is wrong");
  const bits = u32(d, 1);
  if ((bits >>> 29) !== 0) fail("the VP8L version is unknown");
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
}

function chunk(fourcc: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + data.length + (data.length % 2));
  for (let i = 0; i < 4; i++) out[i] = fourcc.charCodeAt(i);
  new DataView(out.buffer).setUint32(4, data.length, true);
  out.set(data, 8);
  return out;
}

function riff(parts: Uint8Array[]): Uint8Array {
  const size = 4 + parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(8 + size);
  out.set([0x52, 0x49, 0x46, 0x46]);
  new DataView(out.buffer).setUint32(4, size, true);
  out.set([0x57, 0x45, 0x42, 0x50], 8);
  let at = 12;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Checks a WebP file and writes it again with its image chunks only. Throws a WebpError (a reason for
 * the customer-facing VALIDATION_ERROR) when anything is off; `maxSide` bounds both dimensions.
 */
export function cleanWebp(b: Uint8Array, maxSide: number): CleanWebp {
  const chunks = readChunks(b);
  const first = chunks[0];
  let canvas: { width: number; height: number } | undefined;
  let body: Chunk[];
  if (first.fourcc === "VP8X") {
    if (first.data.length < 10) fail("the VP8X header is truncated");
    const flags = first.data[0];
    if (flags & 0x02) fail("animated images are not accepted");
    if (flags & 0xc1) fail("the VP8X reserved bits are set");
    canvas = { width: u24(first.data, 4) + 1, height: u24(first.data, 7) + 1 };
    body = chunks.slice(1);
  } else {
    body = chunks;
  }
  if (body.some((c) => c.fourcc === "ANIM" || c.fourcc === "ANMF")) fail("animated images are not accepted");
  if (body.some((c) => c.fourcc === "VP8X")) fail("the VP8X chunk is repeated");
  const images = body.filter((c) => c.fourcc === "VP8 " || c.fourcc === "VP8L");
  if (images.length !== 1) fail(images.length === 0 ? "the WebP file holds no image" : "several images");
  const image = images[0];
  if (!canvas && body.length !== 1) fail("a simple WebP file holds one image chunk only");
  const size = image.fourcc === "VP8 " ? vp8Size(image.data) : vp8lSize(image.data);
  if (size.width < 1 || size.height < 1) fail("the image header is damaged");
  if (canvas && (canvas.width !== size.width || canvas.height !== size.height)) {
    fail("the VP8X canvas does not match the image");
  }
  if (size.width > maxSide || size.height > maxSide) fail(`at most ${maxSide} pixels on a side`);

  // Alpha of a lossy image lives in ALPH, just before the VP8 chunk; for VP8L it is in the bitstream.
  const imageIndex = body.indexOf(image);
  const alphas = body.filter((c) => c.fourcc === "ALPH");
  let alpha: Chunk | undefined;
  if (alphas.length > 0) {
    if (image.fourcc !== "VP8 " || alphas.length > 1 || body[imageIndex - 1] !== alphas[0]) {
      fail("the ALPH chunk is misplaced");
    }
    alpha = alphas[0];
    if (alpha.data.length < 2) fail("the ALPH chunk is truncated");
    const header = alpha.data[0];
    if ((header >> 6) !== 0 || (header & 3) > 1 || ((header >> 4) & 3) > 1) fail("the ALPH header is wrong");
    if ((header & 3) === 0 && alpha.data.length < 1 + size.width * size.height) {
      fail("the ALPH chunk is truncated");
    }
  }

  let bytes: Uint8Array;
  if (alpha) {
    // Extended format with the alpha flag only: no ICC profile, no EXIF, no XMP.
    const header = new Uint8Array(10);
    header[0] = 0x10;
    const w = size.width - 1, h = size.height - 1;
    header.set([w & 0xff, (w >> 8) & 0xff, (w >> 16) & 0xff, h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff], 4);
    bytes = riff([chunk("VP8X", header), chunk("ALPH", alpha.data), chunk(image.fourcc, image.data)]);
  } else {
    bytes = riff([chunk(image.fourcc, image.data)]);
  }
  return { ...size, bytes };
}
