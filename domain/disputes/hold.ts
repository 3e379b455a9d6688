// The dispute's money, always through the ledger helper, each journal with a reference of its own:
//   hold     wallet -> DISPUTES  `dispute:<id>:step:<n>`  as much of what is owed as the wallet holds
//   collect  wallet -> WORLD     `dispute:<id>:step:<n>`  what a lost dispute still owes, from later credits
//   release  DISPUTES -> wallet  `dispute:<id>:release`   the merchant won
//   debit    DISPUTES -> WORLD   `dispute:<id>:debit`     the cardholder won: the amount leaves to the provider
// A wallet never goes below zero (its CHECK), so what it cannot cover is the dispute's `shortfall`, taken
// by the next `takeOwed` (at once, and by the dispute-sweep job after every later credit).
import type { DisputeRow } from "../../db/disputes.ts";
import * as disputesDb from "../../db/disputes.ts";
import { findSystemAccount } from "../../db/ledger.ts";
import type { Db } from "../../db/mod.ts";
import { postJournal } from "../ledger.ts";
import { Decimal } from "../money.ts";

const canonical = (d: Decimal) => d.toFixed();

/**
 * Takes from the wallet as much of the dispute's shortfall as it holds: into DISPUTES while the dispute
 * is open, to WORLD once it was lost. Call inside a transaction holding the dispute's row lock; answers
 * the dispute as it is afterwards. Taking nothing changes nothing.
 */
export async function takeOwed(tx: Db, d: DisputeRow, now: Date): Promise<DisputeRow> {
  const owed = new Decimal(d.shortfall);
  if (owed.lte(0) || d.status === "RESOLVED") return d;
  const wallet = await disputesDb.lockWallet(tx, {
    merchantId: d.merchant_id,
    isSandbox: d.is_sandbox,
    currency: d.currency,
    rail: d.rail,
  });
  if (!wallet) throw new Error(`dispute ${d.id}: the merchant has no ${d.currency}/${d.rail} wallet`);
  const take = Decimal.min(owed, new Decimal(wallet.balance));
  if (take.lte(0)) return d;
  const lost = d.status === "REJECTED";
  const to = await findSystemAccount(tx, lost ? "WORLD" : "DISPUTES", d.is_sandbox, d.rail);
  const step = d.hold_steps + 1;
  await postJournal(tx, {
    reference: `dispute:${d.id}:step:${step}`,
    kind: lost ? "DISPUTE_COLLECT" : "DISPUTE_HOLD",
    merchantId: d.merchant_id,
    isSandbox: d.is_sandbox,
    postings: [{ accountId: wallet.id, amount: take.negated() }, { accountId: to.id, amount: take }],
    metadata: { disputeId: d.id, payinId: d.payin_id },
  });
  const moved = await disputesDb.moveDispute(tx, d.id, d.status, {
    held: lost ? d.held : canonical(new Decimal(d.held).plus(take)),
    shortfall: canonical(owed.minus(take)),
    hold_steps: step,
  }, now);
  if (!moved) throw new Error(`dispute ${d.id} moved while locked`);
  return moved;
}

/** The merchant won: what is held goes back to the wallet, and nothing more is owed. */
export async function releaseHeld(tx: Db, d: DisputeRow): Promise<{ held: string; shortfall: string }> {
  const held = new Decimal(d.held);
  if (held.gt(0)) {
    const wallet = await disputesDb.lockWallet(tx, {
      merchantId: d.merchant_id,
      isSandbox: d.is_sandbox,
      currency: d.currency,
      rail: d.rail,
    });
    const from = await findSystemAccount(tx, "DISPUTES", d.is_sandbox, d.rail);
    await postJournal(tx, {
      reference: `dispute:${d.id}:release`,
      kind: "DISPUTE_RELEASE",
      merchantId: d.merchant_id,
      isSandbox: d.is_sandbox,
      postings: [{ accountId: from.id, amount: held.negated() }, { accountId: wallet!.id, amount: held }],
      metadata: { disputeId: d.id, payinId: d.payin_id },
    });
  }
  return { held: "0", shortfall: "0" };
}

/** The cardholder won: what is held leaves to the provider; a shortfall stays owed (takeOwed collects it). */
export async function debitHeld(tx: Db, d: DisputeRow): Promise<{ held: string }> {
  const held = new Decimal(d.held);
  if (held.gt(0)) {
    const from = await findSystemAccount(tx, "DISPUTES", d.is_sandbox, d.rail);
    const world = await findSystemAccount(tx, "WORLD", d.is_sandbox, d.rail);
    await postJournal(tx, {
      reference: `dispute:${d.id}:debit`,
      kind: "DISPUTE_DEBIT",
      merchantId: d.merchant_id,
      isSandbox: d.is_sandbox,
      postings: [{ accountId: from.id, amount: held.negated() }, { accountId: world.id, amount: held }],
      metadata: { disputeId: d.id, payinId: d.payin_id },
    });
  }
  return { held: "0" };
}
