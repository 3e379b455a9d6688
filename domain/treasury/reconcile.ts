// The treasury at a glance: the hot wallet as the chain sees it, what waits on deposit addresses, and a
// reconciliation of what merchants are owed (ledger) against what the gateway's addresses hold. A
// shortfall is an alarm: logged as an error and flagged in the answer.
import { unsweptOnDepositAddresses, usdtOwedToMerchants } from "../../db/treasury.ts";
import { fxExposure } from "../../db/conversions.ts";
import { listWaiting, type WaitingItem } from "../../db/outbound.ts";
import type { Deps } from "../deps.ts";
import { Decimal, formatAmount } from "../money.ts";
import { hotWallet } from "./hot_wallet.ts";

const usdt = (v: Decimal.Value) => formatAmount(v, "USDT_TRC20");
const trx = (sun: bigint) => new Decimal(sun.toString()).dividedBy(1_000_000).toFixed(6);

export async function treasuryReport(
  deps: Pick<Deps, "db" | "config" | "log" | "tron" | "tronResources" | "clock">,
) {
  const hot = hotWallet(deps.config, false);
  const contract = deps.config.tron.usdtContract;
  const [hotUnits, resources, owed, deposits, fx, waiting] = await Promise.all([
    deps.tron.getUsdtBalance(contract, hot.address),
    deps.tronResources.getAccountResources(hot.address),
    usdtOwedToMerchants(deps.db),
    unsweptOnDepositAddresses(deps.db),
    fxExposure(deps.db, false),
    listWaiting(deps.db, 100),
  ]);
  const hotUsdt = new Decimal(hotUnits.toString()).dividedBy(1_000_000);
  // What was credited on deposit addresses and not yet swept into the hot wallet is still there.
  const unswept = new Decimal(deposits.usdt);
  const owedTotal = new Decimal(owed.wallets).plus(owed.reserved);
  const held = hotUsdt.plus(unswept);
  const difference = held.minus(owedTotal);
  const shortfall = difference.isNegative();
  if (shortfall) {
    deps.log.error("treasury shortfall: the chain holds less USDT than merchants are owed", {
      owed: usdt(owedTotal),
      held: usdt(held),
      shortfall: usdt(difference.negated()),
    });
  }
  return {
    checkedAt: deps.clock.now().toISOString(),
    hotWallet: {
      address: hot.address,
      usdt: usdt(hotUsdt),
      trx: trx(resources.balanceSun),
      energy: {
        limit: resources.energyLimit,
        used: resources.energyUsed,
        stakedTrx: trx(resources.stakedForEnergySun),
        delegatedTrx: trx(resources.delegatedEnergySun),
      },
    },
    awaitingSweep: { addresses: deposits.addresses, usdt: usdt(unswept) },
    reconciliation: {
      owedToMerchants: usdt(owedTotal),
      merchantWallets: usdt(owed.wallets),
      reservedForPayouts: usdt(owed.reserved),
      heldOnChain: usdt(held),
      difference: usdt(difference),
      shortfall,
    },
    waitingToSend: waitingToSend(waiting, deps.clock.now(), deps.config.outboundWaitAlarmSeconds),
    conversions: conversionPositions(fx),
  };
}

/** Accepted items the hot wallet cannot send yet, oldest first, and whether the oldest is an alarm. */
export function waitingToSend(items: WaitingItem[], now: Date, alarmSeconds: number) {
  const seconds = (since: Date | null) =>
    since ? Math.max(0, Math.floor((now.getTime() - new Date(since).getTime()) / 1000)) : 0;
  const oldest = items.length ? seconds(items[0].waiting_since) : 0;
  return {
    count: items.length,
    oldestSeconds: oldest,
    alarm: oldest > alarmSeconds,
    items: items.map((i) => ({
      id: i.id,
      kind: i.kind,
      merchantId: i.merchant_id,
      status: i.status,
      amount: usdt(i.net_amount),
      reason: i.waiting_reason!,
      since: new Date(i.waiting_since!).toISOString(),
      waitingSeconds: seconds(i.waiting_since),
    })),
  };
}

/**
 * The platform's own position from live conversions, per currency: the sum of its FX accounts. Positive:
 * merchants gave the platform this much more than it gave back in that currency (it holds it); negative:
 * it credited merchants this much more than it took in (it must cover it, e.g. buy USDT).
 */
function conversionPositions(rows: Array<{ currency: string; balance: string }>) {
  const sum = (currency: string) =>
    rows.filter((r) => r.currency === currency).reduce((s, r) => s.plus(r.balance), new Decimal(0));
  return {
    usdtPosition: usdt(sum("USDT_TRC20")),
    xofPosition: formatAmount(sum("XOF"), "XOF"),
  };
}
