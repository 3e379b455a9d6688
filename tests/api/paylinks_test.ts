// Paylinks through the whole app (merchant side): both creation shapes, the record, slugs, modes and
// ownership, the plan limit, prices and stock, PATCH and the lifecycle, promo codes, templates, simulate.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

const product = (over: Record<string, unknown> = {}) => ({ name: "T-shirt", price: "12.50", ...over });

Deno.test("paylinks: merchant API", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Paylink Shop");
    const other = await gw.createMerchant("Other Shop");
    const key = m.keys.liveSecret;
    const create = (
      body: unknown,
      opts: { key?: string; headers?: Record<string, string>; query?: string } = {},
    ) =>
      gw.request("POST", `/v1/paylinks${opts.query ?? ""}`, {
        key: opts.key ?? key,
        body,
        headers: opts.headers,
      });

    let paylinkId = "";
    let tshirtId = "";
    await t.step(
      "product shape: the record with every field, 18-digit prices, paymentUrl at /pay/link/<slug>",
      async () => {
        const res = await create({
          name: "Summer sale",
          title: "Boutique Awa",
          products: [
            product({ stockQty: 3, lowStockThreshold: 1 }),
            {
              name: "E-book",
              price: "4",
              productType: "DIGITAL",
              digitalUrl: "https://files.example.com/book.pdf",
            },
          ],
          collectEmail: "REQUIRED",
          brandColor: "#0a7d4f",
          maxUses: 100,
          postPaymentAction: "We ship within 48 hours",
        });
        assertEquals(res.status, 201);
        const d = res.json.data;
        assertMatch(d.id, /^plk_/);
        assertMatch(d.slug, /^boutique-awa-[a-z0-9]{8}$/);
        assertEquals(d.paymentUrl, `${gw.deps.config.publicUrl}/pay/link/${d.slug}`);
        assertEquals([d.status, d.type, d.currency, d.useCount, d.maxUses, d.ordersCount], [
          "ACTIVE",
          "FIXED",
          "USDT_TRC20",
          0,
          100,
          0,
        ]);
        assertEquals([d.collectEmail, d.collectName, d.collectPhone, d.collectAddress], [
          "REQUIRED",
          "HIDDEN",
          "HIDDEN",
          "HIDDEN",
        ]);
        assertEquals(d.acceptedMethods, ["USDT_TRC20", "CARD", "MOBILE_MONEY"]);
        assertEquals(d.products.map((p: { price: string }) => p.price), [
          "12.500000000000000000",
          "4.000000000000000000",
        ]);
        assertEquals(d.products[0].stockEnabled, true);
        assertEquals(d.products[0].stockQty, 3);
        assertEquals(d.products[1].digitalUrl, "https://files.example.com/book.pdf");
        assertEquals(d.isSandbox, false);
        paylinkId = d.id;
        tshirtId = d.products[0].id;
        const got = await gw.request("GET", `/v1/paylinks/${paylinkId}`, { key });
        assertEquals(got.json.data, d);
      },
    );

    await t.step(
      "alternative shape: slug/title/amountMinor needs KYB; amountMinor is in cents for USDT",
      async () => {
        const res = await create({
          slug: "Cours-De-Yoga",
          title: "Cours de yoga",
          amountMinor: 2550,
          currency: "USDT_TRC20",
          acceptedMethods: ["CRYPTO"],
          category: "SERVICE_ONLINE",
        });
        assertEquals(res.status, 201);
        assertEquals(res.json.data.slug, "cours-de-yoga");
        assertEquals(res.json.data.acceptedMethods, ["USDT_TRC20"]);
        assertEquals(res.json.data.products[0].price, "25.500000000000000000");
        assertEquals(res.json.data.products[0].name, "Cours de yoga");
        const xof = await create({
          slug: "ticket-xof",
          title: "Ticket",
          amountMinor: 5000,
          currency: "XOF",
          acceptedMethods: ["MOBILE_MONEY"],
        });
        assertEquals(xof.json.data.products[0].price, "5000.000000000000000000");
        const pending = await gw.createMerchant("Unverified", "PENDING");
        const refused = await create(
          { slug: "nope-123", title: "x", amountMinor: 100, currency: "XOF", acceptedMethods: ["CARD"] },
          { key: pending.keys.liveSecret },
        );
        assertEquals(refused.json.error.code, "KYB_REQUIRED");
        const bad = await create({
          slug: "a-b-c",
          title: "t",
          amountMinor: -5,
          currency: "XOF",
          acceptedMethods: ["CARD"],
        });
        assertEquals(bad.json.error.code, "VALIDATION_ERROR");
        assertEquals(bad.json.error.details[0].field, "amountMinor");
      },
    );

    await t.step(
      "slugs: taken is DUPLICATE_RESOURCE; odd characters are VALIDATION_ERROR on slug",
      async () => {
        assertEquals(
          (await create({ slug: "cours-de-yoga", products: [product()] })).json.error.code,
          "DUPLICATE_RESOURCE",
        );
        for (const slug of ["a", "école", "x/y", "a b c", "-abc", "abc-", "<script>", "a".repeat(65)]) {
          const res = await create({ slug, products: [product()] });
          assertEquals(res.json.error.code, "VALIDATION_ERROR", slug);
          assertEquals(res.json.error.details[0].field, "slug");
        }
      },
    );

    await t.step(
      "PAYLINK_EMPTY, NO_METHODS_ENABLED, prices with too many decimals, negative stock",
      async () => {
        assertEquals((await create({ products: [] })).json.error.code, "PAYLINK_EMPTY");
        await gw.admin("PATCH", `/admin/api/merchants/${other.merchantId}`, { enabledRails: ["CARD"] });
        const noMethods = await create({ products: [product()], acceptedMethods: ["USDT_TRC20"] }, {
          key: other.keys.liveSecret,
        });
        assertEquals(noMethods.json.error.code, "NO_METHODS_ENABLED");
        const usdt = await create({ products: [product({ price: "1.1234567" })] });
        assertEquals(usdt.json.error.code, "VALIDATION_ERROR");
        assertEquals(usdt.json.error.details[0].field, "products.0.price");
        const xof = await create({ currency: "XOF", products: [product({ price: "100.5" })] });
        assertEquals(xof.json.error.details[0].field, "products.0.price");
        for (const price of ["0", "-1", "1e3", " 1", "abc", 12]) {
          assertEquals(
            (await create({ products: [product({ price })] })).json.error.code,
            "VALIDATION_ERROR",
          );
        }
        const negative = await create({ products: [product({ stockQty: -1 })] });
        assertEquals(negative.json.error.details[0].field, "products.0.stockQty");
        const physicalLink = await create({ products: [product({ digitalUrl: "https://x.example.com/f" })] });
        assertEquals(physicalLink.json.error.code, "VALIDATION_ERROR");
        assertEquals((await create({ products: [product()], extra: 1 })).json.error.code, "VALIDATION_ERROR");
        assertEquals(
          (await create({ type: "RECURRING", products: [product()] })).json.error.details[0].field,
          "recurringInterval",
        );
      },
    );

    await t.step(
      "modes and ownership: sandbox flag rules, another merchant's id, malformed ids",
      async () => {
        const sandboxNoFlag = await create({ products: [product()] }, { key: m.keys.testSecret });
        assertEquals(sandboxNoFlag.json.error.code, "SANDBOX_KEY_LIVE_REQUEST");
        const liveWithFlag = await create({ products: [product()] }, { query: "?sandbox=true" });
        assertEquals(liveWithFlag.json.error.code, "LIVE_KEY_SANDBOX_REQUEST");
        const sandbox = await create({ products: [product()] }, {
          key: m.keys.testSecret,
          headers: { "x-sandbox": "true" },
        });
        assertEquals(sandbox.status, 201);
        assertEquals(sandbox.json.data.isSandbox, true);
        // Sub-resources inherit the mode: the live key does not see the sandbox paylink, and the reverse.
        assertEquals((await gw.request("GET", `/v1/paylinks/${sandbox.json.data.id}`, { key })).status, 404);
        assertEquals(
          (await gw.request("GET", `/v1/paylinks/${paylinkId}`, { key: m.keys.testSecret })).status,
          404,
        );
        const promoInSandbox = await gw.request("POST", `/v1/paylinks/${sandbox.json.data.id}/promo-codes`, {
          key: m.keys.testSecret,
          body: { code: "test", discountType: "PERCENT", discountValue: "5" },
        });
        assertEquals(promoInSandbox.status, 201);
        for (const path of [`/v1/paylinks/${paylinkId}`, `/v1/paylinks/${paylinkId}/promo-codes`]) {
          const res = await gw.request("GET", path, { key: other.keys.liveSecret });
          assertEquals([res.status, res.json.error.code], [404, "NOT_FOUND"]);
        }
        const patchOther = await gw.request("PATCH", `/v1/paylinks/${paylinkId}`, {
          key: other.keys.liveSecret,
          body: { status: "INACTIVE" },
        });
        assertEquals(patchOther.status, 404);
        for (const id of ["plk_x", "pay_01k00000000000000000000000", "plk_%00", "templates2"]) {
          assertEquals((await gw.request("GET", `/v1/paylinks/${id}`, { key })).status, 404, id);
        }
        assertEquals((await gw.request("GET", `/v1/paylinks/${paylinkId}`)).status, 401);
        const pk = await gw.request("GET", "/v1/paylinks", { key: m.keys.livePublishable });
        assertEquals(pk.json.error.code, "FORBIDDEN");
        const pkWrite = await create({ products: [product()] }, { key: m.keys.livePublishable });
        assertEquals(pkWrite.json.error.code, "FORBIDDEN");
      },
    );

    await t.step("list: paged, newest first, only the key's merchant and mode", async () => {
      const page = await gw.request("GET", "/v1/paylinks?page=1&limit=2", { key });
      assertEquals(page.json.data.items.length, 2);
      assertEquals(page.json.data.meta.total, 3);
      assertEquals(page.json.data.meta.hasNext, true);
      const all = await gw.request("GET", "/v1/paylinks?limit=100", { key });
      assertEquals(all.json.data.items.at(-1).id, paylinkId);
      assertEquals(
        (await gw.request("GET", "/v1/paylinks?limit=101", { key })).json.error.code,
        "VALIDATION_ERROR",
      );
    });

    await t.step("PATCH: settings, currency fixed once products exist, lifecycle moves", async () => {
      const path = `/v1/paylinks/${paylinkId}`;
      const patch = (body: unknown) => gw.request("PATCH", path, { key, body });
      assertEquals(
        (await patch({ currency: "XOF" })).json.error.code,
        "CANNOT_CHANGE_CURRENCY_AFTER_PRODUCTS",
      );
      const updated = await patch({
        brandColor: "#123",
        collectPhone: "OPTIONAL",
        successUrl: "https://shop.example.com/ok",
      });
      assertEquals([updated.json.data.brandColor, updated.json.data.collectPhone], ["#123", "OPTIONAL"]);
      assertEquals((await patch({ brandColor: "red" })).json.error.code, "VALIDATION_ERROR");
      assertEquals((await patch({ successUrl: "javascript:alert(1)" })).json.error.code, "VALIDATION_ERROR");
      assertEquals((await patch({ slug: "new-slug" })).json.error.code, "VALIDATION_ERROR");
      assertEquals((await patch({ status: "INACTIVE" })).json.data.status, "INACTIVE");
      assertEquals((await patch({ status: "ACTIVE" })).json.data.status, "ACTIVE");
      assertEquals((await patch({ status: "DEPLETED" })).json.error.code, "VALIDATION_ERROR");
      assertEquals(
        (await patch({ expiresAt: "2001-01-01T00:00:00.000Z" })).json.error.details[0].field,
        "expiresAt",
      );
    });

    await t.step("products: add, change stock (never negative), remove; the last one stays", async () => {
      const add = await gw.request("POST", `/v1/paylinks/${paylinkId}/products`, {
        key,
        body: product({ name: "Cap", price: "5.999999" }),
      });
      assertEquals(add.status, 201);
      assertEquals(add.json.data.price, "5.999999000000000000");
      const capId = add.json.data.id;
      const stock = await gw.request("PATCH", `/v1/paylinks/${paylinkId}/products/${tshirtId}`, {
        key,
        body: { stockQty: 1 },
      });
      assertEquals([stock.json.data.stockQty, stock.json.data.isLowStock], [1, true]);
      const neg = await gw.request("PATCH", `/v1/paylinks/${paylinkId}/products/${tshirtId}`, {
        key,
        body: { stockQty: -2 },
      });
      assertEquals(neg.json.error.code, "VALIDATION_ERROR");
      const dec = await gw.request("PATCH", `/v1/paylinks/${paylinkId}/products/${tshirtId}`, {
        key,
        body: { price: "1.0000001" },
      });
      assertEquals(dec.json.error.code, "VALIDATION_ERROR");
      assertEquals(
        (await gw.request("DELETE", `/v1/paylinks/${paylinkId}/products/${capId}`, { key })).status,
        200,
      );
      const got = await gw.request("GET", `/v1/paylinks/${paylinkId}`, { key });
      assertEquals(got.json.data.products.length, 2);
      const single = (await create({ products: [product()] })).json.data;
      const last = await gw.request("DELETE", `/v1/paylinks/${single.id}/products/${single.products[0].id}`, {
        key,
      });
      assertEquals(last.json.error.code, "PAYLINK_EMPTY");
      const wrong = await gw.request("DELETE", `/v1/paylinks/${single.id}/products/${tshirtId}`, { key });
      assertEquals(wrong.status, 404);
    });

    await t.step(
      "promo codes: upper-case, duplicates, PERCENT/FIXED bounds, PATCH isActive, delete",
      async () => {
        const path = `/v1/paylinks/${paylinkId}/promo-codes`;
        const add = (body: unknown) => gw.request("POST", path, { key, body });
        const created = await add({
          code: " welcome10 ",
          discountType: "PERCENT",
          discountValue: "10",
          maxUses: 2,
        });
        assertEquals(created.status, 201);
        assertEquals([created.json.data.code, created.json.data.useCount, created.json.data.isActive], [
          "WELCOME10",
          0,
          true,
        ]);
        assertEquals(
          (await add({ code: "Welcome10", discountType: "FIXED", discountValue: "1" })).json.error.code,
          "DUPLICATE_RESOURCE",
        );
        assertEquals(
          (await add({ code: "BIG", discountType: "PERCENT", discountValue: "150" })).json.error.code,
          "VALIDATION_ERROR",
        );
        assertEquals(
          (await add({ code: "TINY", discountType: "FIXED", discountValue: "0.0000001" })).json.error.code,
          "VALIDATION_ERROR",
        );
        assertEquals(
          (await add({ code: "no spaces!", discountType: "FIXED", discountValue: "1" })).json.error.code,
          "VALIDATION_ERROR",
        );
        assertEquals(
          (await add({
            code: "OLD",
            discountType: "FIXED",
            discountValue: "1",
            expiresAt: "2000-01-01T00:00:00Z",
          })).json.error.code,
          "VALIDATION_ERROR",
        );
        const fixed = await add({ code: "minus2", discountType: "FIXED", discountValue: "2" });
        const codeId = fixed.json.data.id;
        const off = await gw.request("PATCH", `${path}/${codeId}`, { key, body: { isActive: false } });
        assertEquals(off.json.data.isActive, false);
        const list = await gw.request("GET", path, { key });
        assertEquals(list.json.data.items.map((p: { code: string }) => p.code), ["WELCOME10", "MINUS2"]);
        assertEquals(
          (await gw.request("GET", `/v1/paylinks/${paylinkId}`, { key })).json.data.promoCodes.length,
          2,
        );
        assertEquals(
          (await gw.request("PATCH", `${path}/prm_bad`, { key, body: { isActive: true } })).status,
          404,
        );
        assertEquals((await gw.request("DELETE", `${path}/${codeId}`, { key })).status, 200);
        assertEquals((await gw.request("DELETE", `${path}/${codeId}`, { key })).status, 404);
      },
    );

    await t.step(
      "templates: create, list, save-as-template (settings, branding, products; no orders), delete",
      async () => {
        const created = await gw.request("POST", "/v1/paylinks/templates", {
          key,
          body: { name: "Basic", config: { type: "FIXED", products: [product()], collectEmail: "OPTIONAL" } },
        });
        assertEquals(created.status, 201);
        assertMatch(created.json.data.id, /^tpl_/);
        const bad = await gw.request("POST", "/v1/paylinks/templates", {
          key,
          body: { name: "x", config: { orders: [] } },
        });
        assertEquals(bad.json.error.code, "VALIDATION_ERROR");
        const saved = await gw.request("POST", `/v1/paylinks/${paylinkId}/save-as-template`, {
          key,
          body: { name: "Sale" },
        });
        assertEquals(saved.status, 201);
        const config = saved.json.data.config;
        assertEquals([config.brandColor, config.collectEmail, config.products.length], [
          "#123",
          "REQUIRED",
          2,
        ]);
        assert(!("orders" in config) && !("promoCodes" in config) && !("useCount" in config));
        // The snapshot is a valid creation body as it stands.
        const twin = await create({ ...config, name: "Twin" });
        assertEquals(twin.status, 201);
        assertEquals(twin.json.data.products.map((p: { name: string }) => p.name), ["T-shirt", "E-book"]);
        const list = await gw.request("GET", "/v1/paylinks/templates", { key });
        assertEquals(list.json.data.items.map((x: { name: string }) => x.name), ["Sale", "Basic"]);
        assertEquals(
          (await gw.request("GET", "/v1/paylinks/templates", { key: other.keys.liveSecret })).json.data.items,
          [],
        );
        const id = created.json.data.id;
        assertEquals(
          (await gw.request("DELETE", `/v1/paylinks/templates/${id}`, { key: other.keys.liveSecret })).status,
          404,
        );
        assertEquals((await gw.request("DELETE", `/v1/paylinks/templates/${id}`, { key })).status, 200);
        assertEquals((await gw.request("DELETE", `/v1/paylinks/templates/${id}`, { key })).status, 404);
      },
    );

    await t.step("simulate: per method, converted at the live rate, fee by feeBearer", async () => {
      const res = await gw.request("POST", "/v1/paylinks/simulate", {
        key,
        body: {
          amount: "100",
          methods: ["USDT_TRC20", "MOBILE_MONEY"],
          currency: "USDT_TRC20",
          feeBearer: "CLIENT",
        },
      });
      assertEquals(res.status, 200);
      const [usdt, momo] = res.json.data.quotes;
      assertEquals(
        [usdt.amount, usdt.serviceFee, usdt.networkFee, usdt.customerPays, usdt.merchantReceives],
        [
          "100.000000",
          "1.500000",
          "1.500000",
          "103.000000",
          "100.000000",
        ],
      );
      assertEquals(momo.currency, "XOF");
      assertEquals(momo.merchantReceives, momo.amount);
      const merchantPays = await gw.request("POST", "/v1/paylinks/simulate", {
        key,
        body: { amount: "100", methods: ["USDT_TRC20"] },
      });
      assertEquals(merchantPays.json.data.quotes[0].merchantReceives, "98.500000");
      const bad = await gw.request("POST", "/v1/paylinks/simulate", { key, body: { amount: "1.1234567" } });
      assertEquals(bad.json.error.code, "VALIDATION_ERROR");
    });

    await t.step(
      "plan limit set by an operator: LIMIT_EXCEEDED_PAYLINKS, even under 20 concurrent creations",
      async () => {
        const fresh = await gw.createMerchant("Limited");
        const set = await gw.admin("PUT", `/admin/api/merchants/${fresh.merchantId}/paylink-limit`, {
          maxPaylinks: 5,
        });
        assertEquals(set.json.data.maxPaylinks, 5);
        const results = await Promise.all(
          Array.from({ length: 20 }, () => create({ products: [product()] }, { key: fresh.keys.liveSecret })),
        );
        assertEquals(results.filter((r) => r.status === 201).length, 5);
        assert(results.every((r) => r.status === 201 || r.json.error.code === "LIMIT_EXCEEDED_PAYLINKS"));
        const unknown = await gw.admin(
          "PUT",
          "/admin/api/merchants/mch_01k00000000000000000000000/paylink-limit",
          {
            maxPaylinks: 1,
          },
        );
        assertEquals(unknown.json.error.code, "MERCHANT_NOT_FOUND");
      },
    );

    await t.step(
      "50 concurrent creations with one slug: one wins, the rest DUPLICATE_RESOURCE, no 500",
      async () => {
        const racer = (await gw.createMerchant("Racer")).keys.liveSecret;
        const results = await Promise.all(
          Array.from(
            { length: 50 },
            () => create({ slug: "race-slug", products: [product()] }, { key: racer }),
          ),
        );
        assertEquals(results.filter((r) => r.status === 201).length, 1);
        assert(results.every((r) => r.status === 201 || r.json.error.code === "DUPLICATE_RESOURCE"));
      },
    );
  } finally {
    await gw.close();
  }
});
