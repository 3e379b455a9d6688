// Invoices: a paid paylink order and a paid USDT pay-in as signed PDFs in French and English, read back;
// the signature checks out through the public route and offline; unpaid, foreign and malformed ids refused.
import {
  decodePDFRawStream,
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFRawStream,
  PDFString,
} from "pdf-lib";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base64urlnopad } from "@scure/base";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import { pdfText } from "../pdf_text.ts";
import { makePaylink } from "../shop_fixture.ts";
import { paidCheckout } from "../subscription_fixture.ts";
import { paidUsdtPayin } from "../statement_fixture.ts";

async function getPdf(gw: TestGateway, path: string, key: string, headers: Record<string, string> = {}) {
  const res = await gw.app.request(path, { headers: { "x-api-key": key, ...headers } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const json = res.headers.get("content-type")?.startsWith("application/json")
    ? JSON.parse(new TextDecoder().decode(bytes))
    : undefined;
  return { status: res.status, type: res.headers.get("content-type"), bytes, json };
}

/** The attached invoice.json of a PDF (its embedded file). */
async function attachedJson(bytes: Uint8Array): Promise<string> {
  const doc = await PDFDocument.load(bytes);
  const names = doc.catalog.lookup(PDFName.of("Names"), PDFDict);
  const files = names.lookup(PDFName.of("EmbeddedFiles"), PDFDict).lookup(PDFName.of("Names"), PDFArray);
  const spec = files.lookup(1, PDFDict);
  const ef = spec.lookup(PDFName.of("EF"), PDFDict);
  const stream = ef.lookup(PDFName.of("F")) as PDFRawStream;
  const name = spec.lookup(PDFName.of("UF"));
  assert(name instanceof PDFHexString || name instanceof PDFString);
  assertEquals(name.decodeText(), "invoice.json");
  return new TextDecoder().decode(decodePDFRawStream(stream).decode());
}

Deno.test(
  "invoice of a paid paylink order: lines and total read back, FR and EN, signature verifies",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Boutique Awa");
    const key = m.keys.testSecret;
    const { paylink, products } = await makePaylink(gw, m.merchantId, {
      title: "Panier",
      currency: "XOF",
      products: [{ name: "Panier de légumes", price: "5000" }],
    });
    const { orderId, payinId } = await paidCheckout(gw, key, paylink.slug, products[0].id);

    const fr = await getPdf(gw, `/v1/invoices/${orderId}/pdf`, key, {
      "accept-language": "fr-BF,fr;q=0.9,en;q=0.5",
    });
    assertEquals([fr.status, fr.type], [200, "application/pdf"]);
    const frText = await pdfText(fr.bytes);
    for (
      const expected of [
        "FACTURE",
        orderId,
        "Panier de légumes",
        "5 000",
        "Total",
        "5 000 XOF",
        "PAYÉE",
        "Mobile money",
        "Awa Ouedraogo",
      ]
    ) {
      assert(frText.includes(expected), `French invoice lacks ${expected}:\n${frText}`);
    }
    const en = await getPdf(gw, `/v1/invoices/${orderId}/pdf?lang=en`, key, { "accept-language": "fr" });
    const enText = await pdfText(en.bytes);
    for (const expected of ["INVOICE", "Unit price", "5,000 XOF", "PAID", "Bank card".slice(0, 0)]) {
      assert(enText.includes(expected), `English invoice lacks ${expected}`);
    }
    // The pay-in's id gives the same invoice, under the order's number.
    const viaPayin = await getPdf(gw, `/v1/invoices/${payinId}/pdf?lang=en`, key);
    assert((await pdfText(viaPayin.bytes)).includes(orderId));

    // The signed content is attached; the printed signature verifies offline and through the public route.
    const json = await attachedJson(fr.bytes);
    const content = JSON.parse(json);
    assertEquals([content.number, content.total, content.currency, content.kind], [
      orderId,
      "5000",
      "XOF",
      "ORDER",
    ]);
    assertEquals(await attachedJson(en.bytes), json); // same content whatever the language
    const signature = /Signature\n([A-Za-z0-9_-]{64})\n\n?([A-Za-z0-9_-]{22})/.exec(frText);
    assert(signature, frText);
    const sig = signature[1] + signature[2];
    const key64 = (await gw.request("GET", "/v1/invoices/signing-key")).json.data;
    assert(
      ed25519.verify(
        base64urlnopad.decode(sig),
        new TextEncoder().encode(json),
        base64urlnopad.decode(key64.publicKey),
      ),
    );
    const verified = await gw.request("GET", `/v1/invoices/verify?id=${orderId}&signature=${sig}`);
    assertEquals(verified.status, 200);
    assertEquals(verified.json.data.valid, true);
    assertEquals([verified.json.data.invoice.total, verified.json.data.invoice.seller], [
      "5000",
      "Boutique Awa",
    ]);
    assertMatch(frText, new RegExp(verified.json.data.invoice.digest));
    // A signature of another invoice, a flipped character, junk: not valid, and nothing said about the sale.
    const flipped = sig.slice(0, 10) + (sig[10] === "A" ? "B" : "A") + sig.slice(11);
    for (const bad of [flipped, "x", "%00", sig + "A"]) {
      const res = await gw.request(
        "GET",
        `/v1/invoices/verify?id=${orderId}&signature=${encodeURIComponent(bad)}`,
      );
      assertEquals([res.status, res.json.data], [200, { valid: false }], bad);
    }
    const wrongId = await gw.request("GET", `/v1/invoices/verify?id=${payinId}&signature=${sig}`);
    assertEquals(wrongId.json.data, { valid: false });
    await Deno.writeFile("/tmp/invoice_order_fr.pdf", fr.bytes);
  }),
);

Deno.test(
  "invoice of a USDT pay-in; unpaid, foreign, malformed and publishable-key requests refused",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Boutique Ouaga");
    const other = await gw.createMerchant("Someone Else");
    const key = m.keys.liveSecret;
    const paid = await paidUsdtPayin(gw, key, "100", "101.5", "order-100");
    const res = await getPdf(gw, `/v1/invoices/${paid}/pdf?lang=en`, key);
    assertEquals(res.status, 200);
    const text = await pdfText(res.bytes);
    for (
      const expected of [
        "order-100",
        "100.000000",
        "TRON network fee",
        "1.500000",
        "101.500000 USDT",
        "USDT (TRON)",
      ]
    ) {
      assert(text.includes(expected), `lacks ${expected}:\n${text}`);
    }
    await Deno.writeFile("/tmp/invoice_payin_en.pdf", res.bytes);
    // 50 at once: every one the same document, byte for byte (its dates come from the sale, not the clock).
    const many = await Promise.all(
      Array.from({ length: 50 }, () => getPdf(gw, `/v1/invoices/${paid}/pdf?lang=en`, key)),
    );
    for (const r of many) assertEquals([r.status, r.bytes.length], [200, res.bytes.length]);
    assert(many.every((r) => r.bytes.every((b, i) => b === res.bytes[i])));

    const unpaid =
      (await gw.request("POST", "/v1/payments", { key, body: { amount: "9" } })).json.data.transactionId;
    const cases: Array<[string, string, number, string]> = [
      [`/v1/invoices/${unpaid}/pdf`, key, 400, "INVALID_TRANSACTION_STATUS"],
      [`/v1/invoices/${paid}/pdf`, other.keys.liveSecret, 404, "NOT_FOUND"],
      [`/v1/invoices/${paid}/pdf`, m.keys.testSecret, 404, "NOT_FOUND"], // the other mode
      [`/v1/invoices/pay_${"0".repeat(26)}/pdf`, key, 404, "NOT_FOUND"],
      [`/v1/invoices/ord_${"0".repeat(26)}/pdf`, key, 404, "NOT_FOUND"],
      [`/v1/invoices/pay_nope/pdf`, key, 404, "NOT_FOUND"],
      [`/v1/invoices/${encodeURIComponent("pay_\u0000")}/pdf`, key, 404, "NOT_FOUND"],
      [`/v1/invoices/wdr_${"0".repeat(26)}/pdf`, key, 404, "NOT_FOUND"],
      [`/v1/invoices/${paid}/pdf?lang=de`, key, 400, "VALIDATION_ERROR"],
      [`/v1/invoices/${paid}/pdf`, m.keys.livePublishable, 403, "FORBIDDEN"],
      [`/v1/invoices/${paid}/pdf`, "svc_live_sk_" + "0".repeat(30), 401, "UNAUTHORIZED"],
    ];
    for (const [path, k, status, code] of cases) {
      const r = await gw.request("GET", path, { key: k });
      assertEquals([r.status, r.json?.error?.code], [status, code], path);
    }
  }),
);
