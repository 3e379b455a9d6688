// The TRON node pool: failover on 429/403/5xx and connection failures, benches that grow, broadcasts sent
// once; and the scanner over two nodes, one answering 429 to every other request, crediting every pay-in.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { createTronClient } from "../../rails/tron/client.ts";
import { createNodePool } from "../../rails/tron/node_pool.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

type Script = (url: string, headers: Headers) => Response | Promise<Response>;

function fakeNodes(scripts: Record<string, Script>) {
  const seen: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = String(input);
    const host = new URL(url).host;
    seen.push(host);
    return Promise.resolve(scripts[host](url, new Headers(init?.headers)));
  };
  return { fetch, seen };
}

const ok = () => new Response('{"blockID":"x"}', { status: 200 });

Deno.test("a throttled node is benched and the read answered by the next; the bench doubles", async () => {
  let t = 1_000_000;
  let aFails = true;
  const { fetch, seen } = fakeNodes({
    "a.node": () => aFails ? new Response("slow down", { status: 429 }) : ok(),
    "b.node": ok,
  });
  const pool = createNodePool([{ url: "http://a.node", apiKey: "ka" }, { url: "http://b.node" }], {
    fetch,
    now: () => t,
    probe: false,
  });
  const call = () => pool.fetch(`${pool.apiUrl}/wallet/getnowblock`, { method: "POST", body: "{}" });
  assertEquals((await call()).status, 200);
  assertEquals(seen, ["a.node", "b.node"]);
  const [a] = pool.health();
  assertEquals([a.throttled, a.streak], [1, 1]);
  assertEquals(a.benchedUntil, new Date(t + 1000).toISOString());
  // While benched, requests go straight to b.
  await call();
  assertEquals(seen.slice(2), ["b.node"]);
  // Back after the bench, throttled again: benched twice as long.
  t += 1001;
  await call();
  assertEquals(pool.health()[0].benchedUntil, new Date(t + 2000).toISOString());
  // Recovered: its streak and bench clear.
  t += 2001;
  aFails = false;
  await call();
  assertEquals([pool.health()[0].streak, pool.health()[0].benchedUntil], [0, null]);
});

Deno.test("each node gets its own key; a broadcast is sent to one node only; all down is the last answer", async () => {
  const keys: Array<string | null> = [];
  const { fetch, seen } = fakeNodes({
    "a.node": (_url, headers) => {
      keys.push(headers.get("TRON-PRO-API-KEY"));
      return new Response("boom", { status: 502 });
    },
    "b.node": (_url, headers) => {
      keys.push(headers.get("TRON-PRO-API-KEY"));
      return new Response("down", { status: 503 });
    },
  });
  const pool = createNodePool([{ url: "http://a.node", apiKey: "ka" }, {
    url: "http://b.node",
    apiKey: "kb",
  }], {
    fetch,
    probe: false,
  });
  const sent = await pool.fetch(`${pool.apiUrl}/wallet/broadcasttransaction`, { method: "POST", body: "{}" });
  assertEquals(sent.status, 502);
  assertEquals(seen, ["a.node"], "a broadcast is not repeated on another node");
  const read = await pool.fetch(`${pool.apiUrl}/wallet/getnowblock`, { method: "POST", body: "{}" });
  // b first (a is benched by the broadcast), then a: every node failed, the last answer is returned.
  assertEquals(read.status, 502, "every node failed: the last answer");
  assertEquals(keys, ["ka", "kb", "ka"]);
});

Deno.test("a connection failure fails over; an aborted request does not", async () => {
  const { fetch, seen } = fakeNodes({
    "a.node": () => Promise.reject(new TypeError("connection refused")),
    "b.node": ok,
  });
  const pool = createNodePool([{ url: "http://a.node" }, { url: "http://b.node" }], { fetch, probe: false });
  assertEquals((await pool.fetch(`${pool.apiUrl}/wallet/getnowblock`, { method: "POST" })).status, 200);
  assertEquals(pool.health()[0].failures, 1);
  const asked = seen.length;
  let threw = false;
  try {
    await pool.fetch(`${pool.apiUrl}/wallet/getnowblock`, { method: "POST", signal: AbortSignal.abort() });
  } catch {
    threw = true;
  }
  assert(threw, "a call whose time is spent fails");
  assertEquals(seen.length, asked, "and asks no node");
});

Deno.test("the scanner over two nodes, one answering 429 to every other request: every pay-in credited once", async () => {
  const gw = await startTestGateway();
  try {
    let calls = 0;
    const devnetNode: typeof fetch = (input, init) => {
      const url = String(input).replace(/^http:\/\/node-[ab]/, "http://devnet.internal");
      if (String(input).startsWith("http://node-a") && calls++ % 2 === 0) {
        return Promise.resolve(new Response('{"Error":"rate"}', { status: 429 }));
      }
      return Promise.resolve(gw.devnet.app.fetch(new Request(url, init)));
    };
    const pool = createNodePool(
      [{ url: "http://node-a/devnet" }, { url: "http://node-b/devnet" }],
      { fetch: devnetNode },
    );
    gw.deps.tron = createTronClient({ apiUrl: pool.apiUrl, fetch: pool.fetch });
    const m = await gw.createMerchant("Pool SARL");
    await scanChain(gw.deps);
    const payins = [];
    for (let i = 0; i < 10; i++) {
      const res = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        body: { amount: "10" },
      });
      payins.push(res.json.data);
      gw.devnet.transferUsdt(res.json.data.address, 11_500_000n);
      gw.devnet.mine(1);
    }
    gw.devnet.mine(6);
    for (let i = 0; i < 10; i++) await scanChain(gw.deps);
    const rows = await gw.db.query<{ status: string }>(
      "SELECT status FROM payins WHERE merchant_id = $1",
      [m.merchantId],
    );
    assertEquals(rows.map((r) => r.status), Array(10).fill("CONFIRMED"));
    const credits = await gw.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM journals WHERE reference = ANY($1)",
      [payins.map((p) => `payin:${p.transactionId}`)],
    );
    assertEquals(credits[0].n, 10, "each credited once");
    const [a] = pool.health();
    assert(a.throttled > 0, "node a was throttled and the pool went around it");
  } finally {
    await gw.close();
  }
});
