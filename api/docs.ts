// /v1/openapi.json generated from the route schemas, and /docs rendered from it.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { renderDocsPage } from "../pages/docs.tsx";
import type { AppEnv } from "./env.ts";

export function openApiDocument(app: OpenAPIHono<AppEnv>) {
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Payment Gateway API",
      version: "1",
      description:
        "Pay-ins in USDT (TRON), card and mobile money (XOF); payouts, wallets and signed webhooks.",
    },
  });
}

export function docsRoutes(app: OpenAPIHono<AppEnv>) {
  const r = new Hono<AppEnv>();
  let cached: { json: string; html: string } | undefined;
  const build = () => {
    if (!cached) {
      const doc = openApiDocument(app);
      cached = { json: JSON.stringify(doc), html: renderDocsPage(doc as never) };
    }
    return cached;
  };
  r.get(
    "/v1/openapi.json",
    (c) => c.body(build().json, 200, { "content-type": "application/json; charset=utf-8" }),
  );
  r.get("/docs", (c) => c.html(build().html));
  return r;
}
