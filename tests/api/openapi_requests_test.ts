// The request side of /v1/openapi.json tells the truth: a body the server accepts is valid against the
// document (README's examples included), a body the server refuses for its shape is invalid against it,
// operator routes declare the operator's token, and the headers the server demands are declared.
import { assert, assertEquals } from "../assert.ts";
import { type Contract, contractFor } from "../contract.ts";
import { withGateway } from "../helpers.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;
type Gateway = Parameters<Parameters<typeof withGateway>[0]>[0];

async function documentOf(gw: Gateway): Promise<{ doc: Doc; contract: Contract }> {
  const text = (await gw.request("GET", "/v1/openapi.json")).text;
  return { doc: JSON.parse(text), contract: contractFor(text) };
}

const ADDRESS = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";
const CARD = { amount: "5000", customerName: "Awa Ouedraogo", customerEmail: "awa@example.com" };

Deno.test(
  "a card pay-in the server accepts is valid against the document, on both paths",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Cards");
    const { contract } = await documentOf(gw);
    for (
      const [path, body] of [["/v1/card-payments", CARD], ["/v1/payments", {
        ...CARD,
        paymentMethod: "CARD",
      }]]
    ) {
      const res = await gw.request("POST", path as string, { key: m.keys.liveSecret, body });
      assertEquals(res.status, 201, JSON.stringify(res.json));
      assertEquals(contract.checkRequest("POST", path as string, body), null);
    }
    // What the server refuses for its shape, the document refuses too.
    const { customerName: _name, ...nameless } = CARD;
    const refused = await gw.request("POST", "/v1/card-payments", { key: m.keys.liveSecret, body: nameless });
    assertEquals([refused.status, refused.json.error.code], [400, "VALIDATION_ERROR"]);
    assert(contract.checkRequest("POST", "/v1/card-payments", nameless), "customerName is required");
    for (const amount of ["5000.5", "1e3", "-5"]) {
      const res = await gw.request("POST", "/v1/card-payments", {
        key: m.keys.liveSecret,
        body: { ...CARD, amount },
      });
      assertEquals([res.status, res.json.error.code], [400, "INVALID_AMOUNT"], amount);
      assert(contract.checkRequest("POST", "/v1/card-payments", { ...CARD, amount }), amount);
    }
  }),
);

Deno.test(
  "pay-in, payout and withdrawal bodies: one schema per rail, the server's shape rules declared",
  withGateway(async (gw) => {
    const { contract } = await documentOf(gw);
    const valid: Array<[string, unknown]> = [
      ["/v1/payments", { amount: "10" }],
      ["/v1/payments", { amount: "10.5", paymentMethod: "USDT_TRC20", expiresInSeconds: 900 }],
      ["/v1/payments", { amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22654123456" }],
      ["/v1/transfers", { amount: "20.123456", destinationAddress: ADDRESS }],
      ["/v1/withdrawals", { amount: "15" }],
      ["/v1/withdrawals", { amount: "5000", currency: "XOF", rail: "MOMO" }],
    ];
    for (const [path, body] of valid) assertEquals(contract.checkRequest("POST", path, body), null, path);
    const invalid: Array<[string, unknown]> = [
      ["/v1/payments", { amount: "5000", paymentMethod: "CARD" }],
      ["/v1/payments", { amount: "5000", paymentMethod: "MOBILE_MONEY" }],
      ["/v1/payments", { amount: "10.1234567" }],
      ["/v1/payout", { amount: "20", destinationAddress: "0x52908400098527886E0F7030069857D2E4169EE7" }],
      ["/v1/payout", { amount: "1,5", destinationAddress: ADDRESS }],
      ["/v1/payout/estimate", { amount: "20", destinationAddress: "T-not-an-address" }],
      ["/v1/withdrawals", { amount: "100.5", currency: "XOF", rail: "MOMO" }],
      ["/v1/withdrawals", { amount: "100", currency: "XOF" }],
      ["/v1/withdrawals", { amount: "100", fiatDestinationId: "fdst_x" }],
      ["/v1/wallets/whitelist", { address: ADDRESS, usageContexts: ["REFUND"] }],
      ["/v1/wallets/whitelist", { address: ADDRESS, usageContexts: [] }],
      ["/v1/wallets/whitelist", { address: "TQn9Y2" }],
    ];
    for (const [path, body] of invalid) {
      assert(contract.checkRequest("POST", path, body), `${path} ${JSON.stringify(body)} should be refused`);
    }
  }),
);

Deno.test(
  "the shape rules the document declares are the ones the server answers (address, contexts, items)",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Shapes");
    const { contract } = await documentOf(gw);
    const key = m.keys.liveSecret;
    const contexts = await gw.request("POST", "/v1/wallets/whitelist", {
      key,
      body: { address: ADDRESS, usageContexts: ["REFUND"] },
    });
    assertEquals([contexts.status, contexts.json.error.code], [400, "INVALID_CONTEXT"]);
    const address = await gw.request("POST", "/v1/wallets/whitelist", { key, body: { address: "TQn9Y2" } });
    assertEquals([address.status, address.json.error.code], [400, "INVALID_ADDRESS"]);
    const batch = await gw.request("POST", "/v1/bulk-payments", { key, body: { rail: "USDT_TRC20" } });
    assertEquals(batch.status, 201, JSON.stringify(batch.json));
    const path = "/v1/bulk-payments/{id}/items";
    const empty = await gw.request("POST", `/v1/bulk-payments/${batch.json.data.id}/items`, {
      key,
      body: { items: [] },
    });
    assertEquals([empty.status, empty.json.error.code], [400, "VALIDATION_ERROR"]);
    assert(contract.checkRequest("POST", path, { items: [] }), "an empty item list is refused");
  }),
);

Deno.test(
  "PATCH /v1/merchant/profile accepts the document's own logoUrl example, and refuses what it refuses",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Logo");
    const { doc, contract } = await documentOf(gw);
    const schema = doc.paths["/v1/merchant/profile"].patch.requestBody.content["application/json"].schema;
    const logo = (schema.properties ?? doc.components.schemas[schema.$ref?.split("/").pop()].properties)
      .logoUrl;
    const example = logo.example ?? logo.anyOf?.find((s: Doc) => s.example)?.example;
    assert(typeof example === "string", "logoUrl has an example");
    const res = await gw.request("PATCH", "/v1/merchant/profile", {
      key: m.keys.liveSecret,
      body: { logoUrl: example },
    });
    assertEquals(res.status, 200, JSON.stringify(res.json));
    assertEquals(contract.checkRequest("PATCH", "/v1/merchant/profile", { logoUrl: example }), null);
    const link = "https://shop.example/logo.png";
    const refused = await gw.request("PATCH", "/v1/merchant/profile", {
      key: m.keys.liveSecret,
      body: { logoUrl: link },
    });
    assertEquals([refused.status, refused.json.error.code], [400, "VALIDATION_ERROR"]);
    assert(contract.checkRequest("PATCH", "/v1/merchant/profile", { logoUrl: link }), "a link is refused");
  }),
);

/** README's `curl ... localhost:8000/<path> ... -d '<json>'` calls, as [method, path, body]. */
async function readmeBodies(): Promise<Array<[string, string, unknown]>> {
  const text = (await Deno.readTextFile(new URL("../../README.md", import.meta.url)))
    .replaceAll(/\\\n/g, " ");
  const calls: Array<[string, string, unknown]> = [];
  for (const line of text.split(/\n(?=\S)|\n\s*\n/)) {
    const url = /localhost:8000(\/[^\s"'?]+)/.exec(line);
    const data = /-d '([^']*)'/.exec(line);
    if (!url || !data || !/^\/(v1|admin\/api)\//.test(url[1])) continue;
    let body: unknown;
    try {
      body = JSON.parse(data[1]);
    } catch {
      continue; // a body built from shell variables
    }
    calls.push([/-X (\w+)/.exec(line)?.[1] ?? "POST", url[1], body]);
  }
  return calls;
}

Deno.test(
  "every JSON body in README's walk-throughs is valid against the document",
  withGateway(async (gw) => {
    const { doc, contract } = await documentOf(gw);
    const templates = Object.keys(doc.paths).map((path) => ({
      path,
      params: (path.match(/\{/g) ?? []).length,
      regex: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    })).sort((a, b) => a.params - b.params);
    const calls = await readmeBodies();
    assert(calls.length >= 20, `README has ${calls.length} JSON bodies`);
    const problems: string[] = [];
    for (const [method, url, body] of calls) {
      const template = templates.find((t) => t.regex.test(url));
      if (!template) {
        problems.push(`${method} ${url}: no such path in the document`);
        continue;
      }
      const problem = contract.checkRequest(method, template.path, body);
      if (problem) problems.push(`${problem} in ${JSON.stringify(body)}`);
    }
    assertEquals(problems, []);
  }),
);

Deno.test(
  "every /admin/api operation declares the operator token or session, and no merchant scheme",
  withGateway(async (gw) => {
    const { doc } = await documentOf(gw);
    const wrong: string[] = [];
    for (const [path, operations] of Object.entries<Doc>(doc.paths)) {
      if (!path.startsWith("/admin/api")) continue;
      for (const [method, op] of Object.entries<Doc>(operations)) {
        // Signing in is the one operator route that takes no credentials.
        const expected = path === "/admin/api/session" && method === "post"
          ? []
          : [{ OperatorToken: [] }, { OperatorSession: [] }];
        if (JSON.stringify(op.security) !== JSON.stringify(expected)) {
          wrong.push(`${method.toUpperCase()} ${path}: ${JSON.stringify(op.security)}`);
        }
      }
    }
    assertEquals(wrong, []);
    const operatorPaths = Object.keys(doc.paths).filter((p) => p.startsWith("/admin/api"));
    for (const path of ["/admin/api/review", "/admin/api/treasury", "/admin/api/mail-outbox"]) {
      assert(operatorPaths.includes(path), path);
    }
  }),
);

Deno.test(
  "Idempotency-Key is a declared UUID, required where the server answers MISSING_IDEMPOTENCY_KEY",
  withGateway(async (gw) => {
    const { doc } = await documentOf(gw);
    const header = (path: string, method = "post") =>
      doc.paths[path][method].parameters?.find((p: Doc) => p.in === "header" && p.name === "idempotency-key");
    for (const path of ["/v1/payout", "/v1/transfers", "/v1/withdrawals"]) {
      const declared = header(path);
      assert(declared, `${path} declares Idempotency-Key`);
      assertEquals([declared.required, declared.schema.format], [true, "uuid"], path);
    }
    for (const path of ["/v1/payments", "/v1/conversions/wallet", "/v1/bulk-payments/{id}/execute"]) {
      assertEquals([header(path)?.required, header(path)?.schema.format], [false, "uuid"], path);
    }
    // Whatever declares the header declares it a UUID (the server refuses anything else).
    for (const [path, operations] of Object.entries<Doc>(doc.paths)) {
      for (const method of Object.keys(operations)) {
        const declared = header(path, method);
        if (declared) assertEquals(declared.schema.format, "uuid", `${method} ${path}`);
      }
    }
  }),
);

Deno.test(
  "provider callbacks declare X-Provider-Signature and their signed body",
  withGateway(async (gw) => {
    const { doc, contract } = await documentOf(gw);
    const providers = Object.keys(doc.paths).filter((p) => p.startsWith("/v1/providers/"));
    const callbacks = providers.filter((p) =>
      !p.endsWith("/chargeback-callback") && !p.endsWith("/dispute-outcome-callback")
    );
    assertEquals(callbacks.length, 6); // pay-ins (rail and simulator), disbursements (two), card refunds (two)
    const body = {
      notificationId: "ntf_1",
      providerRef: "prv_1",
      reference: "pay_1",
      status: "SUCCEEDED",
      amount: "5000",
      occurredAt: "2026-01-01T12:00:00.000Z",
    };
    for (const path of callbacks) {
      const op = doc.paths[path].post;
      const signature = op.parameters.find((p: Doc) => p.name.toLowerCase() === "x-provider-signature");
      assertEquals([signature?.in, signature?.required], ["header", true], path);
      assertEquals(contract.checkRequest("POST", path, body), null, path);
      assert(contract.checkRequest("POST", path, { ...body, status: "MAYBE" }), path);
    }
    // The acquirer's chargeback notifications (issue 23): the same signature, their own body.
    const chargebacks = providers.filter((p) => p.endsWith("/chargeback-callback"));
    assertEquals(chargebacks.length, 2);
    const notice = {
      notificationId: "ntf_1",
      caseId: "case_1",
      providerRef: "prv_1",
      reference: "pay_1",
      amount: "5000",
      reason: "NOT_RECEIVED",
      cardOrigin: "LOCAL",
      occurredAt: "2026-01-01T12:00:00.000Z",
    };
    for (const path of chargebacks) {
      const op = doc.paths[path].post;
      const signature = op.parameters.find((p: Doc) => p.name.toLowerCase() === "x-provider-signature");
      assertEquals([signature?.in, signature?.required], ["header", true], path);
      assertEquals(contract.checkRequest("POST", path, notice), null, path);
      assert(contract.checkRequest("POST", path, { ...notice, cardOrigin: "MARS" }), path);
    }
    // Their outcomes (won, lost, escalated): the same signature again.
    const outcomes = providers.filter((p) => p.endsWith("/dispute-outcome-callback"));
    assertEquals(outcomes.length, 2);
    const outcome = {
      notificationId: "ntf_2",
      caseId: "case_1",
      providerRef: "prv_1",
      reference: "pay_1",
      outcome: "WON",
      occurredAt: "2026-01-01T12:00:00.000Z",
    };
    for (const path of outcomes) {
      const op = doc.paths[path].post;
      const signature = op.parameters.find((p: Doc) => p.name.toLowerCase() === "x-provider-signature");
      assertEquals([signature?.in, signature?.required], ["header", true], path);
      assertEquals(contract.checkRequest("POST", path, outcome), null, path);
      assert(contract.checkRequest("POST", path, { ...outcome, outcome: "DRAW" }), path);
    }
  }),
);

Deno.test(
  "the answers that depend on state are listed per operation under their status",
  withGateway(async (gw) => {
    const { doc } = await documentOf(gw);
    const listed = (path: string, status: number) =>
      doc.paths[path].post.responses[String(status)].description as string;
    const expected: Array<[string, number, string[]]> = [
      ["/v1/withdrawals", 400, ["NO_WHITELISTED_ADDRESS", "INSUFFICIENT_BALANCE", "MISSING_IDEMPOTENCY_KEY"]],
      ["/v1/withdrawals", 403, ["ADDRESS_COOLDOWN", "KYB_REQUIRED", "BENEFICIARY_COOLDOWN"]],
      ["/v1/transfers", 403, ["ADDRESS_NOT_WHITELISTED", "AML_BLOCKED"]],
      ["/v1/transfers", 409, ["DUPLICATE_EXTERNAL_REF", "IDEMPOTENCY_KEY_MISMATCH"]],
      ["/v1/payments", 400, ["SANDBOX_KEY_LIVE_REQUEST", "LIVE_KEY_SANDBOX_REQUEST", "INVALID_AMOUNT"]],
      ["/v1/conversions/wallet", 400, ["INSUFFICIENT_BALANCE", "INVALID_CONVERSION_PAIR"]],
      ["/v1/bulk-payments/{id}/execute", 400, ["INSUFFICIENT_BALANCE"]],
      ["/v1/wallets/whitelist", 400, ["INVALID_ADDRESS", "INVALID_CONTEXT"]],
    ];
    for (const [path, status, codes] of expected) {
      for (const code of codes) {
        assert(listed(path, status).includes(code), `${path} ${status} lists ${code}`);
      }
    }
  }),
);
