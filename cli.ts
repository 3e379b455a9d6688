// Operator command line (`deno task cli` on the development data, `deno task cli:prod` in production). Other tools drive `merchant create --json`, so its output shape is fixed.
import { parseArgs } from "node:util";
import { ConfigError, readConfig } from "./config.ts";
import { migrate } from "./db/migrate.ts";
import { KEY_PREFIX, type KeyKind, type Scope, SCOPES } from "./domain/keys/api_keys.ts";
import { AppError } from "./domain/errors.ts";
import type { KybStatus } from "./domain/merchants/mod.ts";
import { userInfo } from "node:os";
import {
  createMerchantAs,
  issueKeyAs,
  revokeKeyAs,
  setKybStatusAs,
} from "./domain/operators/merchant_actions.ts";
import { verifyAuditChain } from "./domain/audit/trail.ts";
import { generateMnemonic } from "./rails/tron/hd.ts";
import { openRuntime } from "./runtime.ts";
import { createOperator } from "./domain/operators/accounts.ts";
import { DEMO_OPERATOR } from "./domain/operators/demo.ts";
import { totpCode } from "./domain/operators/totp.ts";
import { cliActor, type Role, ROLES } from "./domain/operators/roles.ts";

const USAGE = `Usage:
  deno task cli mnemonic            (prints a new 24-word TRON_MNEMONIC; touches nothing)
  deno task cli migrate
  deno task cli merchant create --name NAME [--kyb approved|pending] [--json]
  deno task cli merchant kyb MERCHANT_ID --status approved|pending|rejected
  deno task cli key create MERCHANT_ID --kind ${
  Object.keys(KEY_PREFIX).join("|")
} [--scopes a,b] [--sandbox] [--json]
  deno task cli key revoke KEY_ID
  deno task cli operator create --email EMAIL --role ${ROLES.join("|")} [--json]
                                    (prints a chosen password, the TOTP secret and backup codes, once)
  deno task cli operator demo-code  (development: the demo operator's current TOTP code; touches nothing)
  deno task cli audit verify        (checks the audit trail's hash chain; exit 1 when it is broken)`;

function systemUser(): string {
  try {
    return userInfo().username;
  } catch {
    return "unknown"; // a uid with no passwd entry (some containers)
  }
}

function fail(message: string): never {
  console.error(message);
  Deno.exit(2);
}

async function run(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      kyb: { type: "string" },
      status: { type: "string" },
      kind: { type: "string" },
      scopes: { type: "string" },
      sandbox: { type: "boolean" },
      json: { type: "boolean" },
      email: { type: "string" },
      role: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [group, action, target] = positionals;
  if (values.help || !group) return console.log(USAGE);
  // Needs no configuration: an operator makes the production seed before any secret exists.
  if (group === "mnemonic") return console.log(generateMnemonic());
  // The demo operator's secret is published in domain/operators/demo.ts; only development creates it.
  if (group === "operator" && action === "demo-code") {
    return console.log(totpCode(DEMO_OPERATOR.totpSecret, new Date()));
  }

  const runtime = await openRuntime(readConfig());
  const deps = runtime.deps;
  // What the command line changes is recorded in the audit trail as "cli:<system user>".
  const actor = cliActor(systemUser());
  try {
    if (group === "migrate") {
      const applied = await migrate(deps.db);
      console.log(applied.length ? `Applied migrations: ${applied.join(", ")}` : "Schema is up to date");
    } else if (group === "merchant" && action === "create") {
      if (!values.name?.trim()) fail("merchant create needs --name NAME");
      const kyb = (values.kyb ?? "pending").toUpperCase();
      if (kyb !== "APPROVED" && kyb !== "PENDING") fail("--kyb must be approved or pending");
      const input = { name: values.name.trim(), kybStatus: kyb as KybStatus };
      const created = await createMerchantAs(deps, actor, input);
      if (values.json) console.log(JSON.stringify(created));
      else {
        console.log(`Merchant ${created.merchantId} created. Keys (shown once, store them now):`);
        for (const [name, key] of Object.entries(created.keys)) console.log(`  ${name.padEnd(16)} ${key}`);
      }
    } else if (group === "merchant" && action === "kyb" && target) {
      const status = (values.status ?? "").toUpperCase();
      if (!["APPROVED", "PENDING", "REJECTED"].includes(status)) {
        fail("--status must be approved, pending or rejected");
      }
      const row = await setKybStatusAs(deps, actor, target, status as KybStatus);
      console.log(`Merchant ${row.id} KYB status: ${row.kyb_status}`);
    } else if (group === "key" && action === "create" && target) {
      if (!values.kind || !(values.kind in KEY_PREFIX)) {
        fail(`--kind must be one of ${Object.keys(KEY_PREFIX).join(", ")}`);
      }
      const scopes = values.scopes?.split(",").map((s) => s.trim()).filter(Boolean);
      const unknown = scopes?.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown?.length) fail(`Unknown scopes: ${unknown.join(", ")}. Known: ${SCOPES.join(", ")}`);
      const issued = await issueKeyAs(deps, actor, {
        merchantId: target,
        kind: values.kind as KeyKind,
        scopes: scopes as Scope[] | undefined,
        sandbox: values.sandbox,
      });
      console.log(
        values.json
          ? JSON.stringify(issued)
          : `Key ${issued.id} (${issued.kind}, ${issued.mode}): ${issued.key}`,
      );
    } else if (group === "operator" && action === "create") {
      if (!values.email) fail("operator create needs --email EMAIL");
      if (!(ROLES as readonly string[]).includes(values.role ?? "")) {
        fail(`--role must be ${ROLES.join(", ")}`);
      }
      const created = await createOperator(deps, actor, { email: values.email, role: values.role as Role });
      if (values.json) console.log(JSON.stringify(created));
      else {
        console.log(
          `Operator ${created.id} (${created.email}, ${created.role}) created. Shown once, store them now:`,
        );
        console.log(`  password     ${created.password}`);
        console.log(`  TOTP secret  ${created.totpSecret}   (add it to an authenticator app)`);
        console.log(`  TOTP URI     ${created.totpUri}`);
        console.log(`  backup codes ${created.backupCodes.join("  ")}`);
      }
    } else if (group === "audit" && action === "verify") {
      const check = await verifyAuditChain(deps);
      if (check.ok) console.log(`Audit trail intact: ${check.records} records, head ${check.head}`);
      else {
        console.error(`Audit trail BROKEN at record ${check.brokenAt}: ${check.reason}`);
        console.error(`(${check.records} records before it verify)`);
        Deno.exitCode = 1;
      }
    } else if (group === "key" && action === "revoke" && target) {
      const row = await revokeKeyAs(deps, actor, target);
      console.log(`Key ${row.id} revoked`);
    } else {
      fail(USAGE);
    }
  } finally {
    await runtime.close();
  }
}

if (import.meta.main) {
  try {
    await run(Deno.args);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof AppError) {
      console.error(`${err instanceof AppError ? `${err.code}: ` : ""}${err.message}`);
      Deno.exit(1);
    }
    throw err;
  }
}
