// The operator's command line as README shows it: `operator create` prints the secrets once, the first
// sign-in works with them against the real process, and `audit verify` says whether the trail's chain holds
// (exit 1 once a record was altered in the database).
import { PGlite } from "@electric-sql/pglite";
import { totpCode } from "../../domain/operators/totp.ts";
import { assertEquals, assertMatch } from "../assert.ts";
import { runCli, startGateway } from "./process.ts";

Deno.test({
  name: "cli operator create, a first sign-in on the real server, cli audit verify (and its failure)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-operator-cli-" });
    const env = { DATA_DIR: dataDir, OPERATOR_SCRYPT_LOG_N: "12" };
    try {
      const created = await runCli([
        "operator",
        "create",
        "--email",
        "Awa@Example.com",
        "--role",
        "admin",
        "--json",
      ], env);
      assertEquals(created.code, 0, created.stderr);
      const op = JSON.parse(created.stdout.trim());
      assertEquals([op.email, op.role, op.backupCodes.length], ["awa@example.com", "admin", 10]);
      assertMatch(op.password, /^[0-9a-z]{28}$/);
      const human = await runCli(
        ["operator", "create", "--email", "moussa@example.com", "--role", "viewer"],
        env,
      );
      assertMatch(human.stdout, /password +\S+\n +TOTP secret +[A-Z2-7]+/);
      const dup = await runCli(["operator", "create", "--email", "awa@example.com", "--role", "viewer"], env);
      assertEquals([dup.code, dup.stderr.trim()], [
        1,
        "DUPLICATE_RESOURCE: An operator with this e-mail exists",
      ]);
      const badRole = await runCli(["operator", "create", "--email", "x@example.com", "--role", "boss"], env);
      assertEquals(badRole.code, 2);

      const gw = await startGateway({ ...env, DEVNET_BLOCK_MS: "0" });
      try {
        const res = await fetch(`${gw.url}/admin/api/session`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            email: op.email,
            password: op.password,
            totp: totpCode(op.totpSecret, new Date()),
          }),
        });
        const body = await res.json();
        assertEquals([res.status, body.data.operator.role], [201, "admin"], JSON.stringify(body));
        const cookie = res.headers.get("set-cookie")!.split(";")[0];
        const me = await fetch(`${gw.url}/admin/api/audit/verify`, { headers: { cookie } });
        const check = (await me.json()).data;
        // the development start creating its demo operator, two creations, one sign-in
        assertEquals([check.ok, check.records], [true, 4]);
      } finally {
        await gw.stop();
      }

      const intact = await runCli(["audit", "verify"], env);
      assertEquals(intact.code, 0, intact.stderr);
      assertMatch(intact.stdout, /^Audit trail intact: 4 records, head [0-9a-f]{64}\n$/);

      const db = new PGlite(`${dataDir}/pg`);
      await db.exec("ALTER TABLE audit_records DISABLE TRIGGER audit_records_append_only");
      await db.exec(`UPDATE audit_records SET actor_label = 'someone else' WHERE seq = 2`);
      await db.close();
      const broken = await runCli(["audit", "verify"], env);
      assertEquals(broken.code, 1);
      assertMatch(broken.stderr, /^Audit trail BROKEN at record 2: its content does not match its hash/);
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
