// The document tells the truth and the reference page shows it: what the server answers for each rail
// matches the declared 201, the contract checker used by every API test does catch a lie, every event
// type has its `webhooks` entry, and /docs renders fields, examples, credentials and the error codes.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { contractFor } from "../contract.ts";
import { withGateway } from "../helpers.ts";
import { ERROR_CATALOGUE } from "../../domain/errors.ts";
import { EVENT_TYPES, sampleEventData, webhookBody } from "../../domain/webhooks/events.ts";

Deno.test(
  "POST /v1/payments declares the USDT, card and mobile money answers, and the checker catches a lie",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Rails");
    const docText = (await gw.request("GET", "/v1/openapi.json")).text;
    const contract = contractFor(docText);
    const bodies = [
      { amount: "10" },
      {
        amount: "5000",
        paymentMethod: "CARD",
        customerName: "Awa Ouedraogo",
        customerEmail: "awa@example.com",
      },
      { amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22654123456" },
    ];
    for (const body of bodies) {
      // gw.request validates each answer against the document and throws on a mismatch.
      const res = await gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body });
      assertEquals(res.status, 201, JSON.stringify(res.json));
      // The same answer with a field removed or retyped is refused by the checker.
      const { transactionId: _dropped, ...withoutId } = res.json.data;
      assertMatch(
        contract.checkResponse("POST", "/v1/payments", 201, { ...res.json, data: withoutId }) ?? "",
        /transactionId|must match/,
      );
    }
    assertMatch(
      contract.checkResponse("GET", "/v1/payments/pay_x", 418, {}) ?? "",
      /status not declared/,
    );
    const doc = JSON.parse(docText);
    const op = doc.paths["/v1/payments"].post;
    assertEquals(op.responses["201"].content["application/json"].schema.properties.data.oneOf.length, 3);
    assertEquals(
      op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort(),
      ["header:idempotency-key", "header:x-sandbox", "query:sandbox"],
    );
    assert(op.responses["429"].headers["Retry-After"], "429 declares Retry-After");
    assert(op.responses["409"], "409 declared");
    assertEquals(
      doc.components.schemas.Error.properties.error.properties.code.enum.sort(),
      Object.keys(ERROR_CATALOGUE).sort(),
    );
  }),
);

Deno.test(
  "every event type has a webhooks entry that its payload satisfies, and a wrong payload is caught",
  withGateway(async (gw) => {
    const contract = contractFor((await gw.request("GET", "/v1/openapi.json")).text);
    const now = new Date();
    for (const type of EVENT_TYPES) {
      const body = JSON.parse(
        webhookBody(type, sampleEventData(type, now), now, { livemode: true, test: true }),
      );
      assertEquals(contract.checkEvent(body), null, type);
      assertMatch(contract.checkEvent({ ...body, data: 42 }) ?? "", new RegExp(`webhook ${type}`));
    }
    assertMatch(contract.checkEvent({ event: "payin.teleported", data: {} }) ?? "", /not documented/);
  }),
);

Deno.test(
  "/docs renders fields, examples, credentials per route and the error codes, never a literal $ref",
  withGateway(async (gw) => {
    const html = (await gw.request("GET", "/docs")).text;
    assert(!html.includes("$ref"), "no unresolved $ref on the page");
    const section = (path: string, method: string) => {
      const start = html.indexOf(`${method}</span><code>${path}</code>`);
      assert(start >= 0, `${method} ${path} is on the page`);
      return html.slice(start, html.indexOf("</details>", start));
    };
    const create = section("/v1/payments", "POST");
    for (const field of ["externalRef", "successUrl", "hostedPaymentUrl", "amountExpected"]) {
      assert(create.includes(`<code>${field}</code>`), `the create page lists ${field}`);
    }
    assert(
      create.includes("&quot;amount&quot;: &quot;25.00&quot;"),
      "the request example uses the schema's example",
    );
    assert(create.includes("X-Api-Key"), "pay-in routes take an API key");
    const admin = section("/admin/api/merchants", "POST");
    assert(admin.includes("Operator token"), "admin routes say they take the operator token");
    assert(!admin.includes("X-Api-Key"), "admin routes do not offer an API key");
    for (const code of Object.keys(ERROR_CATALOGUE)) assert(html.includes(`<code>${code}</code>`), code);
    assert(html.includes("payin.confirmed"), "webhook events are documented");
  }),
);
