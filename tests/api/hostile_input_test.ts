// Nothing a client sends produces a 500. The cases are generated from the served /v1/openapi.json, so a
// route added tomorrow is fuzzed without editing this file: for every operation, each string field of its
// request body gets text PostgreSQL cannot store (VALIDATION_ERROR naming the field), each field a value
// of the wrong type (VALIDATION_ERROR), each id in the path a NUL, an invalid UTF-8 sequence, 5,000
// characters, a quote, a well-formed unknown id and another merchant's id (all NOT_FOUND), each query
// parameter a NUL (VALIDATION_ERROR) and odd values, each declared header odd values.
import { assert, assertEquals } from "../assert.ts";
import { newId } from "../../domain/ids.ts";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "../helpers.ts";
import {
  firstBranch,
  type Json,
  prefixOf,
  propertiesOf,
  resolve,
  stringFields,
  typeOf,
  validBody,
  withField,
} from "../openapi_fuzz.ts";

type Case = {
  label: string;
  path: string;
  query?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** A multipart upload route: the case carries a well-formed file part, so only its path is on trial. */
  multipart?: boolean;
  /** The status and code the answer must have; undefined: any 2xx, or a 4xx with a catalogue envelope. */
  expect?: { status: number; code: RegExp; field?: string };
};

const UNSTORABLE = ["nul\u0000byte", "\ud800", "lone low \udc00 surrogate"];
const WRONG_TYPE: Record<string, unknown> = {
  string: 42,
  number: "42",
  integer: "x",
  boolean: "yes",
  array: {},
};

/** One of each resource a path can name, owned by the merchant of `key`. */
async function resources(gw: TestGateway, key: string, sandboxKey: string) {
  const pay = (await gw.request("POST", "/v1/payments", { key, body: { amount: "10" } })).json.data;
  const sandboxPay =
    (await gw.request("POST", "/v1/payments?sandbox=true", { key: sandboxKey, body: { amount: "10" } }))
      .json.data;
  const endpoint = (await gw.request("POST", "/v1/webhooks/endpoints", {
    key,
    body: { url: "http://127.0.0.1:9/hooks", events: ["payin.created"] },
  })).json.data;
  const test = (await gw.request("POST", "/v1/webhooks/test", {
    key,
    body: { endpointId: endpoint.id, eventType: "payin.created" },
  })).json.data;
  return {
    pay: pay.transactionId,
    sandboxPay: sandboxPay.transactionId,
    whe: endpoint.id,
    dlv: test.deliveryId,
  };
}

Deno.test("hostile input on every documented operation: the right catalogue code, never a 500", async () => {
  const gw = await startTestGateway();
  try {
    const limits = {
      rateLimits: {
        default: 1_000_000,
        "POST /v1/payments": 1_000_000,
        "POST /v1/withdrawals": 1_000_000,
        "POST /v1/payout": 1_000_000,
      },
    };
    const target = await gw.createMerchant("Target");
    const other = await gw.createMerchant("Other");
    for (const m of [target, other]) await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, limits);
    const mine = await resources(gw, target.keys.liveSecret, target.keys.testSecret);
    const theirs = await resources(gw, other.keys.liveSecret, other.keys.testSecret);
    const doc = (await gw.request("GET", "/v1/openapi.json")).json;

    const cases: Array<Case & { method: string; auth: Record<string, string>; operation: string }> = [];
    for (const [template, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const sandbox = template.includes("/sandbox/");
        const auth: Record<string, string> = op.security?.length === 0
          ? {}
          : template.startsWith("/admin")
          ? { authorization: `Bearer ${ADMIN_TOKEN}` }
          : { "x-api-key": sandbox ? target.keys.testSecret : target.keys.liveSecret };
        const params: Json[] = op.parameters ?? [];
        const own = (p: Json) => {
          const prefix = prefixOf(p);
          if (prefix === "pay") return sandbox ? mine.sandboxPay : mine.pay;
          if (prefix === "mch") return target.merchantId;
          if (prefix) return (mine as Record<string, string>)[prefix] ?? newId(prefix as "pay");
          return resolve(doc, p.schema).enum?.[0] ?? resolve(doc, p.schema).const ?? "x";
        };
        const pathWith = (name?: string, raw?: string) =>
          template.replace(
            /\{([^}]+)\}/g,
            (_, n) => n === name ? raw! : encodeURIComponent(own(params.find((p) => p.name === n))),
          );
        const add = (c: Case) =>
          cases.push({
            ...c,
            method: method.toUpperCase(),
            auth,
            operation: `${method.toUpperCase()} ${template}`,
          });

        // A provider callback's signature is its authentication: checked before anything else it carries.
        const signed = params.some((p) => p.in === "header" && p.name === "x-provider-signature");
        // Any query parameter, declared or not, is checked at the edge (after authentication).
        add({
          label: "undeclared query parameter with a NUL",
          path: pathWith(),
          query: "x%00=1",
          expect: signed
            ? { status: 400, code: /^INVALID_WEBHOOK_SIGNATURE$/ }
            : { status: 400, code: /^VALIDATION_ERROR$/, field: "query.x\\u0000" },
        });
        const bodySchema = op.requestBody?.content?.["application/json"]?.schema;
        const body = bodySchema ? validBody(doc, bodySchema) : undefined;
        for (const p of params.filter((p) => p.in === "path")) {
          const prefix = prefixOf(p);
          const notFound = { status: 404, code: /NOT_FOUND$/ };
          const invalid = prefix ? notFound : { status: 400, code: /^VALIDATION_ERROR$/ };
          const hostile = ["%00", "%ED%A0%80", `${prefix ?? "x"}_${"a".repeat(5000)}`, "'--%20OR%201=1"];
          for (const raw of hostile) {
            add({
              label: `path ${p.name}=${raw.slice(0, 20)}`,
              path: pathWith(p.name, raw),
              body,
              expect: invalid,
            });
          }
          if (prefix) {
            add({
              label: `path ${p.name} unknown`,
              path: pathWith(p.name, newId(prefix as "pay")),
              body,
              multipart: Boolean(op.requestBody?.content?.["multipart/form-data"]),
              expect: notFound,
            });
            const foreign = prefix === "pay"
              ? (sandbox ? theirs.sandboxPay : theirs.pay)
              : (theirs as Record<string, string>)[prefix];
            if (foreign) {
              add({
                label: `path ${p.name} of another merchant`,
                path: pathWith(p.name, foreign),
                body,
                expect: notFound,
              });
            }
          }
        }
        for (const p of params.filter((p) => p.in === "query")) {
          add({
            label: `query ${p.name} NUL`,
            path: pathWith(),
            query: `${p.name}=a%00b`,
            expect: { status: 400, code: /^VALIDATION_ERROR$/, field: `query.${p.name}` },
          });
          for (const v of ["%ED%A0%80", "9".repeat(5000), "-1", "abc"]) {
            add({ label: `query ${p.name}=${v.slice(0, 12)}`, path: pathWith(), query: `${p.name}=${v}` });
          }
        }
        for (const p of params.filter((p) => p.in === "header")) {
          for (const v of ["x".repeat(5000), "'--", "\u00ff\u00fe"]) {
            add({ label: `header ${p.name}`, path: pathWith(), headers: { [p.name]: v } });
          }
        }
        // A provider callback reads no body before its signature (INVALID_WEBHOOK_SIGNATURE without one).
        if (!bodySchema || signed) continue;
        for (const field of stringFields(doc, bodySchema)) {
          for (const text of UNSTORABLE) {
            add({
              label: `body ${field} unstorable`,
              path: pathWith(),
              body: withField(body, field, text),
              expect: { status: 400, code: /^VALIDATION_ERROR$/, field },
            });
          }
          if (field.endsWith(".k")) {
            const key = field.replace(/k$/, "bad\u0000key");
            add({
              label: `body ${field} key NUL`,
              path: pathWith(),
              body: withField(body, key, "v"),
              expect: { status: 400, code: /^VALIDATION_ERROR$/ },
            });
          }
        }
        for (const [name, schema] of Object.entries(propertiesOf(doc, firstBranch(doc, bodySchema)))) {
          const wrong = WRONG_TYPE[typeOf(doc, schema)] ?? [];
          add({
            label: `body ${name} wrong type`,
            path: pathWith(),
            body: withField(body, name, wrong),
            expect: { status: 400, code: /^VALIDATION_ERROR$/ },
          });
        }
        add({
          label: "body of the wrong type",
          path: pathWith(),
          body: ["not", "an", "object"],
          expect: { status: 400, code: /^(VALIDATION_ERROR|BAD_REQUEST)$/ },
        });
      }
    }

    const failures: string[] = [];
    for (const c of cases) {
      const form = new FormData();
      form.set("file", new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], "f.png", { type: "image/png" }));
      const res = await gw.app.request(c.path + (c.query ? `?${c.query}` : ""), {
        method: c.method,
        headers: {
          "x-request-id": "<script>'--" + "x".repeat(100),
          ...c.auth,
          ...c.headers,
          ...(c.body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: c.multipart
          ? form
          : c.body === undefined || c.method === "GET" || c.method === "DELETE"
          ? undefined
          : JSON.stringify(c.body),
      });
      const text = await res.text();
      const json = (() => {
        try {
          return JSON.parse(text);
        } catch {
          return undefined;
        }
      })();
      const where = `${c.method} ${c.path.slice(0, 80)} [${c.label}] -> ${res.status} ${text.slice(0, 160)}`;
      const code = json?.error?.code ?? "";
      if (res.status >= 500) failures.push(`500: ${where}`);
      else if (!/^[\w.:-]{1,64}$/.test(res.headers.get("x-request-id") ?? "")) {
        failures.push(`a hostile x-request-id was echoed: ${where}`);
      } else if (c.expect && (res.status !== c.expect.status || !c.expect.code.test(code))) {
        failures.push(where);
      } else if (
        c.expect?.field && !json.error.details?.some((d: { field: string }) => d.field === c.expect!.field)
      ) {
        failures.push(`field not named: ${where}`);
      } else if (res.status >= 400 && (json?.success !== false || json?.statusCode !== res.status)) {
        failures.push(`not an error envelope: ${where}`);
      }
    }
    // Every operation of the document was fuzzed, at least through one case.
    const operations = Object.entries(doc.paths as Record<string, object>)
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    const fuzzed = new Set(cases.map((c) => c.operation));
    assertEquals(operations.filter((o) => !fuzzed.has(o)), []);
    assertEquals(
      failures.length,
      0,
      `${failures.length} of ${cases.length} answers wrong:\n${failures.slice(0, 25).join("\n")}`,
    );
  } finally {
    await gw.close();
  }
});

const HOSTILE_BODIES: Array<{ name: string; body: string; type?: string }> = [
  { name: "empty", body: "" },
  { name: "null", body: "null" },
  { name: "array", body: "[1,2,3]" },
  { name: "string", body: '"payment"' },
  { name: "truncated", body: '{"amount":' },
  { name: "wrong types", body: '{"amount":{"$gt":0},"url":42,"events":"all","otp":123456,"endpointId":[]}' },
  { name: "prototype pollution", body: '{"__proto__":{"admin":true},"constructor":{"prototype":{}}}' },
  { name: "deep nesting", body: "[".repeat(5000) + "]".repeat(5000) },
  { name: "huge string", body: JSON.stringify({ amount: "9".repeat(100_000) }) },
  { name: "not JSON at all", body: "amount=10&currency=XOF", type: "application/x-www-form-urlencoded" },
  { name: "unicode garbage", body: '{"amount":"１０","externalRef":"\\u0000\\ud800"}' },
];

const HOSTILE_QUERY = "?page=-1&limit=abc&status=%00&currency=EUR&sandbox=%E2%80%8B";

Deno.test("malformed bodies, hostile queries and odd headers on every documented route answer 4xx envelopes", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Target");
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: {
        default: 1_000_000,
        "POST /v1/payments": 1_000_000,
        "POST /v1/withdrawals": 1_000_000,
        "POST /v1/payout": 1_000_000,
      },
    });
    const spec = (await gw.request("GET", "/v1/openapi.json")).json;
    const routes: Array<{ method: string; path: string }> = [];
    for (const [path, methods] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(methods)) {
        routes.push({
          method: method.toUpperCase(),
          path: path.replace(/\{[^}]+\}/g, "pay_01doesnotexist'--"),
        });
      }
    }
    assert(routes.length > 30, `the document lists the routes (${routes.length})`);
    let requests = 0;
    for (const route of routes) {
      const isAdmin = route.path.startsWith("/admin");
      const auth: Record<string, string> = isAdmin
        ? { authorization: "Bearer test-admin-token-0123456789" }
        : { "x-api-key": m.keys.liveSecret };
      const variants = route.method === "GET" || route.method === "DELETE"
        ? [{ name: "query", body: undefined as string | undefined, type: undefined as string | undefined }]
        : HOSTILE_BODIES;
      for (const v of variants) {
        const res = await gw.app.request(route.path + HOSTILE_QUERY, {
          method: route.method,
          headers: {
            ...auth,
            "content-type": v.type ?? "application/json",
            "idempotency-key": "x".repeat(300),
          },
          body: v.body,
        });
        requests++;
        const text = await res.text();
        const where = `${route.method} ${route.path} (${v.name}): ${res.status} ${text.slice(0, 200)}`;
        assert(res.status < 500, where);
        assert(!/at .*\.ts:\d+/.test(text), `no stack trace: ${where}`);
        if (res.status >= 400 && res.headers.get("content-type")?.includes("json")) {
          const body = JSON.parse(text);
          assertEquals(body.success, false, where);
          assertEquals(typeof body.error.code, "string", where);
          assertEquals(body.statusCode, res.status, where);
        }
      }
    }
    assert(requests > 200);
  } finally {
    await gw.close();
  }
});

Deno.test("a body over 1 MB is refused before it is parsed", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Big");
    const res = await gw.request("POST", "/v1/payments", {
      key: m.keys.liveSecret,
      rawBody: JSON.stringify({ amount: "10", metadata: { blob: "x".repeat(2_000_000) } }),
      headers: { "content-type": "application/json" },
    });
    assertEquals([res.status, res.json.error.code], [400, "BAD_REQUEST"]);
  } finally {
    await gw.close();
  }
});
