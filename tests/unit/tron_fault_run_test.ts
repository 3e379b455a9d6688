// The fault run: two, then three nodes in front of the devnet, taking turns at being the faulty one (429
// storms, 5xx, hung requests, truncated JSON, 50 blocks behind, another fork). Pay-ins are paid in blocks of
// 50 transfers while the scanner follows through the pool, and payouts are sent through it: every pay-in is
// confirmed and credited exactly once, no block is skipped, no reorganisation is followed, every payout
// lands exactly once (one signed against the forked node's block is refused with TAPOS_ERROR, left to
// expire and signed anew), none is paid twice. Then every node is down for two minutes of blocks (/health
// degraded, /metrics shows them benched) and the scanner catches up once they are back. N is
// FAULT_RUN_PAYMENTS (500 by default).
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { checkHealth } from "../../domain/ops/health.ts";
import { renderMetrics, RequestMetrics } from "../../domain/ops/metrics.ts";
import { auditChainGaps } from "../../domain/payins/gap_audit.ts";
import { manualClock } from "../../domain/clock.ts";
import { sendOutbound } from "../../domain/money_out/send.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import { createTronClient } from "../../rails/tron/client.ts";
import { createTronResources } from "../../rails/tron/resources.ts";
import { createNodePool } from "../../rails/tron/node_pool.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { creditUsdt, idem, randomTronAddress, whitelist } from "../money_out_helpers.ts";
import { type Fault, FAULTS, faultyNode } from "../fault_node.ts";

const N = Number(Deno.env.get("FAULT_RUN_PAYMENTS") ?? 500);
const PAYOUTS = 20;
const PER_BLOCK = 50;
const USDT = 1_000_000n;

Deno.test(`fault run: ${N} pay-ins and ${PAYOUTS} payouts through two nodes, one faulty at a time`, async () => {
  await faultRun(["node-a", "node-b"]);
});

Deno.test(`fault run: ${N} pay-ins and ${PAYOUTS} payouts through three nodes, each faulty in turn`, async () => {
  await faultRun(["node-a", "node-b", "node-c"]);
});

async function faultRun(hostNames: string[]) {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock, devnetNow: () => clock.now().getTime() });
  try {
    const upstream = (req: Request) => gw.devnet.app.fetch(req);
    const nodes = Object.fromEntries(
      hostNames.map((host) => [host, faultyNode(upstream, "http://devnet.internal/devnet")]),
    );
    const warnings: string[] = [];
    const pool = createNodePool(
      Object.keys(nodes).map((host) => ({ url: `http://${host}/devnet` })),
      {
        fetch: (input, init) => nodes[new URL(String(input)).host].fetch(input, init),
        nodeTimeoutMs: 300,
        probeMs: 500,
        rps: 2_000,
        burst: 2_000,
        onWarning: (m) => warnings.push(m),
      },
    );
    const node = { apiUrl: pool.apiUrl, fetch: pool.fetch };
    gw.deps.tron = createTronClient(node);
    gw.deps.tronResources = createTronResources(node);
    gw.deps.tronNodes = pool;

    // One faulty node at a time, taking turns (the pool's favourite too), each through every fault. With
    // three, the two others are healthy, so a fork has a majority against it; with two, the nodes disagree
    // with no majority, and the scanner's own checks (parent hashes, infos against the block) must hold.
    // A lag or a fork is seen by the pool's probe, which runs when health is older than probeMs. A phase
    // can be shorter than that on a fast machine and fall between two probes, so a lag or fork phase ends
    // with one: its work still meets the faulty node as the pool last judged it.
    let phase = 0;
    let current: Fault = "healthy";
    const hosts = Object.keys(nodes);
    const nextFault = async () => {
      if (current === "lag" || current === "fork") await pool.probe();
      const bad = hosts[phase % hosts.length];
      current = FAULTS[Math.floor(phase / hosts.length) % FAULTS.length];
      for (const host of hosts) nodes[host].set(host === bad ? current : "healthy");
      phase++;
    };
    let scanErrors = 0;
    let reorgs = 0;
    const follow = async (passes: number) => {
      for (let i = 0; i < passes; i++) {
        await nextFault();
        // What the scanner job does: a failed pass is retried on its next tick.
        await scanChain(gw.deps, { maxBlocks: 100 }).then((r) => (reorgs += r.reorgs), () => scanErrors++);
      }
    };

    const m = await gw.createMerchant("Fault Run SARL");
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { default: 100_000, "POST /v1/payments": 100_000, "POST /v1/payout": 1000 },
    });
    // A chain long enough for a node to lag 50 blocks behind.
    gw.devnet.mine(60);
    await follow(1);
    const payins: Array<{ transactionId: string; address: string }> = [];
    for (let i = 0; i < N; i++) {
      const res = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        body: { amount: "10" },
      });
      if (res.status !== 201) throw new Error(res.text);
      payins.push(res.json.data);
    }
    for (let i = 0; i < N; i += PER_BLOCK) {
      for (const p of payins.slice(i, i + PER_BLOCK)) gw.devnet.transferUsdt(p.address, 11_500_000n);
      gw.devnet.mine(1);
      clock.advance(3000);
      await follow(2);
    }

    // Payouts through the same pool, retried as the outbound sweep would until each is on its way.
    await creditUsdt(gw, m.merchantId, false, "1000");
    const hot = hotWallet(gw.deps.config, false);
    gw.devnet.fund(hot.address, { trx: 1_000n * USDT, usdt: 10_000n * USDT });
    gw.devnet.mine(1);
    const dest = randomTronAddress();
    await whitelist(gw, m.keys.liveSecret, dest, ["PAYOUT"]);
    const payouts: string[] = [];
    for (let i = 0; i < PAYOUTS; i++) {
      const res = await gw.request("POST", "/v1/payout", {
        key: m.keys.liveSecret,
        body: { amount: "5", destinationAddress: dest },
        headers: idem(),
      });
      if (res.status !== 201) throw new Error(res.text);
      payouts.push(res.json.data.transactionId);
    }
    for (let round = 0; round < 10; round++) {
      for (const id of payouts) {
        await nextFault();
        await sendOutbound(gw.deps, id).catch(() => {});
      }
    }

    // The chain moves on past every confirmation depth; faults continue, then all nodes heal.
    // The outbound sweep keeps calling sendOutbound meanwhile, as it does each minute.
    for (let i = 0; i < 40; i++) {
      gw.devnet.mine(1);
      clock.advance(3000);
      await follow(1);
      for (const id of payouts) await sendOutbound(gw.deps, id).catch(() => {});
    }
    // Every node down for two minutes (40 blocks): /health and /metrics say so, the scanner fails its passes
    // and waits. A
    // probe still under way from before would count its late answers as the nodes being back: it ends first.
    await pool.probe();
    for (const n of Object.values(nodes)) n.set("down");
    const errorsBefore = scanErrors;
    for (let i = 0; i < 40; i++) {
      gw.devnet.mine(1);
      clock.advance(3000);
      await scanChain(gw.deps).catch(() => scanErrors++);
    }
    assert(scanErrors > errorsBefore, "the scanner's passes failed while every node was down");
    const down = await checkHealth(gw.deps);
    assertEquals([down.status, down.tron], ["degraded", "down"]);
    const metrics = await renderMetrics(gw.deps, new RequestMetrics());
    for (const host of hosts) {
      assert(
        metrics.includes(`gateway_tron_node_benched{node="http://${host}/devnet",role="full"} 1`),
        `/metrics shows ${host} out of use:\n${
          metrics.split("\n").filter((l) => l.includes("benched")).join("\n")
        }`,
      );
    }
    // Back: the scanner catches up from where it stopped.
    for (const n of Object.values(nodes)) n.set("healthy");
    for (let i = 0; i < 10; i++) await scanChain(gw.deps);
    assertEquals((await checkHealth(gw.deps)).tron, "ok");
    assertEquals((await scanChain(gw.deps)).behind, 0, "caught up");
    // The outbound sweep's next runs: a payout whose transaction expired unsent is signed anew and sent.
    for (const id of payouts) await sendOutbound(gw.deps, id);
    gw.devnet.mine(gw.deps.config.tron.payoutConfirmations + 1);
    clock.advance((gw.deps.config.tron.payoutConfirmations + 1) * 3000);
    for (let i = 0; i < 5; i++) await scanChain(gw.deps);

    const statuses = await gw.db.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM payins WHERE merchant_id = $1 GROUP BY status",
      [m.merchantId],
    );
    assertEquals([...statuses], [{ status: "CONFIRMED", n: N }]);
    const credits = await gw.db.query<{ n: number; distinct: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT reference)::int AS distinct FROM journals WHERE reference = ANY($1)",
      [payins.map((p) => `payin:${p.transactionId}`)],
    );
    assertEquals({ ...credits[0] }, { n: N, distinct: N }, "each pay-in credited exactly once");
    const transfers = await gw.db.query<{ kind: string; n: number }>(
      "SELECT kind, count(*)::int AS n FROM chain_transfers WHERE merchant_id = $1 GROUP BY kind",
      [m.merchantId],
    );
    assertEquals([...transfers], [{ kind: "PAYIN", n: N }]);

    const blocks = await gw.db.query<{ lo: string; hi: string; n: number }>(
      "SELECT min(number) AS lo, max(number) AS hi, count(*)::int AS n FROM chain_blocks",
    );
    assertEquals(blocks[0].n, Number(blocks[0].hi) - Number(blocks[0].lo) + 1, "no block skipped");
    const audit = await auditChainGaps(gw.deps);
    assertEquals([audit?.holes ?? 0, audit?.mismatches ?? 0], [0, 0], "the audit finds nothing to mend");

    // Each payout landed exactly once; none failed, none was paid twice. A payout whose transaction was
    // signed against a block only the forked node had (its reference block) is refused by every real node
    // (TAPOS_ERROR); those refusals do not count towards failing it: it expires by the chain's head and is
    // signed anew against a healthy node's head (counted in replacedPayoutTransactions).
    const signed = await gw.db.query<{ outbound_id: string; live: number; replaced: number; mined: number }>(
      `SELECT outbound_id, count(*) FILTER (WHERE NOT superseded)::int AS live,
              count(*) FILTER (WHERE superseded)::int AS replaced,
              count(*) FILTER (WHERE block_number IS NOT NULL)::int AS mined
         FROM chain_outgoing GROUP BY outbound_id`,
    );
    assertEquals(signed.length, PAYOUTS);
    const outcomes: Record<string, number> = {};
    for (const id of payouts) {
      const rec = (await gw.request("GET", `/v1/payout/${id}`, { key: m.keys.liveSecret })).json.data;
      const row = signed.find((s) => s.outbound_id === id)!;
      outcomes[rec.status] = (outcomes[rec.status] ?? 0) + 1;
      assertEquals(
        [rec.status, row.live, row.mined],
        ["CONFIRMED", 1, 1],
        `${id}: one live transaction, in a block`,
      );
    }
    assertEquals(outcomes, { CONFIRMED: PAYOUTS }, "every payout confirmed");
    const landed = await gw.deps.tron.getUsdtBalance(gw.deps.config.tron.usdtContract, dest);
    assertEquals(landed, BigInt(PAYOUTS) * 5n * USDT, "each payout landed once");
    const replaced = signed.reduce((sum, s) => sum + s.replaced, 0);

    // The faults were met, and the pool saw them.
    for (const fault of FAULTS) {
      assert(hosts.reduce((sum, h) => sum + nodes[h].counts[fault], 0) > 0, `fault ${fault} served`);
    }
    // No reorganisation happened on the devnet: a forked node's blocks were doubted, never followed.
    assertEquals(reorgs, 0, "no reorganisation followed");
    const health = pool.health();
    assert(health.some((h) => h.throttled > 0), "429s were counted");
    assert(health.every((h) => h.failures > 0), "every node failed some requests and the pool went around");
    if (hosts.length >= 3) assert(warnings.some((w) => w.includes("fork")), "the forked node was recognised");
    else assert(warnings.some((w) => w.includes("disagree")), "the nodes' disagreement was reported");
    assert(warnings.some((w) => w.includes("lags")), "the lagging node was benched");
    console.log(
      JSON.stringify(
        {
          N,
          scanErrors,
          reorgs,
          phases: phase,
          payouts: outcomes,
          replacedPayoutTransactions: replaced,
          served: hosts.map((h) => nodes[h].counts),
          health,
        },
        null,
        1,
      ),
    );
  } finally {
    await gw.close();
  }
}
