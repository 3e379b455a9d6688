import type { Deps } from "../deps.ts";

export async function checkHealth(deps: Pick<Deps, "db" | "kv" | "config">) {
  const database = await deps.db.query("SELECT 1").then(() => "ok" as const, () => "down" as const);
  const kv = await deps.kv.get(["health"]).then(() => "ok" as const, () => "down" as const);
  return {
    status: database === "ok" && kv === "ok" ? "ok" as const : "degraded" as const,
    database,
    kv,
    driver: deps.db.driver,
    gitRev: deps.config.gitRev,
  };
}
