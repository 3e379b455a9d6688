// `deno task bench payout`: how fast accepted payouts reach the node, and what each costs in node
// requests. The gateway's sender (domain/money_out/send.ts: hot wallet balance check, reference block,
// local signature, the signed bytes stored before broadcast, broadcast, state move and event) is measured
// beside a bare loop doing only what any sender must (reference block, local signature, broadcast) to
// the same devnet, in the same run. Rounds alternate; the first round (fresh database, cold caches) is
// printed beside the median of the others.
import { findSystemAccount, findWallet } from "../db/ledger.ts";
import { postJournal } from "../domain/ledger.ts";
import type { Caller } from "../domain/auth.ts";
import { acceptOutbound, preparePayout } from "../domain/money_out/request.ts";
import { sendOutbound } from "../domain/money_out/send.ts";
import { hotWallet } from "../domain/treasury/hot_wallet.ts";
import { addWhitelistEntry } from "../domain/whitelist/mod.ts";
import { signTrc20Transfer } from "../rails/tron/signing.ts";
import { toBase58Address } from "../rails/tron/address.ts";
import { startBenchGateway } from "./gateway.ts";
import { type BenchOptions, benchTargets, fmt, formatTable, median, perSecond, runPool } from "./lib.ts";

const CONCURRENCY = 10;

function randomAddress(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return toBase58Address("41" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""));
}

export async function runPayoutBench(options: BenchOptions): Promise<void> {
  const perRound = options.smoke ? 20 : 200;
  const rounds = options.smoke ? 2 : 5;
  const rows: string[][] = [];
  for (const open of await benchTargets(options)) {
    const target = await open();
    const gw = await startBenchGateway(target.db);
    try {
      const { deps } = gw;
      const hot = hotWallet(deps.config, false);
      gw.devnet.fund(hot.address, { trx: 1_000_000_000_000n, usdt: 1_000_000_000_000n });
      gw.devnet.mine(1);
      const caller = {
        merchantId: gw.merchant.merchantId,
        isSandbox: false,
        kybStatus: "APPROVED",
        feeSchedule: {},
      } as unknown as Caller;
      const world = await findSystemAccount(deps.db, "WORLD", false, "TRC20");
      const wallet = (await findWallet(deps.db, caller.merchantId, false, "USDT_TRC20", "TRC20"))!;
      await postJournal(deps.db, {
        reference: "bench:credit",
        kind: "BENCH_CREDIT",
        merchantId: caller.merchantId,
        isSandbox: false,
        postings: [{ accountId: world.id, amount: "-10000000" }, {
          accountId: wallet.id,
          amount: "10000000",
        }],
      });
      const dest = randomAddress();
      await addWhitelistEntry(deps, { ...caller, address: dest, usageContexts: ["PAYOUT"], via: "API_KEY" });

      const gatewayRound = async () => {
        const ids: string[] = [];
        for (let i = 0; i < perRound; i++) {
          const prepared = await preparePayout(deps, caller, { amount: "5", destinationAddress: dest });
          ids.push((await acceptOutbound(deps, caller, prepared)).id);
        }
        const before = gw.nodeRequests();
        const ms = await runPool(ids.length, CONCURRENCY, async (i) => {
          const outcome = await sendOutbound(deps, ids[i]);
          if (outcome !== "sent") throw new Error(`payout ${ids[i]}: ${outcome}`);
        });
        gw.devnet.mine(1);
        return { perSecond: perSecond(ids.length, ms), requests: (gw.nodeRequests() - before) / ids.length };
      };
      const bareRound = async () => {
        const before = gw.nodeRequests();
        const ms = await runPool(perRound, CONCURRENCY, async () => {
          const signed = signTrc20Transfer(
            hot.privateKeyHex,
            {
              contract: deps.config.tron.usdtContract,
              to: dest,
              units: 5_000_000n,
              feeLimitSun: 50_000_000n,
            },
            await deps.tronResources.refBlock(),
            { memo: crypto.randomUUID() },
          );
          const answer = await deps.tronResources.broadcast(signed);
          if (!answer.accepted) throw new Error(`bare broadcast refused: ${answer.code}`);
        });
        gw.devnet.mine(1);
        return { perSecond: perSecond(perRound, ms), requests: (gw.nodeRequests() - before) / perRound };
      };

      const gateway: Array<{ perSecond: number; requests: number }> = [];
      const bare: Array<{ perSecond: number; requests: number }> = [];
      for (let r = 0; r < rounds; r++) {
        gateway.push(await gatewayRound());
        bare.push(await bareRound());
      }
      const warm = (xs: typeof gateway) => median(xs.slice(1).map((x) => x.perSecond));
      rows.push([
        target.label,
        fmt(gateway[0].perSecond),
        fmt(warm(gateway)),
        fmt(warm(bare)),
        fmt(warm(gateway) / warm(bare), 2),
        fmt(median(gateway.map((x) => x.requests)), 2),
        fmt(median(bare.map((x) => x.requests)), 2),
      ]);
    } finally {
      await gw.close();
      await target.cleanup();
    }
  }
  console.log(
    `\npayouts to broadcast, ${perRound} per round, ${CONCURRENCY} at a time, ${rounds} rounds` +
      `${options.smoke ? " (smoke: figures mean nothing)" : ""}\n`,
  );
  console.log(formatTable([
    "database",
    "gateway/s cold",
    "gateway/s warm",
    "bare/s warm",
    "x bare",
    "node req/payout",
    "bare req/payout",
  ], rows));
}
