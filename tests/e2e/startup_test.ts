// The real process, started the way README says, with nothing configured.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { runCli, startGateway } from "./process.ts";

Deno.test({
  name: "start-up with no configuration, the CLI, and clear configuration errors",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-" });
    try {
      let merchant: { merchantId: string; keys: Record<string, string> } | undefined;
      await t.step("cli merchant create --json prints the merchant and its four keys", async () => {
        const out = await runCli([
          "merchant",
          "create",
          "--name",
          "Boutique Ouaga",
          "--kyb",
          "approved",
          "--json",
        ], {
          DATA_DIR: dataDir,
        });
        assertEquals(out.code, 0, out.stderr);
        merchant = JSON.parse(out.stdout.trim());
        assertMatch(merchant!.merchantId, /^mch_/);
        assertEquals(Object.keys(merchant!.keys).sort(), [
          "livePublishable",
          "liveSecret",
          "testPublishable",
          "testSecret",
        ]);
      });

      await t.step(
        "a fresh development start: banner, demo merchant with working keys, /health",
        async () => {
          const fresh = `${dataDir}/fresh`;
          const started = performance.now();
          const keysOf = (output: string[]) =>
            Object.fromEntries(
              output.map((l) => l.match(/^\s+(liveSecret|testSecret)\s+(svc_\S+)$/)).filter((m) => m !== null)
                .map((m) => [m![1], m![2]]),
            );
          const tokenOf = (output: string[]) =>
            output.map((l) => l.match(/Operator token .*: (adm_\w+)$/)?.[1]).find(Boolean);
          const gw = await startGateway({ DATA_DIR: fresh });
          let first: { keys: Record<string, string>; token?: string };
          try {
            const res = await fetch(`${gw.url}/health`);
            const body = await res.json();
            assertEquals(res.status, 200);
            assertEquals(body, {
              status: "ok",
              database: "ok",
              kv: "ok",
              tron: "embedded",
              driver: "pglite",
              gitRev: "dev",
              aggregators: [], // FIAT_PROVIDER=simulator: no live aggregator
            });
            assertEquals(res.headers.get("GIT_REV"), "dev");
            assert(performance.now() - started < 30_000);
            assert(gw.output.some((l) => l.includes("DEVELOPMENT MODE")), gw.output.join("\n"));
            first = { keys: keysOf(gw.output), token: tokenOf(gw.output) };
            assertMatch(first.keys.liveSecret ?? "", /^svc_live_sk_/);
            assertMatch(first.token ?? "", /^adm_/);
            const wallets = await fetch(`${gw.url}/v1/merchants/wallets`, {
              headers: { "x-api-key": first.keys.liveSecret },
            });
            assertEquals(wallets.status, 200, "the printed demo key works without stopping the server");
            assertEquals((await wallets.json()).data.length, 3);
            const payin = await fetch(`${gw.url}/v1/payments`, {
              method: "POST",
              headers: { "x-api-key": first.keys.liveSecret, "content-type": "application/json" },
              body: JSON.stringify({ amount: "10" }),
            });
            assertEquals(payin.status, 201, "the demo merchant is approved: it can take a pay-in at once");
            await payin.body?.cancel();
            // The banner's demo operator signs in with the printed password and the printed code.
            const line = (label: string) =>
              gw.output.map((l) => l.match(new RegExp(`^\\s+${label}\\s+(\\S+)`))?.[1]).find(Boolean);
            assert(gw.output.some((l) => l.includes("Demo operator (admin, development only, created now)")));
            const code = gw.output.map((l) => l.match(/code now (\d{6})/)?.[1]).find(Boolean);
            const session = await fetch(`${gw.url}/admin/api/session`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ email: line("e-mail"), password: line("password"), totp: code }),
            });
            assertEquals(session.status, 201, await session.clone().text());
            assertEquals((await session.json()).data.operator.role, "admin");
            const stat = await Deno.stat(`${fresh}/pg`);
            assert(stat.isDirectory);
            assertEquals(gw.stderr, [], "a clean start prints no warning");
          } finally {
            await gw.stop();
          }
          const again = await startGateway({ DATA_DIR: fresh });
          try {
            assertEquals(keysOf(again.output), first.keys, "the same demo merchant is shown at every start");
            assertEquals(tokenOf(again.output), first.token, "the operator token does not change at restart");
            assert(again.output.some((l) => l.includes("Demo operator (admin, development only):")), "kept");
            const admin = await fetch(`${again.url}/admin/api/merchants`, {
              method: "POST",
              headers: { authorization: `Bearer ${first.token}`, "content-type": "application/json" },
              body: JSON.stringify({ name: "Second", kybStatus: "PENDING" }),
            });
            assertEquals(admin.status, 201);
            await admin.body?.cancel();
          } finally {
            await again.stop();
          }
        },
      );

      await t.step(
        "production (no APP_ENV) with its secrets: no devnet, no simulators, no banner",
        async () => {
          const gw = await startGateway({
            APP_ENV: "",
            DATA_DIR: `${dataDir}/prod`,
            APP_SECRET: "e2e-app-secret-0123456789-abcdefghijkl",
            ADMIN_TOKEN: "e2e-admin-token-0123456789",
            TRON_MNEMONIC: "test test test test test test test test test test test junk",
            // Loopback only: the scanner is off, and nothing may reach a public node from a test.
            TRON_API_URL: "http://127.0.0.1:9/",
            JOBS_ENABLED: "false",
          });
          try {
            assertEquals(
              JSON.parse(gw.output.find((l) => l.includes("gateway listening"))!).env,
              "production",
            );
            assert(!gw.output.some((l) => l.includes("DEVELOPMENT MODE")));
            const demo = await fetch(`${gw.url}/admin/api/session`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                email: "demo-operator@example.com",
                password: "development-only-demo-password",
              }),
            });
            assertEquals(demo.status, 401, "production has no demo operator");
            await demo.body?.cancel();
            for (
              const path of ["/devnet/control/state", "/simulators/card/pay_x", "/simulators/momo/pay_x"]
            ) {
              const res = await fetch(`${gw.url}${path}`);
              assertEquals(res.status, 404, path);
              await res.body?.cancel();
            }
            assertEquals((await fetch(`${gw.url}/health`)).status, 200);
            assertEquals(gw.stderr, [], "a clean start prints no warning");
          } finally {
            await gw.stop();
          }
        },
      );

      await t.step(
        "the CLI-made merchant's key works against the running server; the CLI is refused meanwhile",
        async () => {
          const gw = await startGateway({ DATA_DIR: dataDir, ADMIN_TOKEN: "e2e-admin-token-0123456789" });
          try {
            const res = await fetch(`${gw.url}/v1/merchants/wallets`, {
              headers: { "x-api-key": merchant!.keys.liveSecret },
            });
            assertEquals(res.status, 200);
            assertEquals((await res.json()).data.length, 3);
            const admin = await fetch(`${gw.url}/admin/api/merchants`, {
              method: "POST",
              headers: {
                authorization: "Bearer e2e-admin-token-0123456789",
                "content-type": "application/json",
              },
              body: JSON.stringify({ name: "Second", kybStatus: "PENDING" }),
            });
            assertEquals(admin.status, 201);
            assertMatch((await admin.json()).data.keys.liveSecret, /^svc_live_sk_/);
            const cli = await runCli(["merchant", "create", "--name", "Clash"], { DATA_DIR: dataDir });
            assertEquals(cli.code, 1);
            assertMatch(cli.stderr, /in use by another gateway process/);
          } finally {
            await gw.stop();
          }
        },
      );

      await t.step("a bad variable stops start-up with one clear line", async () => {
        for (
          const [env, expected] of [
            [{}, /^Invalid configuration: APP_SECRET is required when APP_ENV=production$/],
            [{ PORT: "eighty" }, /^Invalid configuration: PORT/],
            [{ APP_ENV: "production" }, /^Invalid configuration: APP_SECRET is required/],
            [{ APP_ENV: "staging" }, /^Invalid configuration: APP_ENV/],
            [{ DATABASE_URL: "mysql://x" }, /^Invalid configuration: DATABASE_URL/],
          ] as const
        ) {
          const out = await new Deno.Command(Deno.execPath(), {
            args: ["run", "--allow-all", new URL("../../main.ts", import.meta.url).pathname],
            env: { PATH: Deno.env.get("PATH") ?? "", DATA_DIR: `${dataDir}/bad`, NO_COLOR: "1", ...env },
            clearEnv: true,
            stdout: "piped",
            stderr: "piped",
          }).output();
          const stderr = new TextDecoder().decode(out.stderr).trim();
          assertEquals(out.code, 1, stderr);
          assertEquals(stderr.split("\n").length, 1, stderr);
          assertMatch(stderr, expected);
        }
      });
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
