// A node of the pool on another fork is not the chain: the scanner, meeting a block that does not follow
// the one it recorded, has the pool probe its nodes and reads the block again before it rewinds anything.
// A paid pay-in past its expiry is where a false rewind would hurt: it would expire, and its payment would
// come back later as a deposit.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { auditChainGaps } from "../../domain/payins/gap_audit.ts";
import { manualClock } from "../../domain/clock.ts";
import { createTronClient } from "../../rails/tron/client.ts";
import { createNodePool } from "../../rails/tron/node_pool.ts";
import { assert, assertEquals } from "../assert.ts";
import { faultyNode } from "../fault_node.ts";
import { startTestGateway } from "../helpers.ts";

async function forkSetup(hostNames: string[]) {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock, devnetNow: () => clock.now().getTime() });
  const upstream = (req: Request) => gw.devnet.app.fetch(req);
  const nodes = Object.fromEntries(
    hostNames.map((host) => [host, faultyNode(upstream, "http://devnet.internal/devnet")]),
  );
  const warnings: string[] = [];
  let othersSlow = true;
  const pool = createNodePool(hostNames.map((host) => ({ url: `http://${host}/devnet` })), {
    // Until the fork, the first node answers at once and the others 150 ms later: the first is the pool's
    // favourite (by its answer times) when it goes to another fork.
    fetch: async (input, init) => {
      const host = new URL(String(input)).host;
      if (othersSlow && host !== hostNames[0]) await new Promise((resolve) => setTimeout(resolve, 150));
      return await nodes[host].fetch(input, init);
    },
    probeMs: 600_000, // probes only when asked, or on the first request
    rps: 10_000,
    burst: 10_000,
    onWarning: (m) => warnings.push(m),
  });
  const node = { apiUrl: pool.apiUrl, fetch: pool.fetch };
  gw.deps.tron = createTronClient(node);
  gw.deps.tronNodes = pool;
  const m = await gw.createMerchant("Fork doubt SARL");
  gw.devnet.mine(3);
  await scanChain(gw.deps);
  const payin = (await gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body: { amount: "10" } }))
    .json.data;
  gw.devnet.transferUsdt(payin.address, 11_500_000n);
  gw.devnet.mine(1);
  await scanChain(gw.deps);
  const status = async () =>
    (await gw.request("GET", `/v1/payments/${payin.transactionId}`, { key: m.keys.liveSecret })).json.data;
  assertEquals((await status()).status, "CONFIRMING");
  // Past the pay-in's expiry: rewound now, it would expire.
  clock.advance(24 * 3600_000);
  const favourite = nodes[hostNames[0]];
  favourite.set("fork");
  othersSlow = false;
  gw.devnet.mine(1);
  return { gw, nodes, pool, warnings, favourite, status, payinId: payin.transactionId };
}

/** The chain moves past the confirmation depth: the pay-in is confirmed and credited once, no reorg followed. */
async function confirmedOnce({ gw, status, payinId }: Awaited<ReturnType<typeof forkSetup>>) {
  gw.devnet.mine(gw.deps.config.tron.payinConfirmations);
  for (let i = 0; i < 3; i++) assertEquals((await scanChain(gw.deps)).reorgs, 0);
  const rec = await status();
  assertEquals([rec.status, rec.amountReceived], ["CONFIRMED", "11.500000"]);
  const credits = await gw.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM journals WHERE reference = $1",
    [`payin:${payinId}`],
  );
  assertEquals(credits[0].n, 1);
}

Deno.test("three nodes, the favourite on another fork: the pool's probe leaves it out, nothing is rewound", async () => {
  const setup = await forkSetup(["node-a", "node-b", "node-c"]);
  const { gw, pool, warnings, favourite, status } = setup;
  try {
    const report = await scanChain(gw.deps);
    assert(favourite.counts.fork > 0, "the forked node served the scanner");
    assertEquals(report.reorgs, 0, "no reorganisation followed");
    assertEquals((await status()).status, "CONFIRMING", "the paid pay-in is still paid");
    assert(warnings.some((w) => w.includes("fork")), "the forked node was recognised");
    assert(pool.health().find((h) => h.url.includes("node-a"))!.forked);
    // The next passes read the healthy nodes and go on.
    await confirmedOnce(setup);
  } finally {
    await gw.close();
  }
});

Deno.test("two nodes that disagree: the scanner follows neither until they agree", async () => {
  const setup = await forkSetup(["node-a", "node-b"]);
  const { gw, nodes, warnings, favourite, status, payinId } = setup;
  try {
    let refused = "";
    await scanChain(gw.deps).catch((err) => (refused = String(err)));
    assert(favourite.counts.fork > 0, "the forked node served the scanner");
    assert(refused.includes("disagree"), `the pass fails on the disagreement: ${refused}`);
    assert(warnings.some((w) => w.includes("disagree")), "the disagreement was reported");
    assertEquals((await status()).status, "CONFIRMING", "the paid pay-in is still paid");
    const transfers = await gw.db.query<{ status: string }>(
      "SELECT status FROM chain_transfers WHERE payin_id = $1",
      [payinId],
    );
    assertEquals(transfers.length, 1, "its transfer is still recorded");
    // The node comes back to the chain: the scanner goes on from where it was.
    nodes["node-a"].set("healthy");
    await confirmedOnce(setup);
  } finally {
    await gw.close();
  }
});

Deno.test("the gap audit through a forked favourite: nothing rescanned, the next audit reads the healthy nodes", async () => {
  const { gw, favourite, warnings } = await forkSetup(["node-a", "node-b", "node-c"]);
  try {
    favourite.set("healthy");
    gw.devnet.mine(gw.deps.config.tron.payinConfirmations + 5);
    for (let i = 0; i < 3; i++) await scanChain(gw.deps);
    const recorded = async () =>
      (await gw.db.query<{ number: string; hash: string }>(
        "SELECT number::text, hash FROM chain_blocks ORDER BY number",
      )).map((b) => `${b.number}:${b.hash}`);
    const before = await recorded();
    favourite.set("fork");
    const first = await auditChainGaps(gw.deps);
    assert(favourite.counts.fork > 0, "the forked node served the audit");
    assertEquals([first?.holes, first?.mismatches], [0, 0], "a forked node's hashes are not mismatches");
    assert(warnings.some((w) => w.includes("fork")), "the forked node was recognised");
    assertEquals(await recorded(), before, "no recorded block was replaced");
    const second = await auditChainGaps(gw.deps);
    assertEquals([second?.holes, second?.mismatches], [0, 0]);
    assert(second!.through > first!.through, "the next audit goes on past where the first stopped");
    assertEquals(await recorded(), before);
  } finally {
    await gw.close();
  }
});
