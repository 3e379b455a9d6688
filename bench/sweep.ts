// `deno task bench sweep`: money out that needs sweeps, on the devnet with blocks produced on time (3 s,
// as `deno task start` runs it). N customers pay 20 USDT to N deposit addresses; once their credits are
// spendable the merchant asks payouts of 36 USDT at once, each needing about two sweeps of a hot wallet
// that starts with no USDT and 20,000 TRX (four staked loans, then TRX top-ups). The gateway's jobs run
// as the server runs them: the scanner every block, sweeps every block while one runs (urgent while a
// payout waits), the payout sender on acceptance, after each finished sweep and each minute. Prints
// payouts confirmed, reverts, sweeps by method, TRX burned and energy lent per sweep, and the time from
// acceptance to CONFIRMED (p50/p99) beside the chain's own floor for any payout: one block to land, then
// 20 confirmations (what waiting for sweeps adds is the ratio's excess over 1).
import { scanChain } from "../domain/payins/chain_scanner.ts";
import { sendOutbound } from "../domain/money_out/send.ts";
import { hotWallet } from "../domain/treasury/hot_wallet.ts";
import { runSweeps } from "../domain/treasury/sweep.ts";
import { addWhitelistEntries } from "../domain/whitelist/mod.ts";
import { handleOutboundSweep } from "../jobs/money_out.ts";
import { toBase58Address } from "../rails/tron/address.ts";
import { type BenchGateway, startBenchGateway } from "./gateway.ts";
import { type BenchOptions, benchTargets, fmt, formatTable, median, percentile } from "./lib.ts";

const TRX = 1_000_000n;
/** Blocks any payout waits at the least: one to land, then its 20 confirmations. */
const FLOOR_BLOCKS = 1 + 20;

function randomAddress(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return toBase58Address("41" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""));
}

async function call(gw: BenchGateway, method: string, path: string, body?: unknown, extra = {}) {
  const res = await gw.app.request(path, {
    method,
    headers: { "x-api-key": gw.merchant.liveSecret, "content-type": "application/json", ...extra },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** The server's jobs, one tick a block: scanner, sweeps, and the sender when a sweep lands or a minute passes. */
function runJobs(gw: BenchGateway, blockMs: number) {
  let stopped = false;
  let lastCron = Date.now();
  const cronMs = Math.min(60_000, blockMs * 20);
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      try {
        await scanChain(gw.deps);
        const waiting = await gw.deps.db.query(
          `SELECT 1 FROM outbound_transfers WHERE waiting_reason IS NOT NULL`,
        );
        const { outcomes } = await runSweeps(gw.deps, { urgent: waiting.length > 0 });
        if (outcomes.includes("done") || Date.now() - lastCron >= cronMs) {
          lastCron = Date.now();
          await handleOutboundSweep(gw.deps);
        }
      } catch (err) {
        console.error("job tick failed:", String(err));
      }
      await new Promise((r) => setTimeout(r, Math.max(0, blockMs - (Date.now() - started))));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out: ${what}`);
}

type SweepFigures = { method: string; status: string; trx_spent_sun: string; delegated_sun: string };

async function runOnce(gw: BenchGateway, n: number, blockMs: number) {
  const { deps } = gw;
  const hot = hotWallet(deps.config, false);
  gw.devnet.fund(hot.address, { trx: 20_000n * TRX });
  const stopJobs = runJobs(gw, blockMs);
  try {
    // N customers pay 20 USDT (21.5 with the network fee) to N addresses.
    for (let i = 0; i < n; i++) {
      const payin = await call(gw, "POST", "/v1/payments", { amount: "20" });
      gw.devnet.transferUsdt(payin.json.data.address, 21_500_000n);
    }
    const payouts = Math.floor(n / 2);
    const destinations = Array.from({ length: payouts }, randomAddress);
    await addWhitelistEntries(deps, {
      merchantId: gw.merchant.merchantId,
      isSandbox: false,
      addresses: destinations.map((address) => ({ address })),
      usageContexts: ["PAYOUT"],
      via: "API_KEY",
    });
    const total = String(37 * payouts);
    await until("credits spendable", async () => {
      const e = await call(gw, "POST", "/v1/payout/estimate", {
        amount: total,
        destinationAddress: destinations[0],
      });
      return e.json.data?.sufficient === true;
    }, blockMs * 200);
    // The payouts, accepted at once: each needs about two sweeps.
    const accepted = await Promise.all(
      destinations.map((destinationAddress) =>
        call(gw, "POST", "/v1/payout", { amount: "36", destinationAddress }, {
          "idempotency-key": crypto.randomUUID(),
        })
      ),
    );
    const ids = accepted.map((a) => {
      if (a.status !== 201) throw new Error(`payout refused: ${JSON.stringify(a.json)}`);
      return a.json.data.transactionId as string;
    });
    await Promise.all(ids.map((id) => sendOutbound(deps, id))); // the outbound.send message
    await until("payouts final", async () => {
      const rows = await deps.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbound_transfers WHERE id = ANY($1::text[])
            AND status IN ('CONFIRMED', 'FAILED')`,
        [ids],
      );
      return rows[0].n === ids.length;
    }, blockMs * 600);
    const rows = await deps.db.query<{ status: string; failure_reason: string | null; secs: number }>(
      `SELECT status, failure_reason, extract(epoch FROM confirmed_at - created_at)::float8 AS secs
         FROM outbound_transfers WHERE id = ANY($1::text[])`,
      [ids],
    );
    const sweeps = await deps.db.query<SweepFigures>(
      `SELECT method, status, trx_spent_sun::text, delegated_sun::text FROM sweeps ORDER BY created_at`,
    );
    const totals = await deps.tronResources.getAccountResources(hot.address);
    return { rows, sweeps, totals };
  } finally {
    await stopJobs();
  }
}

export async function runSweepBench(options: BenchOptions): Promise<void> {
  const blockMs = options.smoke ? 150 : 3000;
  const n = options.smoke ? 4 : 12;
  console.log(
    `sweep bench: ${n} pay-ins of 20 USDT, then ${Math.floor(n / 2)} payouts of 36 USDT at once; ` +
      `hot wallet 0 USDT, 20,000 TRX; devnet blocks every ${blockMs} ms${options.smoke ? " (smoke)" : ""}`,
  );
  for (const open of await benchTargets(options)) {
    const target = await open();
    const gw = await startBenchGateway(target.db, { blockMs });
    try {
      const { rows, sweeps, totals } = await runOnce(gw, n, blockMs);
      const confirmed = rows.filter((r) => r.status === "CONFIRMED");
      const reverts = rows.filter((r) => (r.failure_reason ?? "").startsWith("CHAIN_")).length;
      const secs = confirmed.map((r) => r.secs);
      const floor = (FLOOR_BLOCKS * blockMs) / 1000;
      const energyPerTrx = totals.totalEnergyLimit / totals.totalEnergyWeight;
      const lent = sweeps.filter((s) => s.method === "DELEGATE").map((s) =>
        Number(BigInt(s.delegated_sun) / TRX) * energyPerTrx
      );
      const burned = sweeps.map((s) => Number(s.trx_spent_sun) / 1e6);
      const byMethod = (m: string) => sweeps.filter((s) => s.method === m).length;
      console.log(`\n${target.label}`);
      console.log(formatTable(["figure", "value"], [
        ["payouts confirmed", `${confirmed.length} / ${rows.length}`],
        ["reverted on chain", String(reverts)],
        [
          "sweeps (lent energy / TRX top-up / failed)",
          `${byMethod("DELEGATE")} / ${byMethod("TOPUP")} / ${
            sweeps.filter((s) => s.status === "FAILED").length
          }`,
        ],
        ["TRX burned per sweep, median", fmt(burned.length ? median(burned) : 0, 2)],
        ["energy lent per lending sweep, median", fmt(lent.length ? median(lent) : 0)],
        ["accepted -> CONFIRMED p50 (s)", secs.length ? fmt(percentile(secs, 50), 1) : "-"],
        ["accepted -> CONFIRMED p99 (s)", secs.length ? fmt(percentile(secs, 99), 1) : "-"],
        ["p50 x the chain's floor (21 blocks)", secs.length ? fmt(percentile(secs, 50) / floor, 2) : "-"],
      ]));
      const ok = confirmed.length === rows.length && reverts === 0 &&
        (secs.length > 0 && percentile(secs, 99) < (300 * blockMs) / 3000);
      console.log(
        `target (every payout confirmed, 0 reverts, p99 under 5 min at 3 s blocks): ${ok ? "met" : "MISSED"}`,
      );
      // A smoke run proves the money is right, never a timing (its blocks are not 3 s).
      if (options.smoke && (confirmed.length !== rows.length || reverts > 0)) {
        throw new Error("sweep bench smoke: a payout did not confirm, or one reverted");
      }
    } finally {
      await gw.close();
      await target.cleanup();
    }
  }
}
