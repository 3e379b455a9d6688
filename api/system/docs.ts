// /v1/openapi.json generated from the route schemas, and /docs rendered from it.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { renderDocsPage } from "../../pages/docs.tsx";
import type { AppEnv } from "../../http/env.ts";
import { listStateCodes } from "../openapi/state_codes.ts";

const TAGS = [
  { name: "Pay-ins", description: "Take a payment in USDT (TRON), by card or by mobile money (XOF)" },
  { name: "Wallets", description: "The merchant's balances per currency and rail" },
  { name: "Webhooks", description: "Endpoints that receive signed events, and the log of deliveries" },
  { name: "Sandbox", description: "Test mode: simulate payments and reset sandbox data" },
  { name: "Providers", description: "Where card and mobile money providers report outcomes" },
  {
    name: "API keys",
    description: "The merchant's own keys: create with scopes, rotate with an overlap, revoke",
  },
  { name: "Admin", description: "The operator's API, authenticated with ADMIN_TOKEN" },
  { name: "Health", description: "Liveness of the database and the queue" },
  { name: "Webhook events", description: "What the gateway POSTs to a merchant's webhook endpoints" },
];

/**
 * PUBLIC_URL, unless it is the development default on localhost: then the path relative to wherever the
 * document was fetched from, which is the gateway itself (and not a localhost a reader elsewhere lacks).
 */
function serverOf(publicUrl: string) {
  const host = new URL(publicUrl).hostname;
  return ["localhost", "127.0.0.1", "[::1]"].includes(host)
    ? { url: "/", description: "The gateway serving this document" }
    : { url: publicUrl, description: "This gateway (PUBLIC_URL)" };
}

/**
 * Request bodies told apart by a field the default case may omit (paymentMethod, currency, productType):
 * the generator writes `oneOf`, with a `discriminator` when the branches are named, which linters and
 * client generators read as "the field is always present". The branches still exclude each other by that
 * field's values; `anyOf` without a discriminator says what the server checks.
 */
const OPTIONAL_TAG_UNIONS = [
  "CreatePayment",
  "CreateWithdrawal",
  "CreatePaylinkWithProducts",
  "PaylinkProductInput",
  "PaylinkXofProductInput",
  "SimulatePaylink",
];

/** The document as served: `publicUrl` is the server clients call (PUBLIC_URL). */
export function openApiDocument(app: OpenAPIHono<AppEnv>, publicUrl: string) {
  const doc = generatedDocument(app, publicUrl);
  listStateCodes(
    doc.paths as never,
    { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  );
  for (const name of OPTIONAL_TAG_UNIONS) {
    const schema = doc.components?.schemas?.[name] as
      | { oneOf?: unknown[]; anyOf?: unknown[]; discriminator?: unknown }
      | undefined;
    if (schema?.oneOf) [schema.anyOf, schema.oneOf] = [schema.oneOf, undefined];
    if (schema) delete schema.discriminator;
  }
  return doc;
}

function generatedDocument(app: OpenAPIHono<AppEnv>, publicUrl: string) {
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Payment Gateway API",
      version: "1",
      description:
        "Pay-ins in USDT (TRON), card and mobile money (XOF); payouts, wallets and signed webhooks. " +
        "Every error answers the envelope `{ success: false, error: { code, message }, statusCode }` " +
        "with a code of the catalogue listed in the Error schema.",
      // OpenAPI 3.1 takes an SPDX `identifier`; the generator's types only know 3.0's `url`.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" } as { name: string },
    },
    servers: [serverOf(publicUrl)],
    tags: TAGS,
  });
}

export function docsRoutes(app: OpenAPIHono<AppEnv>) {
  const r = new Hono<AppEnv>();
  let cached: { json: string; html: string } | undefined;
  const build = (publicUrl: string) => {
    if (!cached) {
      const doc = openApiDocument(app, publicUrl);
      cached = { json: JSON.stringify(doc), html: renderDocsPage(doc as never) };
    }
    return cached;
  };
  r.get(
    "/v1/openapi.json",
    (c) =>
      c.body(build(c.get("deps").config.publicUrl).json, 200, {
        "content-type": "application/json; charset=utf-8",
      }),
  );
  r.get("/docs", (c) => c.html(build(c.get("deps").config.publicUrl).html));
  return r;
}
