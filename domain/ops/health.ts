import type { Deps } from "../deps.ts";
import { aggregatorHealth } from "./aggregator_health.ts";

/**
 * "degraded" with the database or KV down (the route answers 503), or, answering 200 because this instance
 * still serves everything else, with only the TRON nodes or the live aggregator unreachable. Every node
 * benched, lagging or forked is "down": the chain side waits (the scanner catches up afterwards) while the
 * API still takes requests, and a 503 would take the host out of its load balancer for nothing.
 */
export async function checkHealth(deps: Pick<Deps, "db" | "kv" | "config" | "tronNodes" | "fiat">) {
  const database = await deps.db.query("SELECT 1").then(() => "ok" as const, () => "down" as const);
  const kv = await deps.kv.get(["health"]).then(() => "ok" as const, () => "down" as const);
  const nodes = deps.tronNodes?.health().filter((n) => n.role === "full");
  const tron = !nodes ? "embedded" as const : nodes.some((n) => !n.benched) ? "ok" as const : "down" as const;
  const aggregators = await aggregatorHealth(deps);
  const core = database === "ok" && kv === "ok";
  const reachable = aggregators.every((a) => a.status !== "unreachable");
  return {
    status: core && tron !== "down" && reachable ? "ok" as const : "degraded" as const,
    serving: core,
    database,
    kv,
    tron,
    driver: deps.db.driver,
    gitRev: deps.config.gitRev,
    aggregators,
  };
}
