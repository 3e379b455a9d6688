// Images are checked and cleaned with no native code (the server runs without --allow-ffi): a JPEG keeps
// its picture and loses EXIF/XMP/comments, a PNG is rebuilt from its pixels, damaged data is refused.
import { Image } from "imagescript";
import { cleanImage } from "../../domain/paylinks/images.ts";
import { decodeJpeg, decodePng, stripJpegMetadata } from "../../domain/paylinks/pixels.ts";
import { AppError } from "../../domain/errors.ts";
import { assert, assertEquals } from "../assert.ts";

const SECRET = "GPS 12.3714,-1.5197 owner@example.com";

function segment(marker: number, payload: string): Uint8Array {
  const data = new TextEncoder().encode(payload);
  const out = new Uint8Array(4 + data.length);
  out.set([0xff, marker, (data.length + 2) >> 8, (data.length + 2) & 0xff]);
  out.set(data, 4);
  return out;
}

function withSegments(jpeg: Uint8Array, ...segments: Uint8Array[]): Uint8Array {
  const size = jpeg.length + segments.reduce((s, x) => s + x.length, 0);
  const out = new Uint8Array(size);
  out.set(jpeg.subarray(0, 2));
  let at = 2;
  for (const s of segments) {
    out.set(s, at);
    at += s.length;
  }
  out.set(jpeg.subarray(2), at);
  return out;
}

const text = (b: Uint8Array) => new TextDecoder("latin1").decode(b);

Deno.test("a JPEG loses its EXIF, XMP and comments, keeps its picture, and still decodes", async () => {
  const img = new Image(7, 5);
  img.fill(0x3366ccff);
  const plain = await img.encodeJPEG(85);
  const dirty = withSegments(
    plain,
    segment(0xe1, `Exif\u0000\u0000${SECRET}`),
    segment(0xe1, `http://ns.adobe.com/xap/1.0/\u0000${SECRET}`),
    segment(0xfe, SECRET),
  );
  assert(text(dirty).includes(SECRET));
  const stripped = stripJpegMetadata(dirty);
  assert(!text(stripped).includes(SECRET));
  assertEquals(await decodeJpeg(stripped), { width: 7, height: 5 });
  const cleaned = await cleanImage(dirty);
  assertEquals(cleaned.contentType, "image/jpeg");
  assert(!text(cleaned.bytes).includes(SECRET));
  // The compressed picture is untouched: the same pixels as the original decode.
  const [a, b] = [await Image.decode(plain), await Image.decode(cleaned.bytes)];
  assertEquals(Array.from(a.bitmap), Array.from(b.bitmap));
});

Deno.test("a PNG is rebuilt from its pixels; damaged JPEG and PNG data are refused", async () => {
  const img = new Image(3, 2);
  img.fill(0xff0000ff);
  const png = await img.encode();
  const cleaned = await cleanImage(png);
  const decoded = await decodePng(cleaned.bytes);
  assertEquals([decoded.width, decoded.height, decoded.rgba[0], decoded.rgba[3]], [3, 2, 255, 255]);

  const jpeg = await img.encodeJPEG(80);
  const truncated = jpeg.slice(0, Math.floor(jpeg.length / 2));
  const lying = withSegments(jpeg, new Uint8Array([0xff, 0xe1, 0xff, 0xff, 1, 2]));
  for (const bad of [truncated, lying, png.slice(0, 40)]) {
    const err = await cleanImage(bad).then(() => undefined, (e) => e);
    assert(err instanceof AppError, "refused with a typed error");
    assertEquals(err.code, "VALIDATION_ERROR");
  }
});
