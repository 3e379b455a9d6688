// GET /metrics: Prometheus text behind the operator token. Not in the OpenAPI document (not JSON, not for
// merchants). The counting sits in createApp's outermost middleware, so it sees every final status.
import { type Context, Hono } from "hono";
import { routePath } from "hono/route";
import { renderMetrics, RequestMetrics } from "../../domain/ops/metrics.ts";
import type { AppEnv } from "../../http/env.ts";
import { requireAdmin } from "../middleware/admin_auth.ts";

export { RequestMetrics };

/**
 * The pattern of the route that answered, under which createApp counts the answer ("(unmatched)" for a
 * 404): the last handler dispatched is the one that answered (or threw).
 */
export function answeringRoute(c: Context): string {
  const pattern = routePath(c);
  return !pattern || pattern.endsWith("*") ? "(unmatched)" : pattern;
}

export function metricsRoutes(metrics: RequestMetrics) {
  const r = new Hono<AppEnv>();
  r.get("/metrics", requireAdmin, async (c) => {
    const body = await renderMetrics(c.get("deps"), metrics);
    return c.body(body, 200, {
      "content-type": "text/plain; version=0.0.4; charset=utf-8",
      "cache-control": "no-store",
    });
  });
  return r;
}
