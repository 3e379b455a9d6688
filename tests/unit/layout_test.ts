// The layout's rules, read from the code's own imports (docs/architecture.md draws them): which top-level
// folder may import which, the devnet kept to development wiring, pages apart from the API, no circles.
import { assert, assertEquals } from "../assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SKIP = /^(tests|bench|data|node_modules|\.git)\//;

/** Which top-level places each place may import (relative imports only; npm packages are not counted). */
const MAY_IMPORT: Record<string, string[]> = {
  "config.ts": [],
  rails: ["config.ts"],
  db: ["config.ts"],
  domain: ["config.ts", "db", "rails"],
  http: ["domain"],
  jobs: ["db", "domain"],
  "runtime.ts": ["config.ts", "db", "domain", "rails"],
  pages: ["db", "domain", "http"],
  api: ["db", "domain", "http", "pages", "rails"],
  "main.ts": ["api", "config.ts", "domain", "jobs", "runtime.ts"],
  "cli.ts": ["config.ts", "db", "domain", "rails", "runtime.ts"],
};
/** api/ and pages/ reach the database through domain/; only its row types may be named directly. */
const TYPES_ONLY_FROM_DB = ["api", "pages"];
/** A driver error's meaning, not a query: how errors.ts tells "database down" (503) from a bug (500). */
const DB_VALUE_IMPORTS_ALLOWED = new Set(["api/errors.ts -> db/postgres.ts"]);
/** The development wiring: it starts the devnet (runtime) or funds its wallets (dev_funding). */
const MAY_IMPORT_DEVNET = new Set(["runtime.ts", "domain/treasury/dev_funding.ts"]);
const DEVNET = "rails/tron/devnet/";

type Edge = { from: string; to: string; typeOnly: boolean };

const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

async function sourceFiles(dir = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(ROOT + dir)) {
    const path = dir + entry.name;
    if (SKIP.test(path + "/") || entry.name.startsWith(".")) continue;
    if (entry.isDirectory) out.push(...await sourceFiles(path + "/"));
    else if (/\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

function resolve(from: string, spec: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const piece of spec.split("/")) {
    if (piece === "..") parts.pop();
    else if (piece !== ".") parts.push(piece);
  }
  return parts.join("/");
}

async function edges(): Promise<Edge[]> {
  const out: Edge[] = [];
  for (const file of await sourceFiles()) {
    const text = await Deno.readTextFile(ROOT + file);
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[4] ?? m[5];
      const names = m[3] ?? "";
      const inlineTypesOnly = /^\{[^}]*\}$/s.test(names.trim()) &&
        names.replace(/[{}\s]/g, "").split(",").filter(Boolean).every((n) => n.startsWith("type"));
      out.push({ from: file, to: resolve(file, spec), typeOnly: Boolean(m[2]) || inlineTypesOnly });
    }
  }
  return out;
}

const place = (path: string) => path.includes("/") ? path.split("/")[0] : path;

Deno.test("each top-level place imports only the places below it", async () => {
  const wrong = (await edges())
    .filter((e) => place(e.from) !== place(e.to))
    .filter((e) => !(MAY_IMPORT[place(e.from)] ?? []).includes(place(e.to)))
    .map((e) => `${e.from} -> ${e.to}`);
  assertEquals(wrong, []);
});

Deno.test("api/ and pages/ name only the database's types; queries go through domain/", async () => {
  const wrong = (await edges())
    .filter((e) => TYPES_ONLY_FROM_DB.includes(place(e.from)) && place(e.to) === "db" && !e.typeOnly)
    .map((e) => `${e.from} -> ${e.to}`)
    .filter((edge) => !DB_VALUE_IMPORTS_ALLOWED.has(edge));
  assertEquals(wrong, []);
});

Deno.test("production code does not import the devnet; only the development wiring does", async () => {
  const all = await edges();
  assert(all.some((e) => e.to.startsWith("rails/tron/protocol/")), "the signer imports the protocol");
  const wrong = all
    .filter((e) => e.to.startsWith(DEVNET) && !e.from.startsWith(DEVNET) && !MAY_IMPORT_DEVNET.has(e.from))
    .map((e) => `${e.from} -> ${e.to}`);
  assertEquals(wrong, []);
});

Deno.test("pages/ never imports api/", async () => {
  const wrong = (await edges()).filter((e) => place(e.from) === "pages" && place(e.to) === "api");
  assertEquals(wrong.map((e) => `${e.from} -> ${e.to}`), []);
});

Deno.test("no circle of imports: no two files depend on each other, directly or through others", async () => {
  const graph = new Map<string, string[]>();
  for (const e of await edges()) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  // Tarjan's strongly connected components: any component of two or more files is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  assertEquals(circles, []);
});

Deno.test("the rules see real imports: a known edge of each kind is found", async () => {
  const all = await edges();
  const has = (from: string, to: string) => all.some((e) => e.from === from && e.to === to);
  assert(has("api/app.ts", "api/router.ts"), "a value import");
  assert(has("rails/tron/signing.ts", "rails/tron/protocol/transaction.ts"), "the signer on the protocol");
  assert(all.some((e) => e.from === "domain/treasury/dev_funding.ts" && e.typeOnly), "a type import");
});
