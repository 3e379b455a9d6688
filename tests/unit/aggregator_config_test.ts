// FIAT_PROVIDER=cinetpay|paydunya: the gateway refuses to start with an aggregator named and any of its
// credentials missing, and builds the configured adapter when they are all there.
import { ConfigError, parseConfig } from "../../config.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";

function refusal(env: Record<string, string>): Error {
  try {
    parseConfig(env);
  } catch (err) {
    assert(err instanceof ConfigError, String(err));
    return err;
  }
  throw new Error("the configuration was accepted");
}

const PROD = {
  APP_ENV: "production",
  APP_SECRET: "x".repeat(40),
  ADMIN_TOKEN: "t".repeat(20),
  TRON_MNEMONIC: "test test test test test test test test test test test junk",
  DATABASE_URL: "postgres://u@h/db",
};
const CINETPAY = {
  CINETPAY_API_KEY: "k",
  CINETPAY_SITE_ID: "445160",
  CINETPAY_SECRET_KEY: "s",
  CINETPAY_TRANSFER_PASSWORD: "p",
};
const PAYDUNYA = { PAYDUNYA_MASTER_KEY: "m", PAYDUNYA_PRIVATE_KEY: "p", PAYDUNYA_TOKEN: "t" };

Deno.test("production refuses to start with an aggregator named and a credential missing", () => {
  for (const [provider, creds] of [["cinetpay", CINETPAY], ["paydunya", PAYDUNYA]] as const) {
    for (const missing of Object.keys(creds)) {
      const env: Record<string, string> = { ...PROD, FIAT_PROVIDER: provider, ...creds };
      delete env[missing];
      const err = refusal(env);
      assertMatch(err.message, new RegExp(`FIAT_PROVIDER=${provider} needs .*${missing}`));
    }
  }
});

Deno.test("an aggregator with all its credentials is configured; the simulator needs none", () => {
  const c = parseConfig({ ...PROD, FIAT_PROVIDER: "cinetpay", ...CINETPAY });
  assertEquals(c.fiat.provider, "cinetpay");
  assertEquals(c.fiat.cinetpay?.apiUrl, "https://api-checkout.cinetpay.com");
  const p = parseConfig({
    ...PROD,
    FIAT_PROVIDER: "paydunya",
    ...PAYDUNYA,
    PAYDUNYA_WITHDRAW_MODES: "OPERATOR_A_BF=orange-money-burkina",
  });
  assertEquals(p.fiat.paydunya?.withdrawModes, { OPERATOR_A_BF: "orange-money-burkina" });
  assertEquals(parseConfig(PROD).fiat.provider, "simulator");
  assertMatch(
    refusal({ ...PROD, FIAT_PROVIDER: "paydunya", ...PAYDUNYA, PAYDUNYA_WITHDRAW_MODES: "x" }).message,
    /PAYDUNYA_WITHDRAW_MODES/,
  );
});
