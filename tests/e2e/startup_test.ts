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

      await t.step("a fresh start creates its data, migrates and serves /health", async () => {
        const fresh = `${dataDir}/fresh`;
        const started = performance.now();
        const gw = await startGateway({ DATA_DIR: fresh });
        try {
          const res = await fetch(`${gw.url}/health`);
          const body = await res.json();
          assertEquals(res.status, 200);
          assertEquals(body, { status: "ok", database: "ok", kv: "ok", driver: "pglite", gitRev: "dev" });
          assertEquals(res.headers.get("GIT_REV"), "dev");
          assert(performance.now() - started < 30_000);
          assert(
            gw.output.some((l) => l.includes("admin token")),
            "the generated admin token is printed once",
          );
          const stat = await Deno.stat(`${fresh}/pg`);
          assert(stat.isDirectory);
        } finally {
          await gw.stop();
        }
      });

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
