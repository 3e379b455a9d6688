// Builds the whole HTTP surface: /v1, /admin/api, /health, /docs, the pages. main.ts only serves it.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Deps } from "../domain/deps.ts";
import { newId } from "../domain/ids.ts";
import { AppError } from "../domain/errors.ts";
import { bodyLimit } from "hono/body-limit";
import { compress } from "hono/compress";
import { adminRoutes } from "./admin.ts";
import { docsRoutes } from "./docs.ts";
import type { AppEnv } from "./env.ts";
import { onError, validationHook } from "./errors.ts";
import { methodsIndex, notFoundOrMethodNotAllowed } from "./allowed_methods.ts";
import { healthRoutes } from "./health.ts";
import { answeringRoute, metricsRoutes, RequestMetrics } from "./metrics.ts";
import { rejectUnstorableInput } from "./input_guard.ts";
import { paymentRoutes } from "./payments.ts";
import { providerRoutes } from "./providers.ts";
import type { Devnet } from "../rails/tron/devnet/mod.ts";
import type { Context, Hono } from "hono";
import { sandboxRoutes } from "./sandbox.ts";
import { walletRoutes } from "./wallets.ts";
import { webhookRoutes } from "./webhooks/mod.ts";
import { whitelistRoutes } from "./whitelist.ts";
import { fiatDestinationRoutes } from "./fiat_destinations.ts";
import { payoutRoutes } from "./payouts.ts";
import { conversionRoutes } from "./conversions.ts";
import { withdrawalRoutes } from "./withdrawals.ts";
import { adminBulkReviewRoutes } from "./admin_bulk_review.ts";
import { adminReviewRoutes } from "./admin_review.ts";
import { bulkRoutes } from "./bulk.ts";
import { adminTreasuryRoutes } from "./admin_treasury.ts";
import { registerWebhooks } from "./webhooks/events.ts";
import { checkoutRoutes } from "../pages/routes.ts";
import { shopPageRoutes } from "../pages/shop_routes.ts";
import { merchantProfileRoutes } from "./merchant_profile.ts";
import { shopRoutes } from "./shop.ts";
import { paylinkOrderRoutes } from "./paylink_orders.ts";
import { subscriptionRoutes } from "./subscriptions.ts";
import { adminMailRoutes } from "./admin_mail.ts";
import { adminPayinHoldRoutes } from "./admin_payin_holds.ts";
import { subscriptionPageRoutes } from "../pages/subscription_routes.ts";
import { paylinkRoutes } from "./paylinks.ts";
import { transactionRoutes } from "./transactions/routes.ts";
import { exportRoutes } from "./exports/routes.ts";
import { adminPaylinkRoutes, paylinkMediaRoutes, paylinkTemplateRoutes } from "./paylink_extras.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
/** The routes taking multipart uploads, each with its own size cap. */
const UPLOAD_PATH = /^\/v1\/paylinks\/[^/]+\/(cover-image|products\/[^/]+\/image|products\/import-csv)$/;
const MULTIPART = /^multipart\/form-data\b/i;
const REQUEST_ID = /^[\w.:-]{1,64}$/;
/** hono/compress's default threshold: smaller answers are never compressed. */
const COMPRESS_THRESHOLD_BYTES = 1024;
/** The `next` handed to compress() once the answer exists: it only post-processes `c.res`. */
const answered = () => Promise.resolve();

/**
 * Sets a header on the finished answer in place. `c.header()` would copy the whole Response (turning its
 * body into a stream) on each call; it is only needed when the headers are immutable (a fetched Response).
 */
function stampHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}

/** Every router uses this so validation failures become the VALIDATION_ERROR envelope. */
export function newRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

export function createApp(deps: Deps, options: { devnet?: Devnet; simulators?: { app: Hono } } = {}) {
  const app = newRouter();
  const metrics = new RequestMetrics();
  // Two middlewares in front of every route rather than five: each level of Hono's dispatch is an async
  // call with its own closures, paid on every request. Outermost: counts every answer with its final
  // status, stamps the request id and revision on it, and gzips JSON and pages of 1 KB or more for clients
  // that accept it (smaller ones are left alone: the header costs more than it saves).
  const compressLarge = compress();
  app.use("*", async (c, next) => {
    const started = performance.now();
    try {
      c.set("deps", deps);
      // A caller's request id is echoed and logged: only a plain token is taken, anything else is replaced.
      const given = c.req.header("x-request-id");
      c.set("requestId", given && REQUEST_ID.test(given) ? given : newId("req"));
      await next();
      stampHeader(c, "GIT_REV", deps.config.gitRev);
      stampHeader(c, "X-Request-Id", c.get("requestId"));
      // What compress() checks first, without its header reads: a declared length under its threshold.
      const length = c.res.headers.get("content-length");
      if (!(length && Number(length) < COMPRESS_THRESHOLD_BYTES)) await compressLarge(c, answered);
    } finally {
      metrics.record(c.req.method, answeringRoute(c), c.res.status, (performance.now() - started) / 1000);
    }
  });
  // JSON bodies are small; a larger one is refused before anything parses it. Multipart uploads (paylink
  // images, CSV) are capped by their own route instead. Then the input guard reads what passed.
  const jsonBodyLimit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new AppError("BAD_REQUEST", `Request body larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`);
    },
  });
  app.use("*", (c, next) => {
    const guarded = async () => {
      await rejectUnstorableInput(c, next);
    };
    if (
      c.req.method === "POST" && UPLOAD_PATH.test(c.req.path) &&
      MULTIPART.test(c.req.header("content-type") ?? "")
    ) {
      return guarded();
    }
    // bodyLimit's own first answer for a declared length, without making the body a stream to ask
    // whether there is one: within the limit it makes no difference.
    const headers = c.req.raw.headers;
    const declared = headers.get("content-length");
    if (declared !== null && !headers.has("transfer-encoding") && parseInt(declared, 10) <= MAX_BODY_BYTES) {
      return guarded();
    }
    return jsonBodyLimit(c, guarded);
  });
  app.onError(onError);
  // A path some route has, asked with another method, is 405 with `Allow`; an unknown path 404.
  app.notFound(notFoundOrMethodNotAllowed(methodsIndex(() => app.routes)));

  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "X-Api-Key",
    description: "A secret (svc_live_sk_…, svc_test_sk_…) or restricted key of the merchant",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", {
    type: "http",
    scheme: "bearer",
    description: "The same API key as `Authorization: Bearer <key>`",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "OperatorToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator's ADMIN_TOKEN as `Authorization: Bearer <token>`; /admin/api only",
  });
  registerWebhooks(app.openAPIRegistry);

  app.route("/", healthRoutes());
  app.route("/", metricsRoutes(metrics));
  app.route("/v1", walletRoutes());
  app.route("/v1", whitelistRoutes());
  app.route("/v1", fiatDestinationRoutes());
  app.route("/v1", payoutRoutes());
  app.route("/v1", withdrawalRoutes());
  // Templates first: /paylinks/templates must not be read as /paylinks/{id}.
  app.route("/v1", paylinkTemplateRoutes());
  app.route("/v1", paylinkRoutes());
  app.route("/v1", paylinkMediaRoutes());
  app.route("/v1", conversionRoutes());
  app.route("/v1", bulkRoutes());
  app.route("/v1", paymentRoutes());
  app.route("/v1", providerRoutes());
  app.route("/v1", webhookRoutes());
  app.route("/v1", sandboxRoutes());
  app.route("/v1", merchantProfileRoutes());
  app.route("/v1", shopRoutes());
  app.route("/v1", paylinkOrderRoutes());
  app.route("/v1", subscriptionRoutes());
  app.route("/v1", transactionRoutes());
  app.route("/v1", exportRoutes());
  app.route("/admin/api", adminRoutes());
  app.route("/admin/api", adminReviewRoutes());
  app.route("/admin/api", adminBulkReviewRoutes());
  app.route("/admin/api", adminTreasuryRoutes());
  app.route("/admin/api", adminMailRoutes());
  app.route("/admin/api", adminPayinHoldRoutes());
  app.route("/admin/api", adminPaylinkRoutes());
  app.route("/", docsRoutes(app));
  app.route("/", checkoutRoutes());
  app.route("/", shopPageRoutes());
  app.route("/", subscriptionPageRoutes());
  // Browsers ask every page's host for an icon; an empty answer keeps a 404 out of the customer's console.
  app.get("/favicon.ico", (c) => c.body(null, 204, { "cache-control": "public, max-age=86400" }));
  // Development only: the TRON node's controls (/devnet) and the simulators' pages (/simulators, where a
  // test card pays). Production mounts neither whatever it is handed; its sandbox pay-ins are settled
  // with POST /v1/sandbox/payments/:id/simulate.
  if (deps.config.appEnv === "development") {
    if (options.devnet) app.route("/", options.devnet.app);
    if (options.simulators) app.route("/", options.simulators.app);
  }
  return app;
}

export type App = ReturnType<typeof createApp>;
