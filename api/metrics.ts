// GET /metrics: Prometheus text behind the operator token. Not in the OpenAPI document (not JSON, not for
// merchants). The counting middleware sits in createApp, outermost, so it sees every final status.
import { Hono, type MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { renderMetrics, RequestMetrics } from "../domain/metrics.ts";
import type { AppEnv } from "./env.ts";
import { requireAdmin } from "./middleware/admin_auth.ts";

export { RequestMetrics };

/** Counts each answer under the pattern of the route that answered it ("(unmatched)" for a 404). */
export function countRequests(metrics: RequestMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // The index of the last handler dispatched: the one that answered (or threw).
      const pattern = routePath(c);
      const route = !pattern || pattern.endsWith("*") ? "(unmatched)" : pattern;
      metrics.record(c.req.method, route, c.res.status, (performance.now() - started) / 1000);
    }
  };
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
