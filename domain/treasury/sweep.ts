// Sweeping: credited, solidified USDT moves from deposit addresses into the hot wallet. An address holds
// no TRX, and a TRC20 transfer burns energy, so the hot wallet lends it energy for the transfer and takes
// it back after (stake more if the stake it may lend now is short, activate the address if it never was,
// delegate, transfer, undelegate); when it cannot stake enough, it sends the address TRX for the fee
// instead (sweep_plan.ts decides). Each step's transaction is signed once and stored before broadcast,
// re-sent while valid, re-signed once it expired off chain or the node refused it, and the next step
// starts only once it is in a block. A loan found short when it is due is re-planned, never retried as is.
import { lastBlock } from "../../db/chain.ts";
import { findSystemAccount } from "../../db/ledger.ts";
import * as store from "../../db/sweeps.ts";
import type { SweepRow } from "../../db/sweeps.ts";
import { deriveTronAccount } from "../../rails/tron/hd.ts";
import { sunToDelegateFor } from "../../rails/tron/resources.ts";
import {
  signDelegateResource,
  type SignedTronTransaction,
  signFreezeBalanceV2,
  signTrc20Transfer,
  signTrxTransfer,
  signUndelegateResource,
} from "../../rails/tron/signing.ts";
import type { Deps } from "../deps.ts";
import { newId } from "../ids.ts";
import { postJournal } from "../ledger.ts";
import { Decimal } from "../money.ts";
import { SOLIDIFIED_DEPTH } from "../money_out/request.ts";
import { hotWallet } from "./hot_wallet.ts";
import {
  HOT_WALLET_TRX_RESERVE_SUN,
  type HotWalletBudget,
  MIN_STAKE_SUN,
  planSweep,
  replanAtDelegate,
  subtractRunning,
  SWEEP_ENERGY,
  type SweepStep,
  TOPUP_SUN,
} from "./sweep_plan.ts";

/** fee_limit of a sweep's transfer: it caps all its energy, delegated or burned, so it must cover 65,000. */
export const SWEEP_FEE_LIMIT_SUN = 20_000_000n;
/** What activates an address (the hot wallet also pays the network's account creation fee). */
export const ACTIVATION_SUN = 1n;

type SweepDeps = Pick<Deps, "db" | "clock" | "config" | "log" | "tron" | "tronResources" | "queue">;

/** What the hot wallet can give sweeps now, less what running sweeps will still take. */
async function hotWalletBudget(deps: SweepDeps): Promise<HotWalletBudget> {
  const hot = hotWallet(deps.config, false);
  const [res, lendable, running] = await Promise.all([
    deps.tronResources.getAccountResources(hot.address),
    deps.tronResources.canDelegateMaxSun(hot.address, "ENERGY"),
    store.runningSweeps(deps.db, 500),
  ]);
  const budget = {
    lendableSun: lendable,
    spendableSun: res.balanceSun - HOT_WALLET_TRX_RESERVE_SUN,
    loanSun: sunToDelegateFor(SWEEP_ENERGY, res),
  };
  subtractRunning(budget, running);
  return budget;
}

/**
 * Opens a sweep for each address whose unswept USDT is worth it (at least `config.sweepMinUsdt`), or for
 * any amount when `urgent` (a payout waits for the hot wallet). Returns how many it opened.
 */
export async function planSweeps(deps: SweepDeps, options: { urgent?: boolean; limit?: number } = {}) {
  const followed = await lastBlock(deps.db);
  if (!followed) return 0;
  const candidates = await store.sweepCandidates(deps.db, {
    solidBlock: Number(followed.number) - SOLIDIFIED_DEPTH,
    minUsdt: options.urgent ? "0.000001" : deps.config.sweepMinUsdt,
    limit: options.limit ?? 20,
  });
  if (candidates.length === 0) return 0;
  const budget = await hotWalletBudget(deps);
  let opened = 0;
  for (const c of candidates) {
    const units = await deps.tron.getUsdtBalance(deps.config.tron.usdtContract, c.address);
    if (units <= 0n) continue;
    const activated = (await deps.tron.getAccount(c.address)) !== null;
    const plan = planSweep(budget, activated);
    if (!plan) {
      deps.log.warn("hot wallet lacks TRX to sweep", {
        address: hotWallet(deps.config, false).address,
        spendableSun: budget.spendableSun.toString(),
        lendableSun: budget.lendableSun.toString(),
      });
      break;
    }
    const created = await store.insertSweep(deps.db, {
      id: newId("swp", deps.clock.now().getTime()),
      address: c.address,
      accountIndex: c.account_index,
      derivationIndex: c.derivation_index,
      units: units.toString(),
      method: plan.method,
      steps: plan.steps,
      stakeSun: plan.stakeSun,
      now: deps.clock.now(),
    });
    if (created) opened++;
  }
  return opened;
}

export type AdvanceOutcome = "waiting" | "advanced" | "done" | "failed";

/** Moves one sweep on as far as the chain allows now; safe to repeat and to run from several processes. */
export async function advanceSweep(deps: SweepDeps, sweep: SweepRow): Promise<AdvanceOutcome> {
  let current: SweepRow | undefined = sweep;
  let moved = false;
  while (current && current.status === "RUNNING") {
    const step = current.steps[current.step] as SweepStep;
    if (current.step_tx_id) {
      const info = await deps.tron.getTransactionInfoById(current.step_tx_id);
      if (!info) {
        if (deps.clock.now() < new Date(current.step_expiration!)) {
          // A re-send is harmless; a refusal means the node does not hold it and never will, so the
          // step is signed again (and a loan re-planned) rather than re-sent until it expires.
          const resent = await deps.tronResources.broadcast(JSON.parse(current.step_signed!));
          if (!resent.accepted) await dropRefused(deps, current, resent);
          return moved ? "advanced" : "waiting";
        }
        await store.dropStepTx(deps.db, {
          id: current.id,
          step: current.step,
          txId: current.step_tx_id,
          now: deps.clock.now(),
        });
        current = await store.findSweep(deps.db, current.id);
        continue;
      }
      const fee = BigInt(info.feeSun ?? 0);
      const failed = step === "TRANSFER" ? info.receiptResult !== "SUCCESS" : info.result === "FAILED";
      if (failed) {
        await store.failSweep(deps.db, {
          id: current.id,
          reason: `${step}_${info.receiptResult ?? "FAILED"}`,
          feeSun: fee,
          now: deps.clock.now(),
        });
        deps.log.error("sweep failed on chain", { sweepId: current.id, address: current.address, step });
        return "failed";
      }
      const last = current.step === current.steps.length - 1;
      const done = await store.completeStep(deps.db, {
        id: current.id,
        step: current.step,
        txId: current.step_tx_id,
        feeSun: fee,
        last,
        now: deps.clock.now(),
      });
      if (!done) return moved ? "advanced" : "waiting"; // another process completed it
      moved = true;
      if (last) {
        await bookSweepCosts(deps, done);
        deps.log.info("sweep done", {
          sweepId: done.id,
          address: done.address,
          units: done.units,
          trxSpentSun: done.trx_spent_sun,
        });
        return "done";
      }
      current = done;
      continue;
    }
    const signing = await signStep(deps, current, step);
    if (signing === "replanned") {
      current = await store.findSweep(deps.db, current.id);
      continue;
    }
    if (signing === "blocked") return moved ? "advanced" : "waiting";
    const { signed, delegatedSun } = signing;
    const stored = await store.storeStepTx(deps.db, {
      delegatedSun,
      id: current.id,
      step: current.step,
      txId: signed.txID,
      signed: JSON.stringify(signed),
      expiration: new Date(Number(signed.raw_data.expiration)),
      now: deps.clock.now(),
    });
    if (stored) {
      const sent = await deps.tronResources.broadcast(signed);
      if (!sent.accepted) await dropRefused(deps, { ...current, step_tx_id: signed.txID }, sent);
    }
    return "advanced";
  }
  return moved ? "advanced" : "waiting";
}

/** The node refused a step's transaction outright: forget it so the next round signs (or re-plans) anew. */
async function dropRefused(
  deps: SweepDeps,
  sweep: SweepRow,
  answer: { code?: string; message?: string },
): Promise<void> {
  deps.log.warn("node refused a sweep step; signing it again", {
    sweepId: sweep.id,
    step: sweep.steps[sweep.step],
    code: answer.code,
    message: answer.message,
  });
  await store.dropStepTx(deps.db, {
    id: sweep.id,
    step: sweep.step,
    txId: sweep.step_tx_id!,
    now: deps.clock.now(),
  });
}

type Signing = { signed: SignedTronTransaction; delegatedSun?: bigint } | "replanned" | "blocked";

async function signStep(deps: SweepDeps, sweep: SweepRow, step: SweepStep): Promise<Signing> {
  if (step !== "DELEGATE") return { signed: await signOtherStep(deps, sweep, step) };
  const hot = hotWallet(deps.config, false);
  const [res, lendable] = await Promise.all([
    deps.tronResources.getAccountResources(hot.address),
    deps.tronResources.canDelegateMaxSun(hot.address, "ENERGY"),
  ]);
  const amountSun = sunToDelegateFor(SWEEP_ENERGY, res);
  if (lendable < amountSun) {
    // Energy the hot wallet used since the plan (its payouts, loans taken back) is not lendable until it
    // regenerates: stake the difference, or send the address TRX for its fee instead.
    const plan = replanAtDelegate(
      sweep,
      amountSun - lendable,
      amountSun,
      res.balanceSun - HOT_WALLET_TRX_RESERVE_SUN,
    );
    if (!plan) {
      deps.log.warn("hot wallet lacks TRX to sweep", {
        sweepId: sweep.id,
        lendableSun: lendable.toString(),
        balanceSun: res.balanceSun.toString(),
      });
      return "blocked";
    }
    await store.replanSweep(deps.db, { id: sweep.id, step: sweep.step, ...plan, now: deps.clock.now() });
    deps.log.info("sweep re-planned: hot wallet stake short", {
      sweepId: sweep.id,
      method: plan.method,
      stakeSun: plan.stakeSun.toString(),
    });
    return "replanned";
  }
  const ref = await deps.tronResources.refBlock();
  const signed = signDelegateResource(hot.privateKeyHex, {
    receiver: sweep.address,
    amountSun,
    resource: "ENERGY",
  }, ref);
  return { signed, delegatedSun: amountSun };
}

async function signOtherStep(
  deps: SweepDeps,
  sweep: SweepRow,
  step: SweepStep,
): Promise<SignedTronTransaction> {
  const hot = hotWallet(deps.config, false);
  const ref = await deps.tronResources.refBlock();
  switch (step) {
    case "STAKE": {
      // What the plan counted on; at least 1 TRX, so the step lands and the sweep moves on.
      const planned = BigInt(sweep.stake_sun ?? "0");
      const amountSun = planned > MIN_STAKE_SUN ? planned : MIN_STAKE_SUN;
      return signFreezeBalanceV2(hot.privateKeyHex, { amountSun, resource: "ENERGY" }, ref);
    }
    case "ACTIVATE":
      return signTrxTransfer(hot.privateKeyHex, { to: sweep.address, amountSun: ACTIVATION_SUN }, ref);
    case "DELEGATE":
      throw new Error("DELEGATE is signed by signStep");
    case "TRANSFER": {
      const key = deriveTronAccount(deps.config.tron.mnemonic!, sweep.account_index, sweep.derivation_index);
      if (key.address !== sweep.address) {
        throw new Error(`sweep ${sweep.id}: derived key does not match its address`);
      }
      return signTrc20Transfer(key.privateKeyHex, {
        contract: deps.config.tron.usdtContract,
        to: hot.address,
        units: BigInt(sweep.units),
        feeLimitSun: SWEEP_FEE_LIMIT_SUN,
      }, ref);
    }
    case "UNDELEGATE":
      return signUndelegateResource(hot.privateKeyHex, {
        receiver: sweep.address,
        amountSun: BigInt(sweep.delegated_sun),
        resource: "ENERGY",
      }, ref);
    case "TOPUP":
      return signTrxTransfer(hot.privateKeyHex, { to: sweep.address, amountSun: TOPUP_SUN }, ref);
  }
}

/** The TRX the sweep's transactions burned is a platform cost, booked once per sweep. */
async function bookSweepCosts(deps: SweepDeps, sweep: SweepRow): Promise<void> {
  const spent = new Decimal(sweep.trx_spent_sun).dividedBy(1_000_000);
  if (spent.isZero()) return;
  const costs = await findSystemAccount(deps.db, "NETWORK_COSTS", false, "TRC20");
  const treasury = await findSystemAccount(deps.db, "TREASURY", false, "TRC20");
  await postJournal(deps.db, {
    reference: `sweep:${sweep.id}:costs`,
    kind: "NETWORK_COST",
    merchantId: null,
    isSandbox: false,
    postings: [{ accountId: costs.id, amount: spent }, { accountId: treasury.id, amount: spent.negated() }],
    metadata: { sweepId: sweep.id, address: sweep.address, txIds: sweep.tx_ids },
  });
}

/** Plans what is worth sweeping, then moves every running sweep on. */
export async function runSweeps(deps: SweepDeps, options: { urgent?: boolean } = {}) {
  const opened = await planSweeps(deps, options);
  const outcomes: AdvanceOutcome[] = [];
  for (const sweep of await store.runningSweeps(deps.db, 50)) {
    try {
      outcomes.push(await advanceSweep(deps, sweep));
    } catch (err) {
      deps.log.error("sweep step failed; will retry", { sweepId: sweep.id, error: String(err) });
    }
  }
  const running = (await store.runningSweeps(deps.db, 1)).length > 0;
  return { opened, outcomes, running };
}
