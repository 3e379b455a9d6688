// A client generated from /v1/openapi.json (openapi-typescript types, openapi-fetch) runs README's quick
// start: the operator creates a merchant, the merchant lists its wallets, creates a USDT pay-in and
// retrieves it. If the document lied about a path, a field or a type, this file would not type-check or
// the calls would fail; if the committed types are stale, the first test says how to refresh them.
import createClient from "openapi-fetch";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { ADMIN_TOKEN, withGateway } from "../helpers.ts";
import type { paths } from "../generated/gateway_api.ts";
import { generateTypes, TYPES_FILE } from "../openapi_types.ts";

Deno.test("the committed client types are generated from the document the server serves", async () => {
  const committed = await Deno.readTextFile(TYPES_FILE);
  const fresh = await generateTypes();
  assert(committed === fresh, "tests/generated/gateway_api.ts is stale: run `deno task openapi:types`");
});

Deno.test(
  "README's quick start through the typed client: merchant, wallets, USDT pay-in, retrieve",
  withGateway(async (gw) => {
    // The client speaks HTTP to the in-process app, exactly as it would to a running server.
    const fetchApp = (request: Request) => Promise.resolve(gw.app.fetch(request));
    const operator = createClient<paths>({
      baseUrl: "http://gateway.test",
      fetch: fetchApp,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const created = await operator.POST("/admin/api/merchants", {
      body: { name: "Boutique Ouaga", kybStatus: "APPROVED" },
    });
    assertEquals(created.response.status, 201);
    const keys = created.data!.data.keys;
    assertMatch(keys.liveSecret, /^svc_live_sk_/);

    const merchant = createClient<paths>({
      baseUrl: "http://gateway.test",
      fetch: fetchApp,
      headers: { "x-api-key": keys.liveSecret },
    });
    const wallets = await merchant.GET("/v1/merchants/wallets");
    assertEquals(wallets.response.status, 200);
    assertEquals(
      wallets.data!.data.map((w) => `${w.currency}/${w.rail}`).sort(),
      ["USDT_TRC20/TRC20", "XOF/CARD", "XOF/MOMO"],
    );
    assert(wallets.data!.data.every((w) => Number(w.balance) === 0), "a new merchant holds nothing");

    // An operator-approved merchant still signs the current agreement itself before live money.
    const agreement = await merchant.GET("/v1/merchant/agreement");
    const current = agreement.data!.data.current;
    const signed = await merchant.POST("/v1/merchant/agreement/sign", {
      body: { version: current.version, sha256: current.sha256, signedBy: "Awa Ouedraogo, gérante" },
    });
    assert(signed.response.ok, `signing answered ${signed.response.status}`);

    const payin = await merchant.POST("/v1/payments", {
      body: { amount: "10", externalRef: "order-1", successUrl: "https://shop.example/thanks" },
    });
    assertEquals(payin.response.status, 201);
    const answer = payin.data!.data;
    assert("address" in answer, "a USDT pay-in answers its deposit address");
    assertMatch(answer.address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    assertEquals(answer.status, "AWAITING_PAYMENT");

    const fetched = await merchant.GET("/v1/payments/{id}", {
      params: { path: { id: answer.transactionId } },
    });
    assertEquals(fetched.response.status, 200);
    assertEquals(
      [fetched.data!.data.id, fetched.data!.data.address, fetched.data!.data.externalRef],
      [answer.transactionId, answer.address, "order-1"],
    );

    // The error answers are typed too: a malformed id is NOT_FOUND, a script URL a VALIDATION_ERROR.
    const missing = await merchant.GET("/v1/payments/{id}", { params: { path: { id: "pay_%00" } } });
    assertEquals([missing.response.status, missing.error?.error.code], [404, "NOT_FOUND"]);
    const script = await merchant.POST("/v1/payments", {
      body: { amount: "10", successUrl: "javascript:alert(1)" },
    });
    assertEquals([script.response.status, script.error?.error.code], [400, "VALIDATION_ERROR"]);
  }),
);
