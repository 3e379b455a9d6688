// Settling a USDT pay-in once its transfers are deep enough, per the money policy of ARCHITECTURE.md:
// the customer sends amount + networkFee; the merchant is credited received - networkFee - serviceFee,
// serviceFee = rate x (received - networkFee) rounded up; judged against amountExpected to 6 decimals.
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import type { Db } from "../../db/mod.ts";
import { lockPayin, type PayinPatch, type PayinRow } from "../../db/payins.ts";
import { markCredited, payinTransfers } from "../../db/chain.ts";
import type { Deps } from "../deps.ts";
import { effectiveFees } from "../fees.ts";
import { type Posting, postJournal } from "../ledger.ts";
import { Decimal, formatAmount, roundFee } from "../money.ts";
import { findMerchant } from "../../db/merchants.ts";
import { holdIfMerchantInactive } from "./review_holds.ts";
import { transitionPayin } from "./transition.ts";
import { assertMove, type PayinStatus } from "./states.ts";

export const DUST_REASON = "BELOW_DUST_THRESHOLD";

type SettleDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log">;

export type UsdtSplit = { received: Decimal; networkFee: Decimal; serviceFee: Decimal; net: Decimal };

/** How a USDT receipt splits between the merchant and the platform. */
export function splitUsdtReceipt(
  received: Decimal.Value,
  networkFee: Decimal.Value,
  servicePercent: Decimal.Value,
): UsdtSplit {
  const r = new Decimal(received);
  const nf = new Decimal(networkFee);
  const base = Decimal.max(r.minus(nf), 0);
  const serviceFee = Decimal.min(roundFee(base.times(servicePercent).dividedBy(100), "USDT_TRC20"), base);
  return { received: r, networkFee: nf, serviceFee, net: base.minus(serviceFee) };
}

/** Outcome of a receipt judged against what the customer had to send. */
export function judgeReceipt(received: Decimal, expected: Decimal, networkFee: Decimal): PayinStatus {
  if (received.lessThan(networkFee)) return "FAILED";
  if (received.equals(expected)) return "CONFIRMED";
  return received.lessThan(expected) ? "UNDERPAID" : "OVERPAID";
}

/** Postings that move `received` from the chain into the merchant's wallet and the platform's fees. */
async function receiptPostings(db: Db, payin: PayinRow, split: UsdtSplit): Promise<Posting[]> {
  const world = await findSystemAccount(db, "WORLD", payin.is_sandbox, "TRC20");
  const fees = await findSystemAccount(db, "FEES", payin.is_sandbox, "TRC20");
  const wallet = await findWallet(db, payin.merchant_id, payin.is_sandbox, "USDT_TRC20", "TRC20");
  if (!wallet) throw new Error(`merchant ${payin.merchant_id} has no USDT wallet`);
  const platform = split.received.minus(split.net);
  return [
    { accountId: world.id, amount: split.received.negated() },
    { accountId: wallet.id, amount: split.net },
    { accountId: fees.id, amount: platform },
  ].filter((p) => !p.amount.isZero());
}

/**
 * Books a final receipt for a pay-in in one transaction: ledger journal `payin:<id>`, the state move,
 * and its event. A second call finds the journal booked and changes nothing.
 */
export type UsdtReceipt = {
  received: Decimal;
  txHash: string | null;
  transferKeys: Array<{ tx_id: string; log_index: number }>;
};

/**
 * `receiptOf` runs after the pay-in is locked, so no transfer can be recorded between reading what
 * arrived and settling on it (one would otherwise stay uncredited forever); undefined means "not yet".
 */
export async function settleUsdtReceipt(
  deps: SettleDeps,
  payinId: string,
  receiptOf: (tx: Db) => Promise<UsdtReceipt | undefined>,
): Promise<PayinRow | undefined> {
  return await deps.db.tx(async (tx) => {
    const payin = await lockPayin(tx, payinId);
    if (!payin || !["AWAITING_PAYMENT", "PENDING", "CONFIRMING"].includes(payin.status)) return undefined;
    const receipt = await receiptOf(tx);
    if (!receipt) return undefined;
    const merchant = await findMerchant(tx, payin.merchant_id);
    const fees = effectiveFees(merchant?.fee_schedule);
    const expected = new Decimal(payin.amount_expected);
    const networkFee = new Decimal(payin.network_fee);
    const to = judgeReceipt(receipt.received, expected, networkFee);
    assertMove(payin.status as PayinStatus, to);
    const split = to === "FAILED"
      ? { received: receipt.received, networkFee, serviceFee: new Decimal(0), net: new Decimal(0) }
      : splitUsdtReceipt(receipt.received, networkFee, fees.usdtServicePercent);
    const now = deps.clock.now();
    let settled: PayinRow | undefined;
    const journal = await postJournal(tx, {
      reference: `payin:${payin.id}`,
      kind: "PAYIN_SETTLEMENT",
      merchantId: payin.merchant_id,
      isSandbox: payin.is_sandbox,
      postings: await receiptPostings(tx, payin, split),
      metadata: { payinId: payin.id, outcome: to },
    }, async (jtx) => {
      const patch: PayinPatch = {
        amount_received: formatAmount(receipt.received, "USDT_TRC20"),
        service_fee: formatAmount(split.serviceFee, "USDT_TRC20"),
        net_amount: formatAmount(split.net, "USDT_TRC20"),
        tx_hash: receipt.txHash,
        confirmed_at: to === "FAILED" ? null : now,
        failure_reason: to === "FAILED" ? DUST_REASON : null,
      };
      settled = await transitionPayin({ ...deps, db: jtx }, payin, to, patch);
      if (!settled) throw new Error(`pay-in ${payin.id} moved while locked`);
      await markCredited(jtx, receipt.transferKeys, now);
      // Credited all the same; held for review if the merchant was suspended or closed meanwhile.
      if (to !== "FAILED") await holdIfMerchantInactive({ ...deps, db: jtx }, payin, merchant);
    });
    return journal.booked ? settled : undefined;
  });
}

/**
 * Settles a pay-in from its recorded transfers, once every transfer still open is in a block at or below
 * `maturedAtOrBelow` (the last block with enough confirmations).
 */
export async function settlePayinFromChain(
  deps: SettleDeps,
  payinId: string,
  maturedAtOrBelow: number,
): Promise<PayinRow | undefined> {
  return await settleUsdtReceipt(deps, payinId, async (tx) => {
    const transfers = await payinTransfers(tx, payinId);
    const open = transfers.filter((t) => t.status === "SEEN");
    if (open.length === 0 || open.some((t) => Number(t.block_number) > maturedAtOrBelow)) return undefined;
    const received = transfers.reduce((sum, t) => sum.plus(t.amount), new Decimal(0));
    return { received, txHash: transfers[0].tx_id, transferKeys: open };
  });
}
