// A TRON node's request budget across hosts (issue 24): two gateways on one database and one node key
// lease the node's tokens from PostgreSQL, so the node sees at most its rate from both together; a slow
// database does not stall them: each falls back to its share of the rate, says so, and comes back.
import { leaseNodeTokens } from "../../db/node_budget.ts";
import { createTronClient } from "../../rails/tron/client.ts";
import { type BudgetLease, type BudgetStore } from "../../rails/tron/node_budget.ts";
import { createNodePool } from "../../rails/tron/node_pool.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { randomTronAddress } from "../money_out_helpers.ts";

const RPS = 10;

Deno.test("two gateways on one database and one node key stay within the node's rate together", async () => {
  const gw = await startTestGateway();
  try {
    gw.devnet.mine(30);
    // The node counts what reaches it, by key.
    const seen: Array<{ at: number; key: string | null }> = [];
    const nodeFetch: typeof fetch = (input, init) => {
      seen.push({ at: Date.now(), key: new Headers(init?.headers).get("TRON-PRO-API-KEY") });
      const url = String(input).replace("http://node.example", "http://devnet.internal");
      return Promise.resolve(gw.devnet.app.fetch(new Request(url, init)));
    };
    const warnings: string[] = [];
    const store: BudgetStore = (lease) => leaseNodeTokens(gw.db, lease);
    const hosts = ["host-a", "host-b"].map((holder) => {
      const pool = createNodePool([{ url: "http://node.example/devnet", apiKey: "shared-key", rps: RPS }], {
        fetch: nodeFetch,
        budgetStore: store,
        holder,
        // A loaded test machine must not turn a slow lease into the fallback: that is the next test.
        budgetTimeoutMs: 10_000,
        onWarning: (m) => warnings.push(m),
      });
      const client = createTronClient({ apiUrl: pool.apiUrl, fetch: pool.fetch });
      return { pool, deps: { ...gw.deps, tron: client, tronNodes: pool }, done: 0 };
    });

    // Each host: four workers reading as fast as the budget lets them (the scanner, balance reads).
    const started = Date.now();
    const runMs = 3_000;
    const contract = gw.deps.config.tron.usdtContract;
    await Promise.all(hosts.flatMap((host) =>
      Array.from({ length: 4 }, async (_, w) => {
        while (Date.now() - started < runMs) {
          if (w % 2 === 0) await host.deps.tron.getNowBlock();
          else await host.deps.tron.getUsdtBalance(contract, randomTronAddress());
          host.done++;
        }
      })
    ));
    const elapsed = (Date.now() - started) / 1000;
    const windows = Math.ceil(elapsed) + 1; // the run touches at most this many of the database's seconds
    assert(seen.length <= RPS * windows, `${seen.length} requests in ${elapsed} s: the rate is ${RPS}/s`);
    assert(seen.length > RPS, `${seen.length} requests: the run spanned more than one window`);
    assert(hosts.every((h) => h.done > 0), "both hosts were served");
    assert(seen.every((s) => s.key === "shared-key"));
    assertEquals(warnings.filter((w) => w.includes("budget")), [], "no fallback to the local share");

    // The budget's rows: one per window, both hosts named, the key never stored.
    const rows = await gw.db.query<{ node: string; holders: string[] }>(
      "SELECT node, holders FROM tron_node_budget",
    );
    assert(rows.length >= 2);
    assert(
      rows.every((r) => r.node.startsWith("http://node.example/devnet#") && !r.node.includes("shared-key")),
    );
    assert(rows.some((r) => [...r.holders].sort().join() === "host-a,host-b"));
    // /metrics still shows budget left: a whole number no larger than one window's tokens.
    for (const host of hosts) {
      const left = host.pool.health()[0].budgetLeft;
      assert(Number.isInteger(left) && left >= 0 && left <= RPS, `budget left ${left}`);
    }
    for (const host of hosts) await host.pool.close();
  } finally {
    await gw.close();
  }
});

Deno.test("a slow database does not stall the pool: it uses this host's share of the rate, says so, then leases again", async () => {
  let slow = false;
  let leases = 0;
  const pending: Array<Promise<unknown>> = [];
  // Two hosts were seen leasing; then the database takes 400 ms to answer.
  const store: BudgetStore = (lease) => {
    leases++;
    const answer: BudgetLease = { granted: lease.want, taken: lease.want, hosts: 2, msLeft: 1000 };
    if (!slow) return Promise.resolve(answer);
    const later = new Promise<BudgetLease>((resolve) => setTimeout(() => resolve(answer), 400));
    pending.push(later);
    return later;
  };
  const warnings: Array<[string, Record<string, unknown>]> = [];
  let served = 0;
  const pool = createNodePool([{ url: "http://node.example", rps: 20 }], {
    fetch: () => Promise.resolve(new Response(JSON.stringify({ n: ++served }))),
    probe: false,
    burst: 30,
    budgetStore: store,
    budgetTimeoutMs: 50,
    budgetFallbackMs: 2_000,
    onWarning: (m, f) => warnings.push([m, f]),
  });
  const read = () => pool.fetch(`${pool.apiUrl}/wallet/getaccount`, { method: "POST", body: "{}" });
  assertEquals((await read()).status, 200);
  assertEquals(leases, 1);

  slow = true;
  // Spend the leased block (4 of the 20 a second), then the next lease is slow.
  for (let i = 0; i < 3; i++) await read();
  const before = Date.now();
  assertEquals((await read()).status, 200, "answered from the local share");
  assert(Date.now() - before < 5_000, "the request did not wait for the database");
  const fell = warnings.filter(([m]) => m.includes("this host's share"));
  assertEquals(fell.length, 1, JSON.stringify(warnings));
  assertEquals([fell[0][1].hosts, fell[0][1].rps], [2, 10], "the rate divided by the hosts last seen");
  assert(pool.health()[0].budgetLeft <= 15, "the local share holds half the burst");
  // More reads in the fallback: no further lease is asked, no second warning.
  const asked = leases;
  for (let i = 0; i < 5; i++) await read();
  assertEquals(leases, asked);
  assertEquals(warnings.filter(([m]) => m.includes("this host's share")).length, 1);
  await Promise.all(pending);

  // The database answers again: once the fallback's time is up, the next request leases again.
  slow = false;
  await new Promise((r) => setTimeout(r, 2_100));
  assertEquals((await read()).status, 200);
  assertEquals(leases, asked + 1, "leased from the database again");
  assertEquals(warnings.filter(([m]) => m.includes("this host's share")).length, 1);
  await pool.close();
});
