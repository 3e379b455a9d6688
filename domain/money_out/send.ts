// Sending a payout or withdrawal to the chain exactly once. The transaction is signed once and stored
// (with its txID and expiration) before its first broadcast; every later attempt, after a crash or a
// reorg, re-sends the same bytes; a new one is signed only when the chain's head is past the old one's expiration
// and the node confirms it is not on chain, so two can never both land. A refusal for an unknown
// reference block (TAPOS_ERROR: signed against a node on a fork) is not held against the item: that
// transaction could still land if its fork wins, so it is left to expire and then replaced. Sandbox items never touch a
// chain: they move through the same states on simulated confirmations.
import * as outgoing from "../../db/chain_outgoing.ts";
import { PG_UNIQUE_VIOLATION, pgErrorCode } from "../../db/mod.ts";
import type { Db } from "../../db/mod.ts";
import {
  clearWaiting,
  findOutboundById,
  lockOutbound,
  markWaiting,
  type OutboundRow,
  setResignedHash,
} from "../../db/outbound.ts";
import { TronNodeError } from "../../rails/tron/client.ts";
import { type SignedTronTransaction, signTrc20Transfer } from "../../rails/tron/signing.ts";
import type { Deps } from "../deps.ts";
import { Decimal } from "../money.ts";
import { hotWallet } from "../treasury/hot_wallet.ts";
import { releaseOutbound, settleOutbound } from "./finish.ts";
import { READY_TO_SEND } from "./states.ts";
import { transitionOutbound } from "./transition.ts";

/** TRX (in sun) a payout's TRC20 transfer may burn at most when the hot wallet's energy runs short. */
export const PAYOUT_FEE_LIMIT_SUN = 50_000_000;
/**
 * After this many refused broadcasts of expired, absent transactions, the item fails and is refunded.
 * TAPOS_ERROR refusals are not counted: they say the node chose a bad reference block, not that the
 * transfer is wrong, and the replacement signs against a healthy node's head.
 */
export const MAX_REFUSED_BROADCASTS = 5;
/**
 * Replacements of transactions refused with TAPOS_ERROR an item gets at most. One node on a fork costs one
 * replacement (the pool stops trusting it); one refused again after this many means the pool keeps choosing
 * a bad reference block, so instead of replacing it forever the item fails (`BROADCAST_REJECTED`) and its
 * money is returned: every one of its transactions expired by the chain's head and is absent, the same
 * judgement that allows a replacement, so none can land after the money is back.
 */
export const MAX_TAPOS_REPLACEMENTS = 3;
/** Node answers that mean "already known": the transaction is in the pool or in a block. */
const ALREADY_KNOWN = new Set(["DUP_TRANSACTION_ERROR"]);

type SendDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log" | "tron" | "tronResources">;

export type SendOutcome =
  | "sent"
  | "already-sent"
  | "waiting-for-hot-wallet"
  | "refused"
  | "resigned"
  | "simulated"
  | "nothing-to-do"
  | "failed";

/** One idempotent step for one item; safe to call from several processes and after any crash. */
export async function sendOutbound(deps: SendDeps, outboundId: string): Promise<SendOutcome> {
  const row = await findOutboundById(deps.db, outboundId);
  if (!row || row.currency !== "USDT_TRC20") return "nothing-to-do"; // XOF leaves by domain/fiat_out
  if (row.status !== READY_TO_SEND[row.kind] && row.status !== "BROADCAST") return "nothing-to-do";
  if (row.is_sandbox) return await simulateSandboxSend(deps, row);
  let live = await outgoing.liveOutgoing(deps.db, row.id);
  if (!live) {
    // Its expired transaction was superseded while the hot wallet could not cover a new one: try again.
    if (row.status === "BROADCAST") {
      return (await resignBroadcast(deps, row)) ? "resigned" : "waiting-for-hot-wallet";
    }
    const signed = await signOnce(deps, row);
    if (signed !== "stored") return signed;
    live = await outgoing.liveOutgoing(deps.db, row.id);
    if (!live) return "nothing-to-do";
  }
  if (live.block_number !== null) return "already-sent"; // in a block: the scanner confirms it
  if (deps.clock.now() >= live.expiration && await expiredOnChain(deps, live)) {
    return await replaceIfAbsent(deps, row, live);
  }
  return await broadcastStored(deps, row, live);
}

/**
 * Expired by the chain's clock, not ours: a block can still take the transaction while the node's head is
 * not past its expiration. A gateway whose clock runs ahead of the chain would otherwise sign a second
 * transfer while the first one is still pending, and both would be paid.
 */
async function expiredOnChain(deps: SendDeps, live: outgoing.OutgoingRow): Promise<boolean> {
  const head = await deps.tron.getNowBlock();
  return head.timestamp > live.expiration.getTime();
}

/**
 * The item's TRC20 transfer from the hot wallet, signed here against the node's head block, with the
 * item's id as its memo: each payout is its own transaction, whatever others share its amount and time.
 */
async function signPayoutTransfer(
  deps: SendDeps,
  row: OutboundRow,
  units: bigint,
): Promise<SignedTronTransaction> {
  const hot = hotWallet(deps.config, row.is_sandbox);
  return signTrc20Transfer(
    hot.privateKeyHex,
    {
      contract: deps.config.tron.usdtContract,
      to: row.destination_address,
      units,
      feeLimitSun: BigInt(PAYOUT_FEE_LIMIT_SUN),
    },
    await deps.tronResources.refBlock(),
    { memo: row.id },
  );
}

/** The reason an item shows while the hot wallet cannot cover it (`waitingReason` in its record). */
export const WAITING_FOR_HOT_WALLET = "HOT_WALLET_FUNDS";

/**
 * Signs the item's transfer from the hot wallet and stores it; only one live transaction per item. The
 * hot wallet is reserved, not just read: under a lock on it, what it holds less what signed transactions
 * not yet in a block will take must cover this one, so no two items are ever signed against the same
 * coins. Otherwise the item waits (with its reason) for a sweep, which it pulls forward.
 */
async function signOnce(deps: SendDeps, row: OutboundRow): Promise<"stored" | SendOutcome> {
  const units = BigInt(new Decimal(row.net_amount).times(1_000_000).toFixed(0));
  try {
    return await deps.db.tx(async (tx) => {
      await outgoing.lockHotWallet(tx, row.is_sandbox);
      const locked = await lockOutbound(tx, row.id);
      if (!locked || locked.status !== READY_TO_SEND[row.kind]) return "nothing-to-do" as const;
      if (await outgoing.liveOutgoing(tx, row.id)) return "stored" as const; // another process won
      if (!(await hotWalletCovers(deps, tx, row, units))) {
        await markWaiting(tx, row.id, WAITING_FOR_HOT_WALLET, deps.clock.now());
        // Pull the next sweep forward: any credited amount is now worth sweeping.
        tx.afterCommit(() => deps.queue.enqueue({ type: "treasury.sweep", urgent: true }));
        return "waiting-for-hot-wallet" as const;
      }
      const signed = await signPayoutTransfer(deps, row, units);
      await outgoing.insertOutgoing(tx, {
        txId: signed.txID,
        outboundId: row.id,
        signedTx: JSON.stringify(signed),
        expiration: new Date(Number(signed.raw_data.expiration)),
        now: deps.clock.now(),
      });
      await clearWaiting(tx, row.id);
      return "stored" as const;
    });
  } catch (err) {
    if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) return "stored";
    throw err;
  }
}

/**
 * Whether the hot wallet holds `units` beyond what signed, unmined transactions will take. Read in this
 * order (commitments first, then the node) so a transaction landing in between is counted twice, never
 * not at all. Call under `lockHotWallet`.
 */
async function hotWalletCovers(deps: SendDeps, tx: Db, row: OutboundRow, units: bigint): Promise<boolean> {
  const committed = BigInt(
    new Decimal(await outgoing.unminedOutgoingUsdt(tx, row.is_sandbox)).times(1_000_000).toFixed(0),
  );
  const held = await deps.tron.getUsdtBalance(
    deps.config.tron.usdtContract,
    hotWallet(deps.config, row.is_sandbox).address,
  );
  if (held - committed >= units) return true;
  deps.log.warn("payout waits for the hot wallet", {
    id: row.id,
    needed: units.toString(),
    held: held.toString(),
    committed: committed.toString(),
  });
  return false;
}

/** Sends the stored bytes; "already known" counts as sent. The state moves only after the node took it. */
async function broadcastStored(
  deps: SendDeps,
  row: OutboundRow,
  live: outgoing.OutgoingRow,
): Promise<SendOutcome> {
  let accepted = false;
  let code: string | undefined;
  try {
    const answer = await deps.tron.broadcastTransaction(JSON.parse(live.signed_tx));
    accepted = answer.result || ALREADY_KNOWN.has(answer.code ?? "");
    code = answer.code;
  } catch (err) {
    if (!(err instanceof TronNodeError)) throw err;
    deps.log.warn("broadcast failed; will retry", { id: row.id, txId: live.tx_id, error: err.message });
    return "refused";
  }
  await outgoing.noteBroadcast(deps.db, live.tx_id, deps.clock.now(), accepted ? undefined : code);
  if (!accepted) {
    const why = code === outgoing.TAPOS_ERROR
      ? "node does not know the reference block (a fork); left to expire, then replaced"
      : "node refused a payout transaction; will retry";
    deps.log.warn(why, { id: row.id, txId: live.tx_id, code });
    return "refused";
  }
  if (row.status === "BROADCAST") return "already-sent";
  const moved = await deps.db.tx(async (tx) => {
    const locked = await lockOutbound(tx, row.id);
    if (!locked || locked.status !== READY_TO_SEND[row.kind]) return undefined;
    return await transitionOutbound({ ...deps, db: tx }, locked, "BROADCAST", {
      tx_hash: live.tx_id,
      broadcast_at: deps.clock.now(),
    });
  });
  return moved ? "sent" : "already-sent";
}

/**
 * The stored transaction expired. If the node has it in a block, the scanner will see it; otherwise it
 * can never land, so a new one is signed (or, after repeated refusals, the item fails and is refunded).
 */
async function replaceIfAbsent(
  deps: SendDeps,
  row: OutboundRow,
  live: outgoing.OutgoingRow,
): Promise<SendOutcome> {
  if (await deps.tron.getTransactionInfoById(live.tx_id)) return "already-sent";
  if (
    live.tapos_refusals > 0 && await outgoing.taposReplacements(deps.db, row.id) >= MAX_TAPOS_REPLACEMENTS
  ) {
    const failed = await releaseOutbound(deps, {
      id: row.id,
      to: "FAILED",
      patch: { failure_reason: "BROADCAST_REJECTED", failed_at: deps.clock.now() },
      expectFrom: [READY_TO_SEND[row.kind], "BROADCAST"],
    });
    if (!failed) return "nothing-to-do";
    await outgoing.supersede(deps.db, live.tx_id);
    deps.log.error("payout failed: its transactions kept being refused for an unknown reference block", {
      id: row.id,
      txId: live.tx_id,
      code: outgoing.TAPOS_ERROR,
      replacements: MAX_TAPOS_REPLACEMENTS,
    });
    return "failed";
  }
  if (live.broadcast_count - live.tapos_refusals >= MAX_REFUSED_BROADCASTS && row.status !== "BROADCAST") {
    const failed = await releaseOutbound(deps, {
      id: row.id,
      to: "FAILED",
      patch: { failure_reason: "BROADCAST_REJECTED", failed_at: deps.clock.now() },
      expectFrom: [READY_TO_SEND[row.kind]],
    });
    if (failed) await outgoing.supersede(deps.db, live.tx_id);
    return failed ? "failed" : "nothing-to-do";
  }
  await outgoing.supersede(deps.db, live.tx_id);
  deps.log.warn("payout transaction expired off chain; signing a new one", { id: row.id, txId: live.tx_id });
  // A fresh signature goes straight to broadcast: re-entering sendOutbound would judge its expiry again
  // against a clock that may run ahead of the node's, and loop.
  if (row.status === "BROADCAST") return (await resignBroadcast(deps, row)) ? "resigned" : "nothing-to-do";
  const signed = await signOnce(deps, row);
  if (signed !== "stored") return signed;
  const fresh = await outgoing.liveOutgoing(deps.db, row.id);
  if (!fresh) return "nothing-to-do";
  const outcome = await broadcastStored(deps, row, fresh);
  return outcome === "sent" ? "resigned" : outcome;
}

/**
 * A BROADCAST item whose transaction expired off chain gets a new one, reserved like a first signature:
 * the old one no longer counts against the hot wallet, so the new one must be covered again.
 */
async function resignBroadcast(deps: SendDeps, row: OutboundRow): Promise<boolean> {
  const units = BigInt(new Decimal(row.net_amount).times(1_000_000).toFixed(0));
  try {
    const stored = await deps.db.tx(async (tx) => {
      await outgoing.lockHotWallet(tx, row.is_sandbox);
      const locked = await lockOutbound(tx, row.id);
      if (!locked || locked.status !== "BROADCAST" || await outgoing.liveOutgoing(tx, row.id)) return false;
      if (!(await hotWalletCovers(deps, tx, row, units))) {
        await markWaiting(tx, row.id, WAITING_FOR_HOT_WALLET, deps.clock.now());
        tx.afterCommit(() => deps.queue.enqueue({ type: "treasury.sweep", urgent: true }));
        return false;
      }
      const signed = await signPayoutTransfer(deps, row, units);
      await outgoing.insertOutgoing(tx, {
        txId: signed.txID,
        outboundId: row.id,
        signedTx: JSON.stringify(signed),
        expiration: new Date(Number(signed.raw_data.expiration)),
        now: deps.clock.now(),
      });
      await setResignedHash(tx, row.id, signed.txID, deps.clock.now());
      return true;
    });
    if (!stored) return false;
  } catch (err) {
    if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) return false;
    throw err;
  }
  const live = await outgoing.liveOutgoing(deps.db, row.id);
  if (live) await broadcastStored(deps, { ...row, status: "BROADCAST" }, live);
  return true;
}

/** How long a sandbox item waits between its simulated broadcast and its simulated confirmation. */
export function sandboxConfirmDelayMs(config: Deps["config"]): number {
  return config.tron.payoutConfirmations * 3000;
}

/** Sandbox: BROADCAST at once with a simulated hash, CONFIRMED after simulated confirmations. */
async function simulateSandboxSend(deps: SendDeps, row: OutboundRow): Promise<SendOutcome> {
  if (row.status === "BROADCAST") {
    const due = new Date(row.broadcast_at!).getTime() + sandboxConfirmDelayMs(deps.config);
    if (deps.clock.now().getTime() < due) return "nothing-to-do";
    return (await settleOutbound(deps, { id: row.id, txHash: row.tx_hash! })) ? "simulated" : "nothing-to-do";
  }
  const txHash = Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
  const moved = await deps.db.tx(async (tx) => {
    const locked = await lockOutbound(tx, row.id);
    if (!locked || locked.status !== READY_TO_SEND[row.kind]) return undefined;
    const sent = await transitionOutbound({ ...deps, db: tx }, locked, "BROADCAST", {
      tx_hash: `sandbox_${txHash}`,
      broadcast_at: deps.clock.now(),
    });
    tx.afterCommit(() =>
      deps.queue.enqueue({ type: "outbound.send", outboundId: row.id }, {
        delayMs: sandboxConfirmDelayMs(deps.config),
      })
    );
    return sent;
  });
  return moved ? "simulated" : "nothing-to-do";
}
