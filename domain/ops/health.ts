import type { Deps } from "../deps.ts";
import { aggregatorHealth } from "./aggregator_health.ts";

/**
 * "degraded" with the database or KV down (the route answers 503), or with only the live aggregator
 * unreachable (the route answers 200: this instance still serves everything else).
 */
export async function checkHealth(deps: Pick<Deps, "db" | "kv" | "config" | "fiat">) {
  const database = await deps.db.query("SELECT 1").then(() => "ok" as const, () => "down" as const);
  const kv = await deps.kv.get(["health"]).then(() => "ok" as const, () => "down" as const);
  const aggregators = await aggregatorHealth(deps);
  const core = database === "ok" && kv === "ok";
  const reachable = aggregators.every((a) => a.status !== "unreachable");
  return {
    status: core && reachable ? "ok" as const : "degraded" as const,
    serving: core,
    database,
    kv,
    driver: deps.db.driver,
    gitRev: deps.config.gitRev,
    aggregators,
  };
}
