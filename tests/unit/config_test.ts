// Configuration: defaults with nothing set, and one clear line for each bad or missing value.
import { ConfigError, EnvSchema, parseConfig } from "../../config.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";

const DEV = { APP_ENV: "development" };

function errorOf(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return "no error";
}

Deno.test("nothing configured is production, and production refuses to start without its secrets", () => {
  assertMatch(errorOf({}), /^Invalid configuration: APP_SECRET is required when APP_ENV=production$/);
  const secret = "x".repeat(40);
  assertMatch(errorOf({ APP_SECRET: secret }), /ADMIN_TOKEN is required when APP_ENV=production/);
  assertMatch(errorOf({ APP_SECRET: secret, ADMIN_TOKEN: "y".repeat(20) }), /TRON_MNEMONIC is required/);
  const c = parseConfig({ APP_SECRET: secret, ADMIN_TOKEN: "y".repeat(20), TRON_MNEMONIC: "m" });
  assertEquals([c.appEnv, c.tron.network, c.tron.embeddedDevnet], ["production", "mainnet", false]);
});

Deno.test("the development profile, named: embedded PGlite with the devnet in-process", () => {
  const c = parseConfig(DEV);
  assertEquals([c.port, c.dataDir, c.databaseUrl, c.appEnv], [8000, "./data", undefined, "development"]);
  assertEquals([c.publicUrl, c.kvPath, c.gitRev], ["http://localhost:8000", "./data/kv.sqlite3", "dev"]);
  assertEquals([c.tron.network, c.tron.embeddedDevnet, c.tron.payinConfirmations], ["devnet", true, 5]);
  assertEquals(c.fiat.provider, "simulator");
});

/** The variables named in the first column of README's configuration table. */
async function readmeVariables(): Promise<string[]> {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const section = readme.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? "";
  return [...section.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/gm)].map((m) => m[1]);
}

Deno.test("README's configuration table lists every variable config.ts reads, and nothing else", async () => {
  const documented = await readmeVariables();
  const read = Object.keys(EnvSchema.shape);
  assert(read.length > 20, "config.ts's schema is found");
  const missing = read.filter((name) => !documented.includes(name));
  assertEquals(missing, [], `README's configuration table lacks ${missing.join(", ")}`);
  const stale = documented.filter((name) => !read.includes(name));
  assertEquals(stale, [], `README documents variables config.ts does not read: ${stale.join(", ")}`);
  assertEquals(new Set(documented).size, documented.length, "each variable has one row");
});

Deno.test("networks carry their USDT contract; TRON_API_URL points elsewhere", () => {
  const nile = parseConfig({ ...DEV, TRON_NETWORK: "nile" });
  assertEquals([nile.tron.usdtContract, nile.tron.apiUrl], [
    "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf",
    "https://nile.trongrid.io",
  ]);
  const custom = parseConfig({ ...DEV, TRON_API_URL: "http://127.0.0.1:9090/devnet/" });
  assertEquals([custom.tron.embeddedDevnet, custom.tron.apiUrl], [false, "http://127.0.0.1:9090/devnet"]);
});

Deno.test("TRON_API_URL entries: url, url|key, url|key|rps, url||rps; a solidity node; bad entries refused", () => {
  const c = parseConfig({
    ...DEV,
    TRON_API_KEY: "shared",
    TRON_API_URL: "https://a.example/|ka|25, https://b.example||4,https://c.example",
    TRON_SOLIDITY_URL: "https://s.example|ks",
    TRON_NODE_RPS: "12",
  });
  assertEquals(c.tron.nodes, [
    { url: "https://a.example", apiKey: "ka", rps: 25 },
    { url: "https://b.example", apiKey: "shared", rps: 4 },
    { url: "https://c.example", apiKey: "shared" },
  ]);
  assertEquals(c.tron.solidityNode, { url: "https://s.example", apiKey: "ks" });
  assertEquals([c.tron.nodeRps, c.tron.nodeBurst, c.tron.nodeMaxLagBlocks, c.tron.nodeTimeoutMs], [
    12,
    30,
    10,
    5000,
  ]);
  assertEquals(c.tron.nodeBudgetStore, "auto");
  assertEquals(parseConfig({ ...DEV, TRON_NODE_BUDGET_STORE: "postgres" }).tron.nodeBudgetStore, "postgres");
  assertMatch(errorOf({ ...DEV, TRON_NODE_BUDGET_STORE: "kv" }), /TRON_NODE_BUDGET_STORE/);
  assertMatch(errorOf({ ...DEV, TRON_API_URL: "https://a.example|k|fast" }), /TRON_API_URL/);
  assertMatch(errorOf({ ...DEV, TRON_API_URL: "ftp://a.example" }), /TRON_API_URL/);
  assertMatch(
    errorOf({ ...DEV, TRON_SOLIDITY_URL: "https://a.example,https://b.example" }),
    /TRON_SOLIDITY_URL/,
  );
});

Deno.test("a bad or missing required value is one clear line naming it", () => {
  const secret = "x".repeat(40);
  const prod = { APP_ENV: "production", APP_SECRET: secret, ADMIN_TOKEN: "y".repeat(20), TRON_MNEMONIC: "m" };
  assertMatch(errorOf({ PORT: "eighty" }), /^Invalid configuration: PORT/);
  assertMatch(errorOf({ APP_ENV: "production" }), /APP_SECRET is required/);
  assertMatch(errorOf({ ...prod, ADMIN_TOKEN: "" }), /ADMIN_TOKEN is required/);
  assertMatch(errorOf({ ...prod, TRON_MNEMONIC: "" }), /TRON_MNEMONIC is required/);
  assertMatch(errorOf({ ...prod, TRON_NETWORK: "devnet" }), /devnet is for development only/);
  assertMatch(errorOf({ ...DEV, APP_SECRET: "short" }), /APP_SECRET must be at least 32/);
  assertMatch(errorOf({ DATABASE_URL: "mysql://x" }), /DATABASE_URL/);
  assertMatch(errorOf({ TRON_USDT_CONTRACT: "0xabc" }), /TRON_USDT_CONTRACT/);
  assertMatch(errorOf({ ...DEV, DENO_DEPLOYMENT_ID: "d1" }), /APP_SECRET is required on Deno Deploy/);
  assertMatch(
    errorOf({ ...DEV, DENO_DEPLOYMENT_ID: "d1", APP_SECRET: secret }),
    /DATABASE_URL is required on Deno Deploy/,
  );
  assertEquals(parseConfig({ ...prod }).tron.network, "mainnet");
});

Deno.test("the fiat destination cooldown: 24 hours in production, never less; 0 by default in development", () => {
  const prod = {
    APP_ENV: "production",
    APP_SECRET: "x".repeat(40),
    ADMIN_TOKEN: "y".repeat(20),
    TRON_MNEMONIC: "m",
  };
  assertEquals(parseConfig(prod).fiat.destinationCooldownSeconds, 86400);
  assertEquals(
    parseConfig({ ...prod, FIAT_DESTINATION_COOLDOWN_SECONDS: "86400" }).fiat.destinationCooldownSeconds,
    86400,
  );
  assertEquals(
    parseConfig({ ...prod, FIAT_DESTINATION_COOLDOWN_SECONDS: "172800" }).fiat.destinationCooldownSeconds,
    172800,
    "a longer cooldown is the operator's choice",
  );
  for (const lower of ["0", "60", "86399"]) {
    assertMatch(
      errorOf({ ...prod, FIAT_DESTINATION_COOLDOWN_SECONDS: lower }),
      /^Invalid configuration: FIAT_DESTINATION_COOLDOWN_SECONDS below 86400 is for development only$/,
    );
  }
  assertEquals(parseConfig(DEV).fiat.destinationCooldownSeconds, 0);
  assertEquals(
    parseConfig({ ...DEV, FIAT_DESTINATION_COOLDOWN_SECONDS: "60" }).fiat.destinationCooldownSeconds,
    60,
  );
  assertEquals(
    parseConfig({ ...DEV, FIAT_DESTINATION_COOLDOWN_SECONDS: "86400" }).fiat.destinationCooldownSeconds,
    86400,
  );
  for (const bad of ["-1", "1.5", "soon", String(31 * 86400)]) {
    assertMatch(
      errorOf({ ...DEV, FIAT_DESTINATION_COOLDOWN_SECONDS: bad }),
      /^Invalid configuration: FIAT_DESTINATION_COOLDOWN_SECONDS /,
    );
  }
});
