// Wiring only: config, database, KV, the app, the jobs, and Deno.serve.
import { createApp } from "./api/app.ts";
import { ConfigError, readConfig } from "./config.ts";
import { randomToken } from "./domain/ids.ts";
import { registerJobs } from "./jobs/mod.ts";
import { fundDevelopmentHotWallet } from "./domain/treasury/dev_funding.ts";
import { openRuntime } from "./runtime.ts";

async function main() {
  let config;
  try {
    config = readConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      Deno.exit(1);
    }
    throw err;
  }
  if (config.port === 0) {
    // PORT=0 asks for any free port; pick it now so PUBLIC_URL's default (customer links) names it.
    const probe = Deno.listen({ port: 0, hostname: "127.0.0.1" });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    const defaultUrl = config.publicUrl === "http://localhost:0";
    config = { ...config, port, publicUrl: defaultUrl ? `http://localhost:${port}` : config.publicUrl };
  }
  if (!config.adminToken && config.appEnv === "development") {
    config = { ...config, adminToken: `adm_${randomToken(24)}` };
    console.log(`ADMIN_TOKEN was not set; this run's admin token is: ${config.adminToken}`);
  }
  let runtime;
  try {
    runtime = await openRuntime(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      Deno.exit(1);
    }
    throw err;
  }
  const { deps, devnet, simulators } = runtime;
  const app = createApp(deps, { devnet, simulators });
  runtime.bindApp(app.fetch);
  devnet?.start();
  if (devnet) await fundDevelopmentHotWallet(deps, devnet);
  const jobs = config.jobsEnabled ? registerJobs(deps) : undefined;

  const server = Deno.serve({
    port: config.port,
    onListen: ({ hostname, port }) =>
      deps.log.info("gateway listening", {
        url: `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`,
        publicUrl: config.publicUrl,
        database: deps.db.driver,
        env: config.appEnv,
        gitRev: config.gitRev,
      }),
  }, app.fetch);

  const shutdown = async () => {
    deps.log.info("shutting down");
    await server.shutdown();
    jobs?.stop();
    await runtime.close();
    Deno.exit(0);
  };
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", shutdown);
  Deno.addSignalListener("SIGINT", shutdown);
}

if (import.meta.main) await main();
