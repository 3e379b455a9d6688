// The WebP container check and rewrite (domain/paylinks/webp.ts) on hand-built and encoder-made files:
// what is kept (the image chunks, byte for byte), what is dropped (EXIF, XMP, ICCP), and every lie a
// file can tell about its sizes refused with a reason.
import { cleanWebp, WebpError } from "../../domain/paylinks/webp.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  chunk,
  chunksOf,
  losslessWebp,
  lossyWebp,
  riff,
  vp8lSolid,
  vp8x,
  webpWithMetadata,
} from "../support/webp_fixtures.ts";

const MAX = 4096;

/** The reason a file is refused for; fails the test when it is accepted or something else is thrown. */
function refusal(bytes: Uint8Array, what = ""): string {
  try {
    cleanWebp(bytes, MAX);
  } catch (err) {
    assert(err instanceof WebpError, `${what}: ${err}`);
    return err.message;
  }
  throw new Error(`accepted: ${what}`);
}

function refused(bytes: Uint8Array, reason: string) {
  assertEquals(refusal(bytes), reason);
}

Deno.test("a hand-built lossless WebP is kept as it is, with its dimensions read from VP8L", () => {
  const file = losslessWebp(7, 3, [255, 200, 30, 10]);
  const clean = cleanWebp(file, MAX);
  assertEquals([clean.width, clean.height], [7, 3]);
  assertEquals(clean.bytes, file);
});

Deno.test("a lossy WebP: dimensions from the VP8 key frame; with alpha, VP8X + ALPH + VP8 kept", async () => {
  const opaque = await lossyWebp(9, 5, 0xff8800ff);
  const a = cleanWebp(opaque, MAX);
  assertEquals([a.width, a.height], [9, 5]);
  assertEquals(a.bytes, opaque);
  const translucent = await lossyWebp(6, 4, 0xff880080);
  assertEquals(chunksOf(translucent).map((c) => c.fourcc), ["VP8X", "ALPH", "VP8 "]);
  const b = cleanWebp(translucent, MAX);
  assertEquals([b.width, b.height], [6, 4]);
  assertEquals(chunksOf(b.bytes).map((c) => c.fourcc), ["VP8X", "ALPH", "VP8 "]);
  assertEquals(chunksOf(b.bytes)[0].data[0], 0x10, "only the alpha flag");
});

Deno.test("EXIF, XMP and ICCP are dropped; VP8X is dropped when nothing needs it", async () => {
  const file = await webpWithMetadata(8, 6);
  assertEquals(chunksOf(file).map((c) => c.fourcc), ["VP8X", "ICCP", "VP8 ", "EXIF", "XMP "]);
  const clean = cleanWebp(file, MAX);
  assertEquals(chunksOf(clean.bytes).map((c) => c.fourcc), ["VP8 "]);
  const text = new TextDecoder("latin1").decode(clean.bytes);
  for (const secret of ["secret-exif", "secret-xmp", "GPS", "Apple Display P3"]) {
    assert(!text.includes(secret), `${secret} survived`);
  }
  assertEquals(chunksOf(clean.bytes)[0].data, chunksOf(file)[2].data, "the pixels are untouched");
  // A lossless image with metadata in the extended format comes out in the simple one.
  const vp8l = vp8lSolid(4, 4, [255, 1, 2, 3]);
  const ext = riff(
    chunk("VP8X", vp8x(0x08, 4, 4)),
    chunk("VP8L", vp8l),
    chunk("EXIF", new TextEncoder().encode("Exif\0\0x")),
  );
  assertEquals(cleanWebp(ext, MAX).bytes, losslessWebp(4, 4, [255, 1, 2, 3]));
});

Deno.test("lying sizes, truncated chunks, missing or extra pieces: refused with a reason", async () => {
  const good = losslessWebp(5, 5, [255, 0, 0, 0]);
  const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  const riffTooBig = good.slice();
  view(riffTooBig).setUint32(4, good.length + 100, true);
  refused(riffTooBig, "the WebP container size does not match the file");
  const riffTooSmall = good.slice();
  view(riffTooSmall).setUint32(4, 12, true);
  refused(riffTooSmall, "the WebP container size does not match the file");
  const chunkLies = good.slice();
  view(chunkLies).setUint32(16, 4000, true);
  refused(chunkLies, "the WebP VP8L chunk is truncated");
  const huge = good.slice();
  view(huge).setUint32(16, 0xffffffff, true);
  refused(huge, "the WebP VP8L chunk is truncated");
  // Cut anywhere: a clear refusal, never a crash.
  for (let n = 0; n < good.length; n++) {
    refusal(good.subarray(0, n), `cut at ${n}`);
  }
  const lossy = await lossyWebp(9, 5, 0xff8800ff);
  for (let n = 12; n < lossy.length; n += 3) {
    const cut = lossy.slice(0, n);
    view(cut).setUint32(4, n - 8, true); // even the container size agreeing with the cut
    if (n % 2 === 0) refusal(cut, `cut at ${n}`);
  }
  refused(riff(), "not a WebP file");
  refused(riff(chunk("EXIF", new Uint8Array(8))), "the WebP file holds no image");
  refused(
    riff(chunk("VP8L", vp8lSolid(2, 2, [255, 0, 0, 0])), chunk("VP8L", vp8lSolid(2, 2, [255, 0, 0, 0]))),
    "several images",
  );
  refused(
    riff(chunk("VP8L", vp8lSolid(2, 2, [255, 0, 0, 0])), chunk("EXIF", new Uint8Array(2))),
    "a simple WebP file holds one image chunk only",
  );
  const badSig = vp8lSolid(2, 2, [255, 0, 0, 0]);
  badSig[0] = 0x2e;
  refused(riff(chunk("VP8L", badSig)), "the VP8L signature is wrong");
  const badVersion = vp8lSolid(2, 2, [255, 0, 0, 0]);
  badVersion[4] |= 0x20;
  refused(riff(chunk("VP8L", badVersion)), "the VP8L version is unknown");
  const vp8 = chunksOf(lossy)[0].data;
  const interFrame = vp8.slice();
  interFrame[0] |= 1;
  refused(riff(chunk("VP8 ", interFrame)), "the VP8 frame is not a key frame");
  const noStart = vp8.slice();
  noStart[3] = 0;
  refused(riff(chunk("VP8 ", noStart)), "the VP8 start code is missing");
  const bigPartition = vp8.slice();
  bigPartition[2] = 0xff;
  refused(riff(chunk("VP8 ", bigPartition)), "the VP8 partition size is wrong");
});

Deno.test("animation, a canvas that disagrees, huge dimensions, a misplaced ALPH: refused", async () => {
  const vp8l = vp8lSolid(3, 3, [255, 9, 9, 9]);
  refused(riff(chunk("VP8X", vp8x(0x02, 3, 3)), chunk("VP8L", vp8l)), "animated images are not accepted");
  refused(
    riff(chunk("VP8X", vp8x(0, 3, 3)), chunk("ANIM", new Uint8Array(6)), chunk("VP8L", vp8l)),
    "animated images are not accepted",
  );
  refused(
    riff(chunk("VP8X", vp8x(0, 4000, 3)), chunk("VP8L", vp8l)),
    "the VP8X canvas does not match the image",
  );
  refused(riff(chunk("VP8X", vp8x(0x01, 3, 3)), chunk("VP8L", vp8l)), "the VP8X reserved bits are set");
  refused(riff(chunk("VP8X", new Uint8Array(4)), chunk("VP8L", vp8l)), "the VP8X header is truncated");
  // 16384 × 16384 is what VP8L can say; far beyond the limit (a decompression bomb): refused unread.
  refused(losslessWebp(16384, 16384, [255, 0, 0, 0]), "at most 4096 pixels on a side");
  refused(losslessWebp(4097, 1, [255, 0, 0, 0]), "at most 4096 pixels on a side");
  assertEquals(cleanWebp(losslessWebp(4096, 1, [255, 0, 0, 0]), MAX).width, 4096);
  const translucent = chunksOf(await lossyWebp(6, 4, 0xff880080));
  const [head, alph, vp8] = translucent;
  refused(
    riff(chunk("VP8X", head.data), chunk("VP8 ", vp8.data), chunk("ALPH", alph.data)),
    "the ALPH chunk is misplaced",
  );
  refused(
    riff(chunk("VP8X", vp8x(0x10, 3, 3)), chunk("ALPH", alph.data), chunk("VP8L", vp8l)),
    "the ALPH chunk is misplaced",
  );
  const badAlpha = alph.data.slice();
  badAlpha[0] = 0xc0;
  refused(
    riff(chunk("VP8X", head.data), chunk("ALPH", badAlpha), chunk("VP8 ", vp8.data)),
    "the ALPH header is wrong",
  );
  const rawShort = new Uint8Array([0, 1, 2]); // uncompressed alpha needs width × height bytes
  refused(
    riff(chunk("VP8X", head.data), chunk("ALPH", rawShort), chunk("VP8 ", vp8.data)),
    "the ALPH chunk is truncated",
  );
});

Deno.test("mutated and random WebP files: a WebpError or a clean file, never another exception", async () => {
  const seeds = [
    losslessWebp(5, 5, [255, 0, 0, 0]),
    await lossyWebp(6, 4, 0xff880080),
    await webpWithMetadata(8, 6),
  ];
  let accepted = 0;
  for (let round = 0; round < 3000; round++) {
    const file = seeds[round % seeds.length].slice();
    const flips = 1 + (round % 4);
    for (let k = 0; k < flips; k++) {
      const at = Math.floor(Math.random() * file.length);
      file[at] = Math.floor(Math.random() * 256);
    }
    try {
      const clean = cleanWebp(file, MAX);
      accepted++;
      // Whatever is accepted comes out as a well-formed container that passes the check again.
      assertEquals(cleanWebp(clean.bytes, MAX).bytes, clean.bytes);
      assert(clean.width <= MAX && clean.height <= MAX);
    } catch (err) {
      assert(err instanceof WebpError, `round ${round}: ${err}`);
    }
  }
  for (let round = 0; round < 500; round++) {
    const junk = crypto.getRandomValues(new Uint8Array(20 + round));
    junk.set(new TextEncoder().encode("RIFF"));
    junk.set(new TextEncoder().encode("WEBP"), 8);
    new DataView(junk.buffer).setUint32(4, junk.length - 8, true);
    try {
      cleanWebp(junk, MAX);
    } catch (err) {
      assert(err instanceof WebpError, `${err}`);
    }
  }
  assert(accepted > 0, "some mutations only touch pixel data and stay acceptable");
});
