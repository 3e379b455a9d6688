// qrPngDataUrl makes a real PNG that a QR reader decodes back to the text.
import { Buffer } from "node:buffer";
import jsQR from "jsqr";
import { PNG } from "pngjs";
import { assert, assertEquals, assertRejects } from "../assert.ts";
// @ts-types="@types/qrcode"
import QRCode from "qrcode";
import { qrPngDataUrl } from "../../rails/tron/qr.ts";
import { encodeQr, MAX_QR_BYTES } from "../../rails/tron/qr_encode.ts";

// jsqr is CommonJS: its default export is the function at run time, but its types see a module.
const decodeQr = jsQR as unknown as (data: Uint8ClampedArray, width: number, height: number) => {
  data: string;
} | null;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function decodeDataUrl(url: string): Uint8Array {
  const prefix = "data:image/png;base64,";
  assert(url.startsWith(prefix), url.slice(0, 40));
  return Uint8Array.from(atob(url.slice(prefix.length)), (c) => c.charCodeAt(0));
}

async function roundTrip(
  text: string,
): Promise<{ width: number; height: number; decoded: string | undefined }> {
  const bytes = decodeDataUrl(await qrPngDataUrl(text));
  assertEquals([...bytes.slice(0, 8)], PNG_SIGNATURE);
  const png = PNG.sync.read(Buffer.from(bytes));
  const code = decodeQr(
    new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length),
    png.width,
    png.height,
  );
  return { width: png.width, height: png.height, decoded: code?.data };
}

Deno.test("qr: a TRON address becomes a square PNG that decodes back to it", async () => {
  const address = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
  const { width, height, decoded } = await roundTrip(address);
  assertEquals(width, height);
  assert(width >= 100 && width <= 600, `width ${width}`);
  assertEquals(decoded, address);
});

Deno.test("qr: a longer payment URI round-trips too; empty text is refused", async () => {
  const uri = "tron:TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf?amount=12.500000&token=USDT";
  assertEquals((await roundTrip(uri)).decoded, uri);
  await assertRejects(() => qrPngDataUrl(""));
});

Deno.test("qr: the lean encoder draws module for module what qrcode draws, for every length it takes", () => {
  for (let length = 1; length <= MAX_QR_BYTES; length++) {
    for (const bytes of [crypto.getRandomValues(new Uint8Array(length)), new Uint8Array(length).fill(0x54)]) {
      const theirs =
        QRCode.create([{ data: bytes, mode: "byte" }], { errorCorrectionLevel: "M", maskPattern: 0 })
          .modules;
      const ours = encodeQr(bytes);
      assert(ours, `length ${length}`);
      assertEquals(ours.size, theirs.size, `length ${length}`);
      assertEquals([...ours.modules], [...theirs.data], `length ${length}`);
    }
  }
  assertEquals(encodeQr(new Uint8Array(MAX_QR_BYTES + 1)), undefined);
});

Deno.test("qr: texts past the lean encoder's versions still round-trip (through qrcode)", async () => {
  const long = `tron:TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf?memo=${"x".repeat(260)}`;
  const { decoded } = await roundTrip(long);
  assertEquals(decoded, long);
});

Deno.test("qr: every one of a few hundred derived-looking addresses decodes back from its PNG", async () => {
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  for (let n = 0; n < 200; n++) {
    const random = crypto.getRandomValues(new Uint8Array(33));
    const address = "T" + Array.from(random, (b) => alphabet[b % alphabet.length]).join("");
    assertEquals((await roundTrip(address)).decoded, address);
  }
});
