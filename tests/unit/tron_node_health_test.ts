// The node pool's continuous health: a node that lags is benched, a node on another fork is never asked,
// a node's request budget sends the overflow to another node, the solidity node answers confirmed reads,
// a cut-short answer or a hung node fails over, and /metrics and /health say what they see.
import { createNodePool } from "../../rails/tron/node_pool.ts";
import { renderMetrics, RequestMetrics } from "../../domain/ops/metrics.ts";
import { checkHealth } from "../../domain/ops/health.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

const hashOf = (n: number, fork = "") => n.toString(16).padStart(16, "0") + (fork || "a").repeat(48);
const block = (n: number, fork = "") =>
  JSON.stringify({ blockID: hashOf(n, fork), block_header: { raw_data: { number: n } } });

type Node = { head: number; fork?: string; answer?: (path: string) => Response | Promise<Response> | null };

/** Fake nodes by host: heads, an optional fork letter (another hash for every block), other answers. */
function fakeNodes(nodes: Record<string, Node>) {
  const seen: Array<[string, string]> = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    const node = nodes[url.host];
    seen.push([url.host, url.pathname]);
    const special = node.answer?.(url.pathname);
    if (special) return await special;
    if (url.pathname.endsWith("/getnowblock")) return new Response(block(node.head, node.fork));
    if (url.pathname.endsWith("/getblockbynum")) {
      const { num } = JSON.parse(String(init?.body));
      return new Response(num <= node.head ? block(num, node.fork) : "{}");
    }
    return new Response('{"ok":true}');
  };
  return { fetch, seen };
}

const read = (pool: ReturnType<typeof createNodePool>, path = "/wallet/getaccount") =>
  pool.fetch(`${pool.apiUrl}${path}`, { method: "POST", body: "{}" });

Deno.test("a node 60 blocks behind the best is benched; reads go to the others; it comes back once caught up", async () => {
  let t = 1_000_000;
  const nodes = { "a.node": { head: 1000 }, "b.node": { head: 1000 }, "c.node": { head: 940 } };
  const { fetch, seen } = fakeNodes(nodes);
  const pool = createNodePool(
    [{ url: "http://c.node" }, { url: "http://a.node" }, { url: "http://b.node" }],
    { fetch, now: () => t, maxLagBlocks: 10 },
  );
  await read(pool);
  const c = pool.health()[0];
  assertEquals([c.head, c.lagBlocks, c.lagging, c.benched], [940, 60, true, true]);
  const asked = seen.length;
  for (let i = 0; i < 5; i++) await read(pool);
  assert(seen.slice(asked).every(([host]) => host !== "c.node"), "the lagging node answers no read");
  nodes["c.node"].head = 1001;
  t += 3_001; // health is older than the probe interval: the next request probes again
  await read(pool);
  await pool.close();
  assertEquals([pool.health()[0].lagging, pool.health()[0].benched], [false, false]);
});

Deno.test("a node with another hash for a block two others agree on is on a fork: never asked, even when the others fail", async () => {
  let aDown = false;
  const { fetch, seen } = fakeNodes({
    "a.node": {
      head: 500,
      answer: (p) => aDown && !p.endsWith("block") ? new Response("x", { status: 503 }) : null,
    },
    "b.node": { head: 501 },
    "f.node": { head: 502, fork: "f" },
  });
  const pool = createNodePool(
    [{ url: "http://f.node" }, { url: "http://a.node" }, { url: "http://b.node" }],
    { fetch },
  );
  await read(pool);
  const [f, a, b] = pool.health();
  assertEquals([f.forked, f.benched, a.forked, b.forked], [true, true, false, false]);
  assertEquals(a.lagBlocks, 1, "the best head is the best trusted node's (501), not the forked node's");
  const asked = seen.length;
  aDown = true;
  for (let i = 0; i < 4; i++) await read(pool);
  assert(seen.slice(asked).every(([host]) => host !== "f.node"), "a forked node's answers are not used");
});

Deno.test("two nodes that disagree give no verdict: neither is taken for forked", async () => {
  const { fetch } = fakeNodes({ "a.node": { head: 10 }, "b.node": { head: 10, fork: "b" } });
  const warnings: string[] = [];
  const pool = createNodePool([{ url: "http://a.node" }, { url: "http://b.node" }], {
    fetch,
    onWarning: (m) => warnings.push(m),
  });
  await read(pool);
  assertEquals(pool.health().map((n) => n.forked), [false, false]);
  assert(warnings.some((w) => w.includes("disagree")), "the disagreement is reported");
});

Deno.test("a node whose budget is spent is passed over for one with tokens; budget left is reported", async () => {
  const t = 5_000_000; // the clock stands still: no token comes back
  const { fetch, seen } = fakeNodes({ "a.node": { head: 1 }, "b.node": { head: 1 } });
  const pool = createNodePool([{ url: "http://a.node", rps: 1 }, { url: "http://b.node" }], {
    fetch,
    now: () => t,
    burst: 3,
    probe: false,
  });
  for (let i = 0; i < 6; i++) await read(pool);
  assertEquals(seen.map(([h]) => h), ["a.node", "a.node", "a.node", "b.node", "b.node", "b.node"]);
  assertEquals(pool.health().map((n) => n.budgetLeft), [0, 0]);
});

Deno.test("the solidity node answers confirmed reads; full nodes the rest; truncated JSON and a hung node fail over", async () => {
  const { fetch, seen } = fakeNodes({
    "a.node": { head: 1, answer: (p) => p.endsWith("getaccount") ? new Response('{"balance":') : null },
    "h.node": {
      head: 1,
      answer: (p) => p.endsWith("gettransactioninfobyid") ? new Promise<Response>(() => {}) : null,
    },
    "b.node": { head: 1 },
    "s.node": { head: 1 },
  });
  const pool = createNodePool([{ url: "http://a.node" }, { url: "http://b.node" }], {
    fetch,
    probe: false,
    solidity: { url: "http://s.node" },
  });
  await read(pool, "/walletsolidity/getnowblock");
  assertEquals(seen.at(-1), ["s.node", "/walletsolidity/getnowblock"]);
  const res = await read(pool, "/wallet/getaccount");
  assertEquals(await res.json(), { ok: true }, "the cut-short answer was retried on b");
  assertEquals(seen.slice(-2).map(([h]) => h), ["a.node", "b.node"]);
  assertEquals(pool.health()[0].failures, 1);

  const hung = createNodePool([{ url: "http://h.node" }, { url: "http://b.node" }], {
    fetch: (input, init) =>
      new Promise<Response>((resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        fetch(input, init).then(resolve, reject);
      }),
    probe: false,
    nodeTimeoutMs: 100,
  });
  assertEquals(
    (await read(hung, "/wallet/gettransactioninfobyid")).status,
    200,
    "b answered after h timed out",
  );
  assertEquals(hung.health()[0].failures, 1);
});

Deno.test("/metrics lists each node; /health says degraded (still 200) when no node is usable", async () => {
  const gw = await startTestGateway();
  try {
    const { fetch } = fakeNodes({
      "a.node": { head: 7, answer: () => new Response("no", { status: 429 }) },
      "b.node": { head: 7, answer: () => new Response("down", { status: 502 }) },
    });
    const pool = createNodePool([{ url: "http://a.node" }, { url: "http://b.node" }], { fetch });
    gw.deps.tronNodes = pool;
    await read(pool);
    const text = await renderMetrics(gw.deps, new RequestMetrics());
    assert(text.includes('gateway_tron_node_throttled_total{node="http://a.node",role="full"} '), text);
    assert(/gateway_tron_node_benched\{node="http:\/\/b.node",role="full"\} 1/.test(text));
    assert(/gateway_tron_node_budget_left\{node="http:\/\/a.node",role="full"\} \d+/.test(text));
    const health = await checkHealth(gw.deps);
    assertEquals([health.status, health.tron, health.database], ["degraded", "down", "ok"]);
    const res = await gw.app.request("/health");
    assertEquals(res.status, 200, "the API still answers while the chain side waits");
    assertEquals((await res.json()).tron, "down");
  } finally {
    await gw.close();
  }
});
