// Builds the whole HTTP surface: /v1, /admin/api, /health, /docs, the pages. main.ts only serves it.
import type { Deps } from "../domain/deps.ts";
import { newId } from "../domain/ids.ts";
import { AppError } from "../domain/errors.ts";
import { bodyLimit } from "hono/body-limit";
import { compress } from "hono/compress";
import { adminRoutes } from "./admin/merchants.ts";
import { docsRoutes } from "./system/docs.ts";
import { onError } from "./errors.ts";
import { newRouter } from "./router.ts";
import { methodsIndex, notFoundOrMethodNotAllowed } from "./middleware/allowed_methods.ts";
import { healthRoutes } from "./system/health.ts";
import { answeringRoute, metricsRoutes, RequestMetrics } from "./system/metrics.ts";
import { rejectUnstorableInput } from "./middleware/input_guard.ts";
import { paymentRoutes } from "./payins/routes.ts";
import { providerRoutes } from "./payins/provider_callbacks.ts";
import { refundRoutes } from "./refunds/routes.ts";
import { refundCallbackRoutes } from "./refunds/provider_callback.ts";
import { adminRefundRoutes } from "./admin/refunds.ts";
import type { Context, Hono } from "hono";
import { sandboxRoutes } from "./sandbox/routes.ts";
import { walletRoutes } from "./wallets/routes.ts";
import { webhookRoutes } from "./webhooks/mod.ts";
import { whitelistRoutes } from "./whitelist/routes.ts";
import { fiatDestinationRoutes } from "./fiat_destinations/routes.ts";
import { payoutRoutes } from "./money_out/payouts.ts";
import { conversionRoutes } from "./conversions/routes.ts";
import { withdrawalRoutes } from "./money_out/withdrawals.ts";
import { adminBulkReviewRoutes } from "./admin/bulk_review.ts";
import { adminReviewRoutes } from "./admin/review.ts";
import { bulkRoutes } from "./bulk/routes.ts";
import { adminTreasuryRoutes } from "./admin/treasury.ts";
import { adminMerchantOverviewRoutes } from "./admin/merchant_overview.ts";
import { registerWebhooks } from "./webhooks/events.ts";
import { checkoutRoutes } from "../pages/routes.ts";
import { shopPageRoutes } from "../pages/shop_routes.ts";
import { merchantProfileRoutes } from "./merchants/profile.ts";
import { shopRoutes } from "./shop/routes.ts";
import { paylinkOrderRoutes } from "./paylinks/orders.ts";
import { subscriptionRoutes } from "./subscriptions/routes.ts";
import { adminMailRoutes } from "./admin/mail.ts";
import { adminPayinHoldRoutes } from "./admin/payin_holds.ts";
import { adminProviderStatusRoutes } from "./admin/provider_statuses.ts";
import { subscriptionPageRoutes } from "../pages/subscription_routes.ts";
import { refundPageRoutes } from "../pages/refund_routes.ts";
import { adminPageRoutes } from "../pages/admin/routes.ts";
import { adminConsoleRoutes } from "../pages/admin/console_routes.ts";
import { adminAccountRoutes } from "../pages/admin/account_routes.ts";
import { adminReviewScreens } from "../pages/admin/review_routes.ts";
import { adminKybScreens } from "../pages/admin/kyb_routes.ts";
import { paylinkRoutes } from "./paylinks/routes.ts";
import { adminPaylinkRoutes } from "./admin/paylink_limits.ts";
import { apiKeyRoutes } from "./keys/routes.ts";
import { ipAllowlistRoutes } from "./keys/allowlist.ts";
import { adminSessionRoutes } from "./admin/session.ts";
import { adminOperatorRoutes } from "./admin/operators.ts";
import { adminAuditRoutes } from "./admin/audit.ts";
import { adminSearchRoutes } from "./admin/search.ts";
import { paylinkMediaRoutes } from "./paylinks/media.ts";
import { paylinkTemplateRoutes } from "./paylinks/templates.ts";
import { statementRoutes } from "./statements/routes.ts";
import { invoiceRoutes } from "./invoices/routes.ts";
import { analyticsRoutes } from "./analytics/routes.ts";
import { usageRoutes } from "./usage/routes.ts";
import { transactionRoutes } from "./transactions/routes.ts";
import { exportRoutes } from "./exports/routes.ts";
import { disputeRoutes } from "./disputes/routes.ts";
import { chargebackCallbackRoutes } from "./disputes/chargeback_callback.ts";
import { disputeOutcomeCallbackRoutes } from "./disputes/outcome_callback.ts";
import { adminDisputeRoutes } from "./admin/disputes.ts";
import { kybRoutes } from "./kyb/routes.ts";
import { adminKybRoutes } from "./kyb/admin.ts";
import { adminPlanLimitRoutes } from "./admin/plan_limits.ts";

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

export function createApp(deps: Deps, options: { devnet?: { app: Hono }; simulators?: { app: Hono } } = {}) {
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
  app.openAPIRegistry.registerComponent("securitySchemes", "OperatorSession", {
    type: "apiKey",
    in: "cookie",
    name: "__Host-gw_operator",
    description: "An operator's session cookie from POST /admin/api/session (`gw_operator` on a plain-http " +
      "development server); a request that changes something also sends the session's X-CSRF-Token",
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
  app.route("/v1", apiKeyRoutes());
  app.route("/v1", ipAllowlistRoutes());
  app.route("/v1", statementRoutes());
  app.route("/v1", invoiceRoutes());
  app.route("/v1", analyticsRoutes());
  app.route("/v1", usageRoutes());
  app.route("/admin/api", adminSessionRoutes());
  app.route("/admin/api", adminOperatorRoutes());
  app.route("/admin/api", adminAuditRoutes());
  app.route("/admin/api", adminSearchRoutes());
  app.route("/v1", transactionRoutes());
  app.route("/v1", exportRoutes());
  app.route("/admin/api", adminRoutes());
  app.route("/admin/api", adminReviewRoutes());
  app.route("/admin/api", adminBulkReviewRoutes());
  app.route("/admin/api", adminTreasuryRoutes());
  app.route("/admin/api", adminMerchantOverviewRoutes());
  app.route("/admin/api", adminMailRoutes());
  app.route("/admin/api", adminPayinHoldRoutes());
  app.route("/admin/api", adminPaylinkRoutes());
  app.route("/v1", refundRoutes());
  app.route("/v1", refundCallbackRoutes());
  app.route("/admin/api", adminRefundRoutes());
  app.route("/v1", disputeRoutes());
  app.route("/v1", chargebackCallbackRoutes());
  app.route("/v1", disputeOutcomeCallbackRoutes());
  app.route("/admin/api", adminDisputeRoutes());
  app.route("/v1", kybRoutes());
  app.route("/admin/api", adminKybRoutes());
  app.route("/admin/api", adminPlanLimitRoutes());
  app.route("/admin/api", adminProviderStatusRoutes());
  app.route("/", docsRoutes(app));
  app.route("/", checkoutRoutes());
  app.route("/", shopPageRoutes());
  app.route("/", subscriptionPageRoutes());
  app.route("/", refundPageRoutes());
  app.route("/", adminPageRoutes());
  app.route("/", adminConsoleRoutes());
  app.route("/", adminAccountRoutes());
  app.route("/", adminReviewScreens());
  app.route("/", adminKybScreens());
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
