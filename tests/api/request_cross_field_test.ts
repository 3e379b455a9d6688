// Request rules that tie one field to another are in /v1/openapi.json, and the document and the server
// agree on them body by body (issue 19): a fiat destination's fields by its kind, a paylink's prices by
// its currency, a delivery link only on a DIGITAL product, a simulated amount by its currency. A rail the
// paylink does not offer depends on state: it is a state code (PAYMENT_METHOD_NOT_ACCEPTED), not a
// validation error, and so is a product the paylink does not sell (NOT_FOUND).
import { assertEquals } from "../assert.ts";
import { contractFor } from "../contract.ts";
import { withGateway } from "../helpers.ts";
import { makePaylink } from "../shop_fixture.ts";

type Case = [body: Record<string, unknown>, status: number, code?: string];

const MOMO = { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456" };
const BANK = { kind: "BANK", bankName: "Coris Bank", bankAccountName: "Boutique Awa" };
const IBAN = "BF42BF0840101300463574000390";

Deno.test(
  "fiat destinations: the fields of each kind are the document's, and the server answers its codes",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Kinds");
    const doc = (await gw.request("GET", "/v1/openapi.json")).json;
    const contract = contractFor(JSON.stringify(doc));
    const body = doc.components.schemas.RegisterFiatDestination;
    assertEquals(body.discriminator?.propertyName, "kind");
    assertEquals(body.oneOf.length, 2);
    assertEquals(doc.components.schemas.RegisterMomoDestination.required.sort(), [
      "kind",
      "momoOperator",
      "momoPhone",
    ]);
    const cases: Case[] = [
      [MOMO, 201],
      [{ ...BANK, bankIban: IBAN }, 201],
      [{ ...BANK, bankAccountNumber: "000123456789", bankCode: "BF042" }, 201],
      [{ kind: "MOMO" }, 400, "MISSING_MOBILE_MONEY_FIELDS"],
      [{ kind: "MOMO", momoPhone: "+22670123456" }, 400, "MISSING_MOBILE_MONEY_FIELDS"],
      [{ ...BANK }, 400, "MISSING_BANK_FIELDS"],
      [{ ...BANK, bankName: "  ", bankIban: IBAN }, 400, "MISSING_BANK_FIELDS"],
      [{ ...BANK, bankAccountNumber: "000123456789" }, 400, "MISSING_BANK_FIELDS"],
      [{ kind: "BANK", bankIban: IBAN }, 400, "MISSING_BANK_FIELDS"],
      [{ ...BANK, bankIban: IBAN, bankAccountNumber: "000123456789" }, 400, "FIAT_DESTINATION_INVALID"],
      [
        { ...BANK, bankIban: IBAN, bankAccountNumber: "000123456789", bankCode: "BF042" },
        400,
        "FIAT_DESTINATION_INVALID",
      ],
      [{ ...MOMO, bankIban: IBAN }, 400, "FIAT_DESTINATION_INVALID"],
      [{ ...MOMO, kind: "CASH" }, 400, "VALIDATION_ERROR"],
    ];
    for (const [i, [sent, status, code]] of cases.entries()) {
      // Distinct numbers, so that each accepted registration is a new destination.
      const res = await gw.request("POST", "/v1/merchants/fiat-destinations", {
        key: m.keys.liveSecret,
        body: sent.kind === "MOMO" && sent.momoPhone ? { ...sent, momoPhone: `+2267012345${i % 10}` } : sent,
      });
      const what = JSON.stringify(sent);
      assertEquals([res.status, res.json.error?.code], [status, code], `${what}: ${res.text}`);
      const verdict = contract.checkRequest("POST", "/v1/merchants/fiat-destinations", sent);
      assertEquals(verdict === null, status === 201, `the document on ${what}: ${verdict}`);
    }
  }),
);

Deno.test(
  "paylinks: prices in the paylink's currency and digitalUrl only on DIGITAL, in the document and the server",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Prices");
    const contract = contractFor((await gw.request("GET", "/v1/openapi.json")).text);
    const product = (extra: Record<string, unknown>) => ({ name: "Pagne", price: "5000", ...extra });
    const creations: Case[] = [
      [{ currency: "XOF", products: [product({})] }, 201],
      [{ products: [product({ price: "12.50" })] }, 201],
      [{ currency: "USDT_TRC20", products: [product({ price: "0.000001" })] }, 201],
      [{
        currency: "XOF",
        products: [product({ productType: "DIGITAL", digitalUrl: "https://f.example/a" })],
      }, 201],
      [{ currency: "XOF", products: [product({ price: "12.50" })] }, 400, "VALIDATION_ERROR"],
      [{ currency: "XOF", products: [product({ price: "0" })] }, 400, "VALIDATION_ERROR"],
      [{ products: [product({ price: "1.1234567" })] }, 400, "VALIDATION_ERROR"],
      [{ products: [product({ price: "1000000000000.5" })] }, 400, "VALIDATION_ERROR"],
      [{ products: [product({ digitalUrl: "https://f.example/a" })] }, 400, "VALIDATION_ERROR"],
      [
        { products: [product({ productType: "PHYSICAL", digitalUrl: "https://f.example/a" })] },
        400,
        "VALIDATION_ERROR",
      ],
    ];
    for (const [body, status, code] of creations) {
      const res = await gw.request("POST", "/v1/paylinks", { key: m.keys.liveSecret, body });
      const what = JSON.stringify(body);
      assertEquals([res.status, res.json.error?.code], [status, code], `${what}: ${res.text}`);
      const verdict = contract.checkRequest("POST", "/v1/paylinks", body);
      assertEquals(verdict === null, status === 201, `the document on ${what}: ${verdict}`);
    }
    const simulations: Case[] = [
      [{ amount: "5000", currency: "XOF" }, 200],
      [{ amount: "12.5" }, 200],
      [{ amount: "12.5", currency: "XOF" }, 400, "VALIDATION_ERROR"],
      [{ amount: "0", currency: "USDT_TRC20" }, 400, "VALIDATION_ERROR"],
    ];
    for (const [body, status, code] of simulations) {
      const res = await gw.request("POST", "/v1/paylinks/simulate", { key: m.keys.liveSecret, body });
      const what = JSON.stringify(body);
      assertEquals([res.status, res.json.error?.code], [status, code], `${what}: ${res.text}`);
      const verdict = contract.checkRequest("POST", "/v1/paylinks/simulate", body);
      assertEquals(verdict === null, status === 200, `the document on ${what}: ${verdict}`);
    }
  }),
);

Deno.test(
  "a rail the paylink does not offer is PAYMENT_METHOD_NOT_ACCEPTED; a product it does not sell NOT_FOUND",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Rails");
    const { paylink, products } = await makePaylink(gw, m.merchantId, {
      methods: ["USDT_TRC20"],
      products: [{ name: "Pagne", price: "5000" }],
      promos: [{ code: "BIENVENUE", type: "PERCENT", value: "10" }],
    });
    const items = [{ productId: products[0].id, quantity: 1 }];
    const lock = await gw.request("POST", `/v1/paylinks/${paylink.slug}/rate-lock`, {
      body: { paymentMethod: "CARD" },
    });
    assertEquals([lock.status, lock.json.error.code], [400, "PAYMENT_METHOD_NOT_ACCEPTED"]);
    assertEquals(lock.json.error.details, [{ field: "paymentMethod", reason: "offered: USDT_TRC20" }]);
    const checkout = (body: Record<string, unknown>, n: number) =>
      gw.request("POST", `/v1/pay/link/${paylink.slug}/checkout`, { body, clientAddress: `10.9.0.${n}` });
    const card = await checkout({ items, paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" }, 1);
    assertEquals([card.status, card.json.error.code], [400, "PAYMENT_METHOD_NOT_ACCEPTED"]);
    // A rate lock taken for one rail and spent on another.
    const usdtLock = await gw.request("POST", `/v1/paylinks/${paylink.slug}/rate-lock`, {
      body: { paymentMethod: "USDT_TRC20" },
    });
    assertEquals(usdtLock.status, 201, usdtLock.text);
    await gw.db.query("UPDATE paylinks SET accepted_methods = $1 WHERE id = $2", [
      ["USDT_TRC20", "CARD"],
      paylink.id,
    ]);
    const other = await checkout({
      items,
      paymentMethod: "CARD",
      customerName: "Awa",
      customerEmail: "awa@example.com",
      rateLockId: usdtLock.json.data.rateLockId,
    }, 2);
    assertEquals([other.status, other.json.error.code], [400, "PAYMENT_METHOD_NOT_ACCEPTED"]);
    for (
      const path of [`/v1/pay/link/${paylink.slug}/checkout`, `/v1/pay/link/${paylink.slug}/apply-promo`]
    ) {
      const unknown = [{ productId: "prd_01kzzzzzzzzzzzzzzzzzzzzzzz", quantity: 1 }];
      const res = await gw.request("POST", path, {
        body: path.endsWith("checkout") ? { items: unknown } : { code: "BIENVENUE", items: unknown },
        clientAddress: "10.9.0.3",
      });
      assertEquals([res.status, res.json.error.code], [404, "NOT_FOUND"], `${path}: ${res.text}`);
      assertEquals(res.json.error.details[0].field, "items.0.productId");
    }
    // Nothing was held by any of the refusals.
    const [{ n }] = await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM paylink_orders");
    assertEquals(n, 0);
  }),
);

Deno.test(
  "paylink bodies tie fields together in the document; a body at odds with what is stored is CONFLICT",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Stored");
    const key = m.keys.liveSecret;
    const contract = contractFor((await gw.request("GET", "/v1/openapi.json")).text);
    const send = (method: string, path: string, body: unknown) => gw.request(method, path, { key, body });
    // Body against itself: the document and the server refuse the same bodies.
    const bodies: Array<[string, string, Record<string, unknown>, number]> = [
      ["POST", "/v1/paylinks", { type: "RECURRING", products: [{ name: "Box", price: "10" }] }, 400],
      [
        "POST",
        "/v1/paylinks",
        { recurringInterval: "WEEKLY", products: [{ name: "Box", price: "10" }] },
        400,
      ],
      ["POST", "/v1/paylinks", { slug: "Boutique-Awa", products: [{ name: "Box", price: "10" }] }, 201],
      ["POST", "/v1/paylinks", { slug: "-awa", products: [{ name: "Box", price: "10" }] }, 400],
      [
        "POST",
        "/v1/paylinks",
        { type: "RECURRING", recurringInterval: "MONTHLY", products: [{ name: "Box", price: "10" }] },
        201,
      ],
    ];
    for (const [method, path, body, status] of bodies) {
      const res = await send(method, path, body);
      assertEquals(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
      assertEquals(contract.checkRequest(method, path, body) === null, status < 300, JSON.stringify(body));
    }
    // An XOF paylink with a PHYSICAL product and a promo code: what the body alone cannot know.
    const created = await send("POST", "/v1/paylinks", {
      currency: "XOF",
      products: [{ name: "Pagne", price: "5000" }],
    });
    assertEquals(created.status, 201, created.text);
    const id = created.json.data.id;
    const product = created.json.data.products[0].id;
    const promo = await send("POST", `/v1/paylinks/${id}/promo-codes`, {
      code: "moins500",
      discountType: "FIXED",
      discountValue: "500",
    });
    assertEquals([promo.status, promo.json.data?.code], [201, "MOINS500"], promo.text);
    const stored: Array<[string, string, Record<string, unknown>, number, string?]> = [
      ["POST", `/v1/paylinks/${id}/products`, { name: "Perle", price: "12.5" }, 409, "CONFLICT"],
      ["POST", `/v1/paylinks/${id}/products`, { name: "Perle", price: "12" }, 201],
      ["PATCH", `/v1/paylinks/${id}/products/${product}`, { price: "4999.5" }, 409, "CONFLICT"],
      [
        "PATCH",
        `/v1/paylinks/${id}/products/${product}`,
        { digitalUrl: "https://f.example/a" },
        409,
        "CONFLICT",
      ],
      [
        "PATCH",
        `/v1/paylinks/${id}/products/${product}`,
        { productType: "PHYSICAL", digitalUrl: "https://f.example/a" },
        400,
        "VALIDATION_ERROR",
      ],
      [
        "PATCH",
        `/v1/paylinks/${id}/products/${product}`,
        { productType: "DIGITAL", digitalUrl: "https://f.example/a" },
        200,
      ],
      ["PATCH", `/v1/paylinks/${id}`, { recurringInterval: "WEEKLY" }, 409, "CONFLICT"],
      [
        "PATCH",
        `/v1/paylinks/${id}/promo-codes/${promo.json.data.id}`,
        { discountValue: "12.5" },
        409,
        "CONFLICT",
      ],
      [
        "PATCH",
        `/v1/paylinks/${id}/promo-codes/${promo.json.data.id}`,
        { discountType: "PERCENT", discountValue: "150" },
        400,
        "VALIDATION_ERROR",
      ],
      [
        "PATCH",
        `/v1/paylinks/${id}/promo-codes/${promo.json.data.id}`,
        { discountValue: "abc" },
        400,
        "VALIDATION_ERROR",
      ],
      [
        "PATCH",
        `/v1/paylinks/${id}/promo-codes/${promo.json.data.id}`,
        { discountType: "PERCENT", discountValue: "15" },
        200,
      ],
      [
        "POST",
        `/v1/paylinks/${id}/promo-codes`,
        { code: "x", discountType: "PERCENT", discountValue: "0" },
        400,
        "VALIDATION_ERROR",
      ],
      [
        "POST",
        `/v1/paylinks/${id}/promo-codes`,
        { code: "fixe", discountType: "FIXED", discountValue: "2.5" },
        409,
        "CONFLICT",
      ],
    ];
    const template = (path: string) =>
      path.replace(id, "{id}").replace(product, "{productId}").replace(promo.json.data.id, "{codeId}");
    for (const [method, path, body, status, code] of stored) {
      const res = await send(method, path, body);
      const what = `${method} ${template(path)} ${JSON.stringify(body)}`;
      assertEquals([res.status, res.json.error?.code], [status, code], `${what}: ${res.text}`);
      // A conflict is about what is stored: the body itself is valid against the document.
      assertEquals(contract.checkRequest(method, template(path), body) === null, status !== 400, what);
    }
  }),
);
