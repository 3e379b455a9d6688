// Configuration: defaults with nothing set, and one clear line for each bad or missing value.
import { ConfigError, parseConfig } from "../../config.ts";
import { assertEquals, assertMatch } from "../assert.ts";

function errorOf(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return "no error";
}

Deno.test("nothing configured: development on embedded PGlite with the devnet in-process", () => {
  const c = parseConfig({});
  assertEquals([c.port, c.dataDir, c.databaseUrl, c.appEnv], [8000, "./data", undefined, "development"]);
  assertEquals([c.publicUrl, c.kvPath, c.gitRev], ["http://localhost:8000", "./data/kv.sqlite3", "dev"]);
  assertEquals([c.tron.network, c.tron.embeddedDevnet, c.tron.payinConfirmations], ["devnet", true, 5]);
  assertEquals(c.fiat.provider, "simulator");
});

Deno.test("networks carry their USDT contract; TRON_API_URL points elsewhere", () => {
  const nile = parseConfig({ TRON_NETWORK: "nile" });
  assertEquals([nile.tron.usdtContract, nile.tron.apiUrl], [
    "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf",
    "https://nile.trongrid.io",
  ]);
  const custom = parseConfig({ TRON_API_URL: "http://127.0.0.1:9090/devnet/" });
  assertEquals([custom.tron.embeddedDevnet, custom.tron.apiUrl], [false, "http://127.0.0.1:9090/devnet"]);
});

Deno.test("a bad or missing required value is one clear line naming it", () => {
  const secret = "x".repeat(40);
  const prod = { APP_ENV: "production", APP_SECRET: secret, ADMIN_TOKEN: "y".repeat(20), TRON_MNEMONIC: "m" };
  assertMatch(errorOf({ PORT: "eighty" }), /^Invalid configuration: PORT/);
  assertMatch(errorOf({ APP_ENV: "production" }), /APP_SECRET is required/);
  assertMatch(errorOf({ ...prod, ADMIN_TOKEN: "" }), /ADMIN_TOKEN is required/);
  assertMatch(errorOf({ ...prod, TRON_MNEMONIC: "" }), /TRON_MNEMONIC is required/);
  assertMatch(errorOf({ ...prod, TRON_NETWORK: "devnet" }), /devnet is for development only/);
  assertMatch(errorOf({ APP_SECRET: "short" }), /APP_SECRET must be at least 32/);
  assertMatch(errorOf({ DATABASE_URL: "mysql://x" }), /DATABASE_URL/);
  assertMatch(errorOf({ TRON_USDT_CONTRACT: "0xabc" }), /TRON_USDT_CONTRACT/);
  assertMatch(errorOf({ DENO_DEPLOYMENT_ID: "d1" }), /APP_SECRET is required on Deno Deploy/);
  assertMatch(
    errorOf({ DENO_DEPLOYMENT_ID: "d1", APP_SECRET: secret }),
    /DATABASE_URL is required on Deno Deploy/,
  );
  assertEquals(parseConfig({ ...prod }).tron.network, "mainnet");
});
