// Paylink images and CSV imports through the whole app: bytes checked (magic, header size, real decode),
// metadata stripped by re-encoding, the public image route's caching headers; huge and malformed
// multipart bodies; CSV with wrong columns and bad rows reported by line, all or nothing.
import { Image } from "imagescript";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import {
  chunk,
  chunksOf,
  losslessWebp,
  riff,
  vp8lSolid,
  vp8x,
  webpWithMetadata,
} from "../support/webp_fixtures.ts";

/** A PNG with a tEXt chunk (metadata a phone or editor leaves behind) inserted after IHDR. */
async function pngWithMetadata(): Promise<Uint8Array> {
  const img = new Image(8, 6);
  img.fill(0x3366ccff);
  const png = await img.encode();
  const text = new TextEncoder().encode("Comment\u0000GPS 12.3714,-1.5197 secret");
  const chunk = new Uint8Array(12 + text.length);
  new DataView(chunk.buffer).setUint32(0, text.length);
  chunk.set(new TextEncoder().encode("tEXt"), 4);
  chunk.set(text, 8);
  // CRC left as zero: decoders that check it would refuse, ours re-encodes from pixels that decode fine.
  const out = new Uint8Array(png.length + chunk.length);
  out.set(png.subarray(0, 33));
  out.set(chunk, 33);
  out.set(png.subarray(33), 33 + chunk.length);
  return out;
}

function upload(
  gw: TestGateway,
  path: string,
  key: string,
  bytes: Uint8Array,
  name = "file",
  type = "image/png",
) {
  const form = new FormData();
  form.append(name, new File([bytes as Uint8Array<ArrayBuffer>], "upload.bin", { type }));
  return send(gw, path, key, form);
}

async function send(
  gw: TestGateway,
  path: string,
  key: string,
  body: BodyInit,
  headers: Record<string, string> = {},
) {
  const res = await gw.app.request(path, { method: "POST", headers: { "x-api-key": key, ...headers }, body });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: res.headers };
}

Deno.test("paylink images and CSV import", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Media Shop");
    const other = await gw.createMerchant("Other");
    const key = m.keys.liveSecret;
    const created = await gw.request("POST", "/v1/paylinks", {
      key,
      body: { currency: "XOF", products: [{ name: "Pagne", price: "5000" }] },
    });
    const id = created.json.data.id;
    const productId = created.json.data.products[0].id;
    const cover = `/v1/paylinks/${id}/cover-image`;

    await t.step(
      "a PNG cover: re-encoded without its metadata, served with long caching and an ETag",
      async () => {
        const res = await upload(gw, cover, key, await pngWithMetadata());
        assertEquals(res.status, 200);
        const keyName = res.json.data.coverImageKey;
        assertMatch(keyName, /^[0-9a-f]{64}\.png$/);
        assertEquals(res.json.data.coverImageUrl, `${gw.deps.config.publicUrl}/v1/images/${keyName}`);
        const image = await gw.app.request(`/v1/images/${keyName}`);
        assertEquals(image.status, 200);
        assertEquals(image.headers.get("content-type"), "image/png");
        assertEquals(image.headers.get("cache-control"), "public, max-age=31536000, immutable");
        const bytes = new Uint8Array(await image.arrayBuffer());
        const asText = new TextDecoder("latin1").decode(bytes);
        assert(
          !asText.includes("GPS") && !asText.includes("secret"),
          `metadata survived: ${bytes.length} ${asText.slice(0, 80)}`,
        );
        const etag = image.headers.get("etag")!;
        const cached = await gw.app.request(`/v1/images/${keyName}`, { headers: { "if-none-match": etag } });
        assertEquals(cached.status, 304);
        // Not a key at all: VALIDATION_ERROR; a well-formed key nobody stored: NOT_FOUND.
        for (const bad of ["nope", "..%2F..%2Fetc%2Fpasswd", `${"0".repeat(64)}.gif`]) {
          assertEquals((await gw.app.request(`/v1/images/${bad}`)).status, 400);
        }
        assertEquals((await gw.app.request(`/v1/images/${"0".repeat(64)}.png`)).status, 404);
        const removed = await gw.request("DELETE", cover, { key });
        assertEquals(removed.json.data.coverImageKey, null);
      },
    );

    await t.step(
      "a JPEG product image is accepted; a WebP is kept as WebP without its metadata",
      async () => {
        const img = new Image(5, 5);
        img.fill(0xff8800ff);
        const jpeg = await img.encodeJPEG(80);
        const res = await upload(
          gw,
          `/v1/paylinks/${id}/products/${productId}/image`,
          key,
          jpeg,
          "file",
          "image/jpeg",
        );
        assertEquals(res.status, 200);
        assertMatch(res.json.data.imageKey, /\.jpg$/);
        const w = await upload(gw, cover, key, await webpWithMetadata(8, 6), "file", "image/webp");
        assertEquals(w.status, 200, JSON.stringify(w.json));
        assertMatch(w.json.data.coverImageKey, /^[0-9a-f]{64}\.webp$/);
        const served = await gw.app.request(`/v1/images/${w.json.data.coverImageKey}`);
        assertEquals(served.headers.get("content-type"), "image/webp");
        const bytes = new Uint8Array(await served.arrayBuffer());
        assertEquals(chunksOf(bytes).map((c) => c.fourcc), ["VP8 "]);
        assert(!new TextDecoder("latin1").decode(bytes).includes("secret"), "EXIF/XMP survived");
        // A WebP that lies about its size: refused with its reason, nothing new stored.
        const stored = (await gw.db.query("SELECT 1 FROM stored_objects")).length;
        const liar = losslessWebp(4, 4, [255, 1, 2, 3]);
        new DataView(liar.buffer).setUint32(16, 999, true);
        const bad = await upload(gw, cover, key, liar, "file", "image/webp");
        assertEquals([bad.status, bad.json.error.code, bad.json.error.details[0].reason], [
          400,
          "VALIDATION_ERROR",
          "the WebP VP8L chunk is truncated",
        ]);
        const animated = await upload(
          gw,
          cover,
          key,
          riff(chunk("VP8X", vp8x(0x02, 4, 4)), chunk("VP8L", vp8lSolid(4, 4, [255, 1, 2, 3]))),
          "file",
          "image/webp",
        );
        assertEquals(animated.json.error.details[0].reason, "animated images are not accepted");
        assertEquals((await gw.db.query("SELECT 1 FROM stored_objects")).length, stored);
        await gw.request("DELETE", cover, { key });
      },
    );

    await t.step(
      "not images, damaged images, giant dimensions: VALIDATION_ERROR on file, nothing stored",
      async () => {
        const png = await new Image(4, 4).encode();
        const huge = png.slice();
        new DataView(huge.buffer).setUint32(16, 100_000);
        const cases: Array<[string, Uint8Array]> = [
          ["text", new TextEncoder().encode("<?php echo 'hi'; ?>")],
          ["empty", new Uint8Array()],
          ["truncated", png.subarray(0, 40)],
          ["huge dimensions", huge],
          ["gif", new TextEncoder().encode("GIF89a\u0001\u0000\u0001\u0000")],
          [
            "random after magic",
            new Uint8Array([
              0x89,
              0x50,
              0x4e,
              0x47,
              0x0d,
              0x0a,
              0x1a,
              0x0a,
              ...crypto.getRandomValues(new Uint8Array(200)),
            ]),
          ],
        ];
        for (const [name, bytes] of cases) {
          const res = await upload(gw, cover, key, bytes);
          assertEquals([res.status, res.json.error.code], [400, "VALIDATION_ERROR"], name);
        }
        assertEquals((await gw.db.query("SELECT 1 FROM stored_objects")).length, 3);
      },
    );

    await t.step("huge, malformed and mislabelled bodies: clear 4xx, never 500", async () => {
      const big = new Uint8Array(6 * 1024 * 1024);
      big.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const tooBig = await upload(gw, cover, key, big);
      assertEquals([tooBig.status, tooBig.json.error.code], [400, "BAD_REQUEST"]);
      const garbage = await send(gw, cover, key, "--x\r\nnot really multipart", {
        "content-type": "multipart/form-data; boundary=zzz",
      });
      assert(garbage.status === 400, String(garbage.status));
      const noBoundary = await send(gw, cover, key, "abc", { "content-type": "multipart/form-data" });
      assertEquals(noBoundary.status, 400);
      const json = await send(gw, cover, key, "{}", { "content-type": "application/json" });
      assertEquals(json.status, 400);
      assert(["BAD_REQUEST", "VALIDATION_ERROR"].includes(json.json.error.code));
      const wrongPart = await upload(gw, cover, key, await new Image(2, 2).encode(), "image");
      assertEquals(wrongPart.json.error.details[0].field, "file");
      const someoneElse = await upload(gw, cover, other.keys.liveSecret, await new Image(2, 2).encode());
      assertEquals(someoneElse.status, 404);
      const malformedId = await upload(
        gw,
        "/v1/paylinks/plk_x/cover-image",
        key,
        await new Image(2, 2).encode(),
      );
      assertEquals(malformedId.status, 404);
      const noKey = await gw.app.request(cover, { method: "POST", body: new FormData() });
      assertEquals(noKey.status, 401);
    });

    const csv = (text: string) =>
      upload(
        gw,
        `/v1/paylinks/${id}/products/import-csv`,
        key,
        new TextEncoder().encode(text),
        "file",
        "text/csv",
      );

    await t.step("CSV import: products added in order, quoted fields, digital products", async () => {
      const res = await csv(
        'name,price,description,productType,digitalUrl,stockQty\n"Boubou, brodé",15000,"Taille ""M""",,,4\nGuide,2000,,DIGITAL,https://files.example.com/guide.pdf,\n',
      );
      assertEquals(res.status, 201, JSON.stringify(res.json));
      assertEquals(res.json.data.imported, 2);
      assertEquals(res.json.data.products.map((p: { name: string }) => p.name), ["Boubou, brodé", "Guide"]);
      assertEquals(res.json.data.products[0].description, 'Taille "M"');
      assertEquals([res.json.data.products[0].stockQty, res.json.data.products[0].price], [
        4,
        "15000.000000000000000000",
      ]);
      const got = await gw.request("GET", `/v1/paylinks/${id}`, { key });
      assertEquals(got.json.data.products.length, 3);
    });

    await t.step(
      "CSV with wrong columns, bad rows by line, malformed quoting: nothing imported",
      async () => {
        const wrong = await csv("title,cost\nA,1\n");
        assertEquals(wrong.json.error.code, "VALIDATION_ERROR");
        assertEquals(wrong.json.error.details.map((d: { field: string }) => d.field), [
          "column title",
          "column cost",
          "column name",
          "column price",
        ]);
        const bad = await csv("name,price,stockQty\nOk,100,1\n,200,\nDecimals,100.5,\nNegative,100,-3\n");
        assertEquals(bad.json.error.code, "IMPORT_VALIDATION_FAILED");
        assertEquals(bad.json.error.details.map((d: { field: string }) => d.field), [
          "line 3: name",
          "line 4: price",
          "line 5: stockQty",
        ]);
        const quotes = await csv('name,price\n"unclosed,100\n');
        assertEquals(quotes.json.error.code, "VALIDATION_ERROR");
        const ragged = await csv("name,price\nA,1,extra\n");
        assertEquals(ragged.json.error.code, "VALIDATION_ERROR");
        const binary = await csv("\u0000\u0001\u0002");
        assertEquals(binary.json.error.code, "VALIDATION_ERROR");
        const got = await gw.request("GET", `/v1/paylinks/${id}`, { key });
        assertEquals(got.json.data.products.length, 3);
      },
    );
  } finally {
    await gw.close();
  }
});
