// Wiring only: config, database, KV, the app, the jobs, and Deno.serve.
import { createApp } from "./api/app.ts";
import { ConfigError, readConfig } from "./config.ts";
import { registerJobs } from "./jobs/mod.ts";
import { fundDevelopmentHotWallet } from "./domain/treasury/dev_funding.ts";
import { DEMO_OPERATOR, ensureDemoOperator } from "./domain/operators/demo.ts";
import { totpCode } from "./domain/operators/totp.ts";
import { developmentDemoMerchant, openRuntime, type Runtime, verifyTronNetwork } from "./runtime.ts";

/**
 * Development says so loudly at every start, with what a newcomer needs to try the API without stopping
 * the server: the operator token, a demo merchant's keys (both kept in DATA_DIR across restarts) and the
 * demo operator's login for /admin (development only; created once per database).
 */
async function printDevelopmentBanner(runtime: Runtime, tokenFromEnv: boolean) {
  const config = runtime.deps.config;
  const demo = await developmentDemoMerchant(runtime);
  const operator = await ensureDemoOperator(runtime.deps);
  const where = (file: string) => config.onDenoDeploy ? "this run only" : `kept in ${config.dataDir}/${file}`;
  const lines = [
    "=".repeat(78),
    " DEVELOPMENT MODE (APP_ENV=development): never expose this server to the internet.",
    " The TRON devnet is mounted at /devnet and the card and mobile money simulators stand in for",
    ' real providers, so anyone can "pay" without money. Production: `deno task serve` (README).',
    "",
    ` Operator token (${tokenFromEnv ? "from ADMIN_TOKEN" : where("admin_token")}): ${config.adminToken}`,
    ` Demo merchant ${demo.merchant.merchantId}${demo.created ? " (created now)" : ""}, ${
      where("demo_merchant.json")
    }:`,
    ...Object.entries(demo.merchant.keys).map(([name, key]) => `   ${name.padEnd(16)} ${key}`),
    ` Demo operator (admin, development only${
      operator.created ? ", created now" : ""
    }): ${config.publicUrl}/admin`,
    `   e-mail           ${DEMO_OPERATOR.email}`,
    `   password         ${DEMO_OPERATOR.password}`,
    `   TOTP secret      ${DEMO_OPERATOR.totpSecret} (code now ${
      totpCode(DEMO_OPERATOR.totpSecret, runtime.deps.clock.now())
    }; later: deno task cli operator demo-code)`,
    "=".repeat(78),
  ];
  console.log(lines.join("\n"));
}

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
  let runtime;
  try {
    runtime = await openRuntime(config);
    // nile or mainnet: a node on another network is refused here, before anything is read from it.
    await verifyTronNetwork(runtime);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      Deno.exit(1);
    }
    throw err;
  }
  if (config.appEnv === "development") await printDevelopmentBanner(runtime, config.adminToken !== undefined);
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
