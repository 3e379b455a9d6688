import type { Deps } from "../deps.ts";

/**
 * The database and KV answer or not (503 when either is down); the TRON nodes answer or not. Every node
 * benched, lagging or forked is "down": the chain side waits (the scanner catches up afterwards) while the
 * API still takes requests, so it makes the status "degraded" without the 503 that would take a host out
 * of its load balancer.
 */
export async function checkHealth(deps: Pick<Deps, "db" | "kv" | "config" | "tronNodes">) {
  const database = await deps.db.query("SELECT 1").then(() => "ok" as const, () => "down" as const);
  const kv = await deps.kv.get(["health"]).then(() => "ok" as const, () => "down" as const);
  const nodes = deps.tronNodes?.health().filter((n) => n.role === "full");
  const tron = !nodes ? "embedded" as const : nodes.some((n) => !n.benched) ? "ok" as const : "down" as const;
  return {
    status: database === "ok" && kv === "ok" && tron !== "down" ? "ok" as const : "degraded" as const,
    database,
    kv,
    tron,
    driver: deps.db.driver,
    gitRev: deps.config.gitRev,
  };
}
