// What the scanner's observations do to pay-ins: a transfer seen (CONFIRMING), late funds (a deposit
// judged against what the pay-in still asked for), a reorg (the transfer is gone again), and expiry with
// nothing received.
import * as chain from "../../db/chain.ts";
import { findStandingByHex } from "../../db/direct_deposits.ts";
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import { findMerchant } from "../../db/merchants.ts";
import { listExpiredAwaiting, lockPayin, type PayinRow } from "../../db/payins.ts";
import type { UsdtTransfer } from "../../rails/tron/transfers.ts";
import type { Deps } from "../deps.ts";
import { emitEvent } from "../webhooks/events.ts";
import { effectiveFees } from "../fees.ts";
import { postJournal } from "../ledger.ts";
import { Decimal, formatAmount } from "../money.ts";
import { DUST_REASON, splitUsdtReceipt } from "./settle.ts";
import { transitionPayin, transitionPayins } from "./transition.ts";

type ChainDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log">;

const OPEN = ["AWAITING_PAYMENT", "PENDING", "CONFIRMING"];

/** A followed block and the USDT transfers in it, as one of several recorded in one transaction. */
export type ObservedBlock = { number: number; hash: string; time: Date; transfers: UsdtTransfer[] };

/** One block's transfers to watched addresses (see recordObservedBlocks). */
export async function recordObservedTransfers(
  deps: ChainDeps,
  block: { number: number; hash: string; time: Date },
  transfers: UsdtTransfer[],
): Promise<number> {
  return await recordObservedBlocks(deps, [{ ...block, transfers }]);
}

/**
 * Records consecutive blocks' transfers to watched addresses (inside the scanner's transaction, oldest
 * block first). A transfer counts toward its pay-in while the pay-in is open and its block is not past the
 * expiry; afterwards, within the watch window, it is late funds: a deposit credited on its own. The work is
 * a fixed handful of statements however many blocks and transfers there are, in four round trips: lock the
 * pay-ins (with the standing addresses), insert the transfers (each once ever) with the amounts received
 * recomputed after them, move the newly funded pay-ins to CONFIRMING (the others only get their amounts),
 * their events. Each block is judged as it would be alone, after the ones before it.
 */
export async function recordObservedBlocks(deps: ChainDeps, blocks: ObservedBlock[]): Promise<number> {
  const all = blocks.flatMap((b) => b.transfers);
  const addresses = [...new Set(all.map((t) => t.toHex))];
  // The pay-ins' locks and the standing addresses, sent together.
  const [locked, direct] = await chain.settleAll(
    [chain.lockWatchedPayins(deps.db, addresses), directTransfers(deps, blocks)] as const,
  );
  const watched = new Map(locked.map((w) => [w.watched_hex, w]));
  type Row = chain.NewTransfer & { payinId: string; payin: chain.WatchedPayin; funds: boolean };
  const rows: Row[] = [];
  // Pay-ins moved to CONFIRMING by an earlier block of this batch: a later block sees them so.
  const confirmingSince = new Set<string>();
  for (const block of blocks) {
    const fundedHere: string[] = [];
    for (const t of block.transfers) {
      const payin = watched.get(t.toHex);
      if (!payin || block.time > payin.watched_until) continue;
      // As the pay-in was when the block began: a pay-in paid twice in one block counts both transfers.
      const status = confirmingSince.has(payin.id) ? "CONFIRMING" : payin.status;
      const counts = status === "CONFIRMING" ||
        (OPEN.includes(status) && block.time.getTime() <= payin.expires_at.getTime());
      // A transfer below the network fee is dust: it does not start confirmation on its own.
      const funds = counts && status !== "CONFIRMING" && !new Decimal(t.amount).lessThan(payin.network_fee);
      if (funds) fundedHere.push(payin.id);
      rows.push({
        txId: t.txId,
        logIndex: t.logIndex,
        from: t.from,
        to: t.to,
        amount: t.amount,
        merchantId: payin.merchant_id,
        kind: counts ? "PAYIN" : "DEPOSIT",
        payinId: payin.id,
        isSandbox: payin.is_sandbox,
        block,
        payin,
        funds,
      });
    }
    for (const id of fundedHere) confirmingSince.add(id);
  }
  const now = deps.clock.now();
  // The totals are read by the statement sent right after the insert (so they include its rows), for
  // every pay-in a transfer may count toward; only those with a transfer new here are used.
  const [inserted, maybeTotals] = await chain.settleAll(
    [
      chain.insertTransfers(deps.db, [...rows.map(({ payin: _, funds: __, ...r }) => r), ...direct], now),
      chain.receivedTotals(deps.db, [
        ...new Set(rows.filter((r) => r.kind === "PAYIN").map((r) => r.payinId)),
      ]),
    ] as const,
  );
  const fresh = rows.filter((r) => inserted.has(`${r.txId}:${r.logIndex}`));
  const counting = fresh.filter((r) => r.kind === "PAYIN");
  const countingIds = new Set(counting.map((r) => r.payinId));
  const totals = new Map([...maybeTotals].filter(([id]) => countingIds.has(id)));
  const funded = new Map<string, chain.WatchedPayin>();
  for (const r of counting) if (r.funds) funded.set(r.payinId, r.payin);
  // The newly funded move to CONFIRMING with their amounts in one write; the others only get amounts.
  // Two statements over disjoint pay-ins, sent together.
  await chain.settleAll(
    [
      chain.setReceived(deps.db, [...totals.values()].filter((t) => !funded.has(t.payin_id)), now),
      transitionPayins(
        deps,
        [...funded.values()].map((p) => {
          const t = totals.get(p.id)!;
          return { id: p.id, status: p.status, received: { amount: t.received, txHash: t.first_tx } };
        }),
        "CONFIRMING",
      ),
    ] as const,
  );
  return fresh.length + direct.filter((d) => inserted.has(`${d.txId}:${d.logIndex}`)).length;
}

/** Transfers to merchants' standing addresses: direct deposits, credited on their own at 20 blocks. */
async function directTransfers(deps: ChainDeps, blocks: ObservedBlock[]): Promise<chain.NewTransfer[]> {
  const all = blocks.flatMap((b) => b.transfers);
  const standing = new Map(
    (await findStandingByHex(deps.db, [...new Set(all.map((t) => t.toHex))])).map((a) => [a.address_hex, a]),
  );
  return blocks.flatMap((block) =>
    block.transfers.flatMap((t) => {
      const a = standing.get(t.toHex);
      if (!a) return [];
      return [{
        txId: t.txId,
        logIndex: t.logIndex,
        from: t.from,
        to: t.to,
        amount: t.amount,
        merchantId: a.merchant_id,
        kind: "DIRECT" as const,
        payinId: null,
        isSandbox: a.is_sandbox,
        block,
      }];
    })
  );
}

/** Credits one late transfer as a wallet deposit (`chain:<txid>:<log>`), net of the same fees as a pay-in. */
export async function creditDeposit(deps: ChainDeps, txId: string, logIndex: number): Promise<boolean> {
  return await deps.db.tx(async (tx) => {
    const t = await chain.lockTransfer(tx, txId, logIndex);
    if (!t || t.status !== "SEEN" || (t.kind !== "DEPOSIT" && t.kind !== "DIRECT")) return false;
    // Locked: late transfers to one pay-in are judged one after the other against what is still due.
    const payin = t.payin_id ? await lockPayin(tx, t.payin_id) : undefined;
    const merchant = await findMerchant(tx, t.merchant_id);
    const networkFee = new Decimal(
      payin?.network_fee ?? effectiveFees(merchant?.fee_schedule).usdtNetworkFee,
    );
    const dust = new Decimal(t.amount).lessThan(networkFee);
    // A direct top-up pays only the network fee (it covers the sweep); late funds pay a pay-in's fees.
    const servicePercent = t.kind === "DIRECT"
      ? "0"
      : effectiveFees(merchant?.fee_schedule).usdtServicePercent;
    const split = dust
      ? { received: new Decimal(t.amount), net: new Decimal(0), serviceFee: new Decimal(0) }
      : splitUsdtReceipt(t.amount, networkFee, servicePercent);
    const judged = dust ? undefined : payin ? await judgeLateFunds(tx, payin, t.amount) : CONFIRMED;
    const world = await findSystemAccount(tx, "WORLD", t.is_sandbox, "TRC20");
    const fees = await findSystemAccount(tx, "FEES", t.is_sandbox, "TRC20");
    const wallet = (await findWallet(tx, t.merchant_id, t.is_sandbox, "USDT_TRC20", "TRC20"))!;
    const now = deps.clock.now();
    const postings = [
      { accountId: world.id, amount: split.received.negated() },
      { accountId: wallet.id, amount: split.net },
      { accountId: fees.id, amount: split.received.minus(split.net) },
    ].filter((p) => !p.amount.isZero());
    const result = await postJournal(tx, {
      reference: `chain:${t.tx_id}:${t.log_index}`,
      kind: "DEPOSIT",
      merchantId: t.merchant_id,
      isSandbox: t.is_sandbox,
      postings,
      metadata: { payinId: t.payin_id, txId: t.tx_id, logIndex: t.log_index, kind: t.kind },
    }, async (jtx) => {
      await chain.markCredited(jtx, [t], now);
      const usdt = (v: Decimal.Value) => formatAmount(v, "USDT_TRC20");
      const data = {
        transactionId: `${t.tx_id}:${t.log_index}`,
        payinId: t.payin_id,
        address: t.to_address,
        amount: usdt(t.amount),
        fee: usdt(split.received.minus(split.net)),
        netAmount: usdt(split.net),
        currency: "USDT_TRC20",
        chain: "TRON",
        txHash: t.tx_id,
        status: judged?.status ?? "FAILED",
        ...(judged?.fields ?? {}),
        ...(dust ? { reason: DUST_REASON, failedAt: now.toISOString() } : { confirmedAt: now.toISOString() }),
      };
      await emitEvent({ ...deps, db: jtx }, {
        merchantId: t.merchant_id,
        isSandbox: t.is_sandbox,
        type: judged?.event ?? "deposit.failed",
        data,
      });
    });
    return result.booked;
  });
}

type LateJudgement = {
  event: "deposit.confirmed" | "deposit.overpaid" | "deposit.underpaid";
  status: "CONFIRMED" | "OVERPAID" | "UNDERPAID";
  fields?: Record<string, string>;
};
/** A direct deposit has no expected amount: it is simply confirmed. */
const CONFIRMED: LateJudgement = { event: "deposit.confirmed", status: "CONFIRMED" };
/** Pay-in statuses whose receipt was credited to the pay-in itself. */
const SETTLED_WITH_FUNDS = new Set(["CONFIRMED", "OVERPAID", "UNDERPAID"]);

/**
 * Late funds against what the pay-in still asked for when they arrived: its expected amount less what
 * counted toward it (a settled receipt) and less the late funds credited before. Exactly that is
 * deposit.confirmed; below, deposit.underpaid with `shortfall`; above (a paid pay-in expects nothing
 * more), deposit.overpaid with `surplus`. Either way the transfer is credited.
 */
async function judgeLateFunds(db: ChainDeps["db"], payin: PayinRow, amount: string): Promise<LateJudgement> {
  const counted = SETTLED_WITH_FUNDS.has(payin.status) ? payin.amount_received : "0";
  const earlier = await chain.creditedLateTotal(db, payin.id);
  const due = Decimal.max(new Decimal(payin.amount_expected).minus(counted).minus(earlier), 0);
  const received = new Decimal(amount);
  const usdt = (v: Decimal) => formatAmount(v, "USDT_TRC20");
  const expectedAmount = usdt(due);
  if (received.equals(due)) return { ...CONFIRMED, fields: { expectedAmount } };
  return received.lessThan(due)
    ? {
      event: "deposit.underpaid",
      status: "UNDERPAID",
      fields: { expectedAmount, shortfall: usdt(due.minus(received)) },
    }
    : {
      event: "deposit.overpaid",
      status: "OVERPAID",
      fields: { expectedAmount, surplus: usdt(received.minus(due)) },
    };
}

/**
 * A reorg removed the blocks above `forkPoint`: their unsettled transfers are orphaned and each affected
 * pay-in is recomputed; one left with nothing goes back to AWAITING_PAYMENT, or EXPIRED if its time is up.
 */
export async function rewindTransfers(deps: ChainDeps, forkPoint: number): Promise<string[]> {
  const deep = await chain.creditedTransfersAbove(deps.db, forkPoint);
  for (const t of deep) {
    deps.log.error("reorg below a settled transfer: manual review needed", {
      txId: t.tx_id,
      payinId: t.payin_id,
    });
  }
  const orphaned = await chain.orphanTransfersAbove(deps.db, forkPoint);
  const payinIds = [
    ...new Set(orphaned.flatMap((t) => (t.kind === "PAYIN" && t.payin_id ? [t.payin_id] : []))),
  ];
  const now = deps.clock.now();
  for (const id of payinIds) {
    const payin = await lockPayin(deps.db, id);
    if (!payin || !OPEN.includes(payin.status)) continue;
    const left = await chain.payinTransfers(deps.db, id);
    const received = left.reduce((s, x) => s.plus(x.amount), new Decimal(0));
    await deps.db.query(
      "UPDATE payins SET amount_received = $2, tx_hash = $3, updated_at = $4 WHERE id = $1",
      [
        id,
        formatAmount(received, "USDT_TRC20"),
        left[0]?.tx_id ?? null,
        now,
      ],
    );
    const stillFunded = left.some((x) => !new Decimal(x.amount).lessThan(payin.network_fee));
    if (payin.status === "CONFIRMING" && !stillFunded) {
      const to = now > payin.expires_at && left.length === 0 ? "EXPIRED" : "AWAITING_PAYMENT";
      await transitionPayin(deps, payin, to);
    }
  }
  return payinIds;
}

/** Expires pay-ins whose time ran out with nothing received (dust waits for its settlement instead). */
export async function expireDuePayins(deps: ChainDeps, limit = 200): Promise<number> {
  let expired = 0;
  for (const { id } of await listExpiredAwaiting(deps.db, deps.clock.now(), limit)) {
    const done = await deps.db.tx(async (tx) => {
      const payin = await lockPayin(tx, id);
      if (!payin || payin.status !== "AWAITING_PAYMENT") return false;
      if ((await chain.payinTransfers(tx, id)).length > 0) return false;
      return (await transitionPayin({ ...deps, db: tx }, payin, "EXPIRED")) !== undefined;
    });
    if (done) expired++;
  }
  return expired;
}
