// openapiRoute answers every request exactly as r.openapi does for the same route declaration: the same
// status and body for each mix of query, headers, media type and body, and the same OpenAPI entry.
import { createRoute, z } from "@hono/zod-openapi";
import { newRouter } from "../../api/router.ts";
import { HttpUrl } from "../../api/envelope.ts";
import { onError } from "../../api/errors.ts";
import { openapiRoute } from "../../api/openapi_route.ts";
import { assert, assertEquals } from "../assert.ts";

const route = () =>
  createRoute({
    method: "post",
    path: "/things/create",
    request: {
      query: z.object({ sandbox: z.string().max(4).optional(), n: z.coerce.number().int().optional() }),
      headers: z.object({
        "idempotency-key": z.string().uuid().optional(),
        "X-Flag": z.enum(["on", "off"]).optional(),
      }),
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.strictObject({
              amount: z.string().regex(/^\d+$/),
              url: HttpUrl.optional(),
              tags: z.array(z.string()).max(2).optional(),
            }),
          },
        },
      },
    },
    responses: { 201: { description: "created" } },
  });

function apps() {
  const echo = (c: { req: { valid: (target: never) => unknown } }) => ({
    query: c.req.valid("query" as never),
    header: c.req.valid("header" as never),
    json: c.req.valid("json" as never),
  });
  const viaOpenapi = newRouter();
  viaOpenapi.onError(onError);
  viaOpenapi.openapi(route(), (c) => c.json(echo(c), 201));
  const viaOpenapiRoute = newRouter();
  viaOpenapiRoute.onError(onError);
  openapiRoute(viaOpenapiRoute, route(), (c) => c.json(echo(c), 201));
  return { viaOpenapi, viaOpenapiRoute };
}

type Case = { query?: string; headers?: Record<string, string>; body?: BodyInit };

const json = { "content-type": "application/json" };
const CASES: Case[] = [
  { headers: json, body: '{"amount":"10"}' },
  { headers: json, body: '{"amount":"10","url":"https://a.example/x","tags":["a"]}' },
  { query: "?sandbox=true&n=3", headers: json, body: '{"amount":"10"}' },
  { query: "?sandbox=toolong", headers: json, body: '{"amount":"10"}' },
  { query: "?n=1&n=2", headers: json, body: '{"amount":"10"}' },
  { query: "?n=x", headers: json, body: '{"amount":"x","extra":1}' },
  { query: "?sandbox=toolong", headers: { "idempotency-key": "nope" }, body: '{"amount":"x"}' },
  { headers: { "idempotency-key": "nope", "content-type": "text/plain" }, body: '{"amount":"x"}' },
  { headers: { ...json, "Idempotency-Key": "6f1c2d9e-0b7a-4c1e-9d8f-3a2b1c0d9e8f" }, body: '{"amount":"1"}' },
  { headers: { ...json, "idempotency-key": "nope" }, body: '{"amount":"1"}' },
  { headers: { ...json, "x-flag": "on", "x-other": "kept out" }, body: '{"amount":"1"}' },
  { headers: { ...json, "X-FLAG": "maybe" }, body: '{"amount":"1"}' },
  { headers: json, body: "{" },
  { headers: json, body: "" },
  { headers: json, body: "[]" },
  { headers: json, body: '{"amount":"1","url":"javascript:alert(1)"}' },
  { headers: { "content-type": "application/json; charset=utf-8" }, body: '{"amount":"1"}' },
  { headers: { "content-type": "application/json ; charset=utf-8" }, body: '{"amount":"1"}' },
  { headers: { "content-type": "Application/Problem+JSON" }, body: '{"amount":"1"}' },
  { headers: { "content-type": "application/jsonx" }, body: '{"amount":"1"}' },
  { headers: { "content-type": "text/plain" }, body: '{"amount":"1"}' },
  { headers: { "content-type": "" }, body: '{"amount":"1"}' },
  { body: new TextEncoder().encode('{"amount":"1"}') },
  { body: new Uint8Array(0) },
  {},
];

Deno.test("openapiRoute checks a request exactly as r.openapi does", async () => {
  const { viaOpenapi, viaOpenapiRoute } = apps();
  for (const { query = "", headers, body } of CASES) {
    const send = async (app: typeof viaOpenapi) => {
      const res = await app.request(`/things/create${query}`, { method: "POST", headers, body });
      return { status: res.status, body: await res.text() };
    };
    const label = JSON.stringify({ query, headers, body: String(body) });
    assertEquals(await send(viaOpenapiRoute), await send(viaOpenapi), label);
  }
});

Deno.test("openapiRoute documents the route as r.openapi does, and refuses shapes it does not check", () => {
  const { viaOpenapi, viaOpenapiRoute } = apps();
  const document = (app: typeof viaOpenapi) =>
    JSON.stringify(app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } }));
  assertEquals(document(viaOpenapiRoute), document(viaOpenapi));
  const withParams = createRoute({
    method: "post",
    path: "/things/{id}",
    request: {
      params: z.object({ id: z.string() }),
      body: { required: true, content: { "application/json": { schema: z.object({}) } } },
    },
    responses: { 200: { description: "ok" } },
  });
  let refused = false;
  try {
    openapiRoute(newRouter(), withParams, (c) => c.json({}));
  } catch {
    refused = true;
  }
  assert(refused, "a route with path parameters is refused at registration");
});
