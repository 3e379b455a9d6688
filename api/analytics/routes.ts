// GET /v1/analytics/volume and /v1/analytics/summary (scope analytics_read; a publishable key is refused).
import { createRoute, z } from "@hono/zod-openapi";
import { analyticsSummary, analyticsVolume } from "../../domain/analytics/mod.ts";
import { PAYIN_STATUSES } from "../../domain/payins/states.ts";
import { resolveCreationMode, sandboxFlagged } from "../../domain/sandbox/flag.ts";
import { newRouter } from "../router.ts";
import { errorResponsesWith, jsonContent, KEY_SECURITY, ok, successSchema } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import { Instant } from "../statements/routes.ts";
import type { Context } from "hono";
import type { AppEnv } from "../../http/env.ts";

const Currency = z.enum(["USDT_TRC20", "XOF"]);
const ByCurrency = z.object({ USDT_TRC20: z.string(), XOF: z.string() });

const PeriodQuery = {
  from: Instant.openapi({ description: "start, included (ISO 8601)", example: "2026-01-01" }),
  to: Instant.openapi({
    description: "end, excluded (ISO 8601); at most 366 days after from",
    example: "2027-01-01",
  }),
  sandbox: z.enum(["true", "false"]).optional().openapi({
    description: "sandbox data, for a sandbox key only (as on creation; or header x-sandbox: true). " +
      "Sandbox transactions are excluded by default",
  }),
};

const VolumeSchema = z.object({
  from: z.string(),
  to: z.string(),
  interval: z.enum(["day", "week"]),
  isSandbox: z.boolean(),
  primaryCurrency: Currency,
  primaryVolume: z.string().openapi({ description: "gross received by settled pay-ins, in primaryCurrency" }),
  volume: z.string().openapi({ description: "legacy: mirrors primaryVolume" }),
  volumeByCurrency: ByCurrency,
  count: z.number().int(),
  series: z.array(z.object({
    periodStart: z.string().openapi({ description: "UTC day, or the Monday of an ISO week" }),
    volume: z.string().openapi({ description: "in primaryCurrency" }),
    count: z.number().int(),
    volumeByCurrency: ByCurrency,
  })),
}).openapi("AnalyticsVolume");

const SummarySchema = z.object({
  from: z.string(),
  to: z.string(),
  isSandbox: z.boolean(),
  totalVolumeByCurrency: ByCurrency,
  payinCount: z.number().int(),
  countsByStatus: z.object(Object.fromEntries(PAYIN_STATUSES.map((s) => [s, z.number().int()]))),
  successRate: z.number().nullable().openapi({
    description:
      "paid / (paid + failed + expired) among pay-ins created in the period; null if none finished",
  }),
  feesPaid: ByCurrency.openapi({
    description: "service and network fees of the pay-ins settled in the period (what their settlements " +
      "booked to the platform); the fees of payouts, withdrawals and conversions are on the statement",
  }),
}).openapi("AnalyticsSummary");

function scopeOf(c: Context<AppEnv>, sandbox: string | undefined) {
  const auth = c.get("auth");
  const isSandbox = resolveCreationMode(auth.isSandbox, sandboxFlagged(sandbox, c.req.header("x-sandbox")));
  return { merchantId: auth.merchantId, isSandbox };
}

const REFUSALS = errorResponsesWith([
  "VALIDATION_ERROR",
  "SANDBOX_KEY_LIVE_REQUEST",
  "LIVE_KEY_SANDBOX_REQUEST",
]);

export function analyticsRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/analytics/volume",
      tags: ["Analytics"],
      summary: "Settled pay-in volume by day or week",
      operationId: "getAnalyticsVolume",
      description: "Gross received by pay-ins settled (CONFIRMED, OVERPAID, UNDERPAID) in [from, to), by " +
        "settlement time, bucketed by UTC day or ISO week. primaryCurrency is `currency` if given, else the " +
        "currency most pay-ins settled in.",
      security: KEY_SECURITY,
      middleware: [requireKey("analytics_read", "merchant")],
      request: {
        query: z.object({
          ...PeriodQuery,
          interval: z.enum(["day", "week"]).optional().openapi({ description: "default day" }),
          currency: Currency.optional(),
        }),
      },
      responses: { 200: jsonContent(successSchema(VolumeSchema), "The volume"), ...REFUSALS },
    }),
    async (c) => {
      const q = c.req.valid("query");
      return ok(c, await analyticsVolume(c.get("deps"), scopeOf(c, q.sandbox), q));
    },
  );
  r.openapi(
    createRoute({
      method: "get",
      path: "/analytics/summary",
      tags: ["Analytics"],
      summary: "Volume per currency, pay-ins by status, success rate and fees over a period",
      operationId: "getAnalyticsSummary",
      security: KEY_SECURITY,
      middleware: [requireKey("analytics_read", "merchant")],
      request: { query: z.object(PeriodQuery) },
      responses: { 200: jsonContent(successSchema(SummarySchema), "The summary"), ...REFUSALS },
    }),
    async (c) => {
      const q = c.req.valid("query");
      return ok(c, await analyticsSummary(c.get("deps"), scopeOf(c, q.sandbox), q));
    },
  );
  return r;
}
