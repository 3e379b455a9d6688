// The contract run: the real gateway behind Stoplight Prism's validating proxy (an OpenAPI tool that
// shares no code with ours), and schema-valid requests generated from the served document for every
// operation, sent through the proxy with a sandbox key, a live key, the operator token (operator routes),
// no credentials and an unknown key. Findings: a 5xx, a request or answer off the document, or a
// schema-valid request refused for its shape. Each is printed; those listed in known_findings.json (with
// their reason) are tolerated until fixed; a listed one no longer seen is printed as FIXED, to be removed.
// Exits 1 on any finding not listed.
//
//   deno run --allow-all tests/contract/prism_run.ts [--per-operation N]
//   PRISM_BIN=/path/to/prism uses an installed Prism (default: npm installs the pinned one once).
import { startGateway } from "../e2e/process.ts";
import { type Contract, contractFor } from "../contract.ts";
import { GENERIC_CODES, KEYED_CODES } from "../../api/openapi/state_codes.ts";
import { type Json, operationsOf, validCases } from "../openapi_fuzz.ts";
import { sendCase } from "./send_case.ts";
import {
  type Credential,
  type Exchange,
  type Finding,
  findingsOf,
  harvest,
  readExchange,
} from "./findings.ts";
import { startPrism } from "./prism_process.ts";

const KNOWN_FINDINGS = new URL("./known_findings.json", import.meta.url);
const ADMIN_TOKEN = "contract-run-operator-token";
const perOperation = Number(Deno.args[Deno.args.indexOf("--per-operation") + 1]) || 4;

const dataDir = await Deno.makeTempDir({ prefix: "contract-run-" });
const gateway = await startGateway({ DATA_DIR: dataDir, DEVNET_BLOCK_MS: "0", ADMIN_TOKEN });
let prism: Awaited<ReturnType<typeof startPrism>> | undefined;
try {
  const doc = await (await fetch(`${gateway.url}/v1/openapi.json`)).json();
  const docFile = `${dataDir}/openapi.json`;
  await Deno.writeTextFile(docFile, JSON.stringify(doc));
  const demo = JSON.parse(await Deno.readTextFile(`${dataDir}/demo_merchant.json`));
  // Rate limits would turn most of the run into 429s, which say nothing about the contract.
  await fetch(`${gateway.url}/admin/api/merchants/${demo.merchantId}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ rateLimits: { default: 1_000_000 } }),
  });
  prism = await startPrism(docFile, gateway.url);
  const targets = { proxy: prism.url, gateway: gateway.url, contract: contractFor(JSON.stringify(doc)) };
  const exchanges = await sendAll(targets, doc, {
    test: demo.keys.testSecret,
    live: demo.keys.liveSecret,
    operator: ADMIN_TOKEN,
    none: "",
    unknown: "svc_test_sk_0000000000000000000000000000000000000000",
  });
  Deno.exitCode = report(exchanges, doc, JSON.parse(await Deno.readTextFile(KNOWN_FINDINGS)));
} finally {
  await prism?.stop();
  await gateway.stop();
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
}

/**
 * Prism re-encodes a multipart part as UTF-8 text (a PNG's first byte 0x89 arrives as EF BF BD), so an
 * image upload cannot cross it intact: those requests go straight to the gateway, and their answers are
 * checked against the document by our own validator (tests/contract.ts) instead.
 */
type Targets = { proxy: string; gateway: string; contract: Contract };

async function sendAll(targets: Targets, doc: Json, keys: Record<Credential, string>): Promise<Exchange[]> {
  const cases = validCases(doc, perOperation);
  // Creations first, so that later requests can name what they made; deletions last.
  const rank = (c: { method: string; path: string }) =>
    ({ POST: c.path.includes("{") ? 2 : 0, GET: 1, PUT: 2, PATCH: 2, DELETE: 3 })[c.method] ?? 2;
  const ordered = cases
    .map((c, i) => ({ c, round: cases.slice(0, i).filter((x) => x.operation === c.operation).length, i }))
    .sort((a, b) => a.round - b.round || rank(a.c) - rank(b.c) || a.i - b.i)
    .map((x) => x.c);
  const pool = new Map<string, string[]>();
  const exchanges: Exchange[] = [];
  const credentials: Credential[] = ["test", "live", "operator", "none", "unknown"];
  for (const credential of credentials) {
    for (const [n, c] of ordered.entries()) {
      const operatorRoute = c.path.startsWith("/admin/");
      if (credential === "operator" && !operatorRoute) continue;
      // Real ids where the run has made some, except a merchant's or a key's: an operator call could
      // suspend the demo merchant or revoke the keys the run uses.
      const path = c.path.replace(/\{(\w+)\}/g, (_, name) => {
        const param = c.pathParams[name];
        const pattern = new RegExp(param.schema?.pattern ?? "^");
        const allowed = (v: string) =>
          pattern.test(v) && (!param.schema?.enum || param.schema.enum.includes(v));
        const known = (pool.get(/^[a-z]+_[0-9a-z]{26}$/.test(param.sample) ? "id" : name) ?? [])
          .find((v) => allowed(v) && !/^(mch|key)_/.test(v));
        return encodeURIComponent(n % 3 !== 0 && known ? known : param.sample);
      });
      const headers: Record<string, string> = {};
      if (keys[credential]) headers.authorization = `Bearer ${keys[credential]}`;
      const sent = { ...c, headers: { ...c.headers }, query: { ...c.query } };
      for (const name of Object.keys(sent.headers)) {
        if (name.toLowerCase() === "idempotency-key") sent.headers[name] = crypto.randomUUID();
        if (name.toLowerCase() === "x-sandbox") sent.headers[name] = String(credential === "test");
      }
      if ("sandbox" in sent.query) sent.query.sandbox = String(credential === "test");
      if (credential === "test") headers["x-sandbox"] = "true";
      const direct = c.body?.partType?.startsWith("image/") ?? false;
      const res = await sendCase(direct ? targets.gateway : targets.proxy, sent, path, headers);
      const { exchange, json } = await readExchange(res, c.operation, credential, `${c.method} ${path}`);
      if (direct) {
        const problem = targets.contract.checkResponse(c.method, path, res.status, json);
        exchange.direct = true;
        if (problem) exchange.violations.push(problem);
      }
      if (!exchange.fromPrism && res.status < 300) harvest(json, pool);
      exchanges.push(exchange);
    }
  }
  return exchanges;
}

function report(exchanges: Exchange[], doc: Json, known: Record<string, string>): number {
  const mayAnswer = new Map(
    operationsOf(doc).map(({ label, op }) => [
      label,
      new Set([
        ...GENERIC_CODES,
        ...(op.security?.length === 0 ? [] : KEYED_CODES),
        ...(op["x-error-codes"] ?? []),
      ]),
    ]),
  );
  const findings = exchanges.flatMap((e) => findingsOf(e, mayAnswer.get(e.operation)));
  // Refusals with a code the operation lists as its own (not one every operation may answer).
  const generic = new Set<string>([...GENERIC_CODES, ...KEYED_CODES]);
  const stateRefusals = new Set(
    exchanges.filter((e) => !e.fromPrism && e.status >= 400 && e.code && !generic.has(e.code))
      .map((e) => `${e.operation} ${e.code}`),
  );
  if (Deno.env.get("CONTRACT_LIST_CODES")) console.log([...stateRefusals].sort().join("\n"));
  const seen = new Map<string, Finding>();
  for (const f of findings) if (!seen.has(f.key)) seen.set(f.key, f);
  const fresh = [...seen.values()].filter((f) => !(f.key in known));
  const gone = Object.keys(known).filter((k) => !seen.has(k));
  for (const f of seen.values()) {
    const tag = f.key in known ? "known" : "NEW";
    // Each distinct message under the key (up to 5): one key can hide several rules.
    const examples = new Map<string, Exchange>();
    for (const g of findings) {
      if (g.key === f.key && examples.size < 5) examples.set(g.exchange.message ?? "", g.exchange);
    }
    for (const e of examples.values()) {
      console.log(
        `${tag} ${f.key}  [${e.credential}: ${e.url} -> ${e.status}${e.message ? `: ${e.message}` : ""}]`,
      );
    }
  }
  for (const k of gone) console.log(`FIXED (remove it from known_findings.json) ${k}`);
  const count = (kind: string) => findings.filter((f) => f.kind === kind).length;
  const operations = new Set(exchanges.map((e) => e.operation)).size;
  const reached = new Set(exchanges.filter((e) => !e.fromPrism).map((e) => e.operation)).size;
  const total = Object.values(doc.paths).flatMap((p) => Object.keys(p as object)).length;
  console.log(
    `contract (Prism proxy): ${exchanges.length} requests ` +
      `(${
        exchanges.filter((e) => e.direct).length
      } image uploads past the proxy), ${operations}/${total} operations ` +
      `(${reached} reached the gateway), 5xx ${count("5xx")}, request violations ${
        count("request-violation")
      }, ` +
      `response violations ${count("response-violation")}, shape refusals of valid requests ${
        count("shape-refusal")
      }, refusals with a code the operation does not list ${
        count("unlisted-code")
      } (${stateRefusals.size} distinct operation and state code pairs seen); ${seen.size} distinct findings, ${
        seen.size - fresh.length
      } known, ${fresh.length} new, ${gone.length} fixed`,
  );
  return fresh.length > 0 ? 1 : 0;
}
