// What the scanner tells money out: which of our transactions a block holds (one statement per block,
// however many are in flight), that a reorg took some away, and which are now deep enough. A transfer
// that landed but failed on chain (say, out of energy) refunds; one that succeeded settles.
import * as outgoing from "../../db/chain_outgoing.ts";
import type { Db } from "../../db/mod.ts";
import type { TxInfo } from "../../rails/tron/client.ts";
import type { Deps } from "../deps.ts";
import { releaseOutbound, settleOutbound } from "./finish.ts";

/** Records which of our signed transactions the block holds, with their result. */
export async function recordOutgoingInBlock(db: Db, blockNumber: number, infos: TxInfo[]): Promise<number> {
  return await recordOutgoingInBlocks(db, [{ number: blockNumber, infos }]);
}

/** Our transactions among several blocks' infos: included, with their receipts' results. */
export async function recordOutgoingInBlocks(
  db: Db,
  blocks: Array<{ number: number; infos: TxInfo[] }>,
): Promise<number> {
  return await outgoing.markIncluded(
    db,
    blocks.flatMap((b) =>
      b.infos.map((i) => ({
        txId: i.id,
        result: i.receiptResult ?? (i.result === "FAILED" ? "FAILED" : "SUCCESS"),
        blockNumber: b.number,
      }))
    ),
  );
}

/** A reorg removed blocks above `forkPoint`: those transactions are "sent, not seen" again. */
export async function rewindOutgoing(db: Db, forkPoint: number): Promise<number> {
  return await outgoing.unmarkAbove(db, forkPoint);
}

/** Settles or refunds items whose transaction has `payoutConfirmations` blocks (its own included). */
export async function confirmMaturedOutbound(
  deps: Pick<Deps, "db" | "queue" | "clock" | "config" | "log">,
  followedHead: number,
): Promise<{ confirmed: number; failed: number }> {
  const matureAtOrBelow = followedHead - deps.config.tron.payoutConfirmations + 1;
  let confirmed = 0;
  let failed = 0;
  for (const item of await outgoing.outgoingMatured(deps.db, matureAtOrBelow)) {
    if (item.result === "SUCCESS") {
      if (await settleOutbound(deps, { id: item.outbound_id, txHash: item.tx_id })) confirmed++;
    } else {
      const moved = await releaseOutbound(deps, {
        id: item.outbound_id,
        to: "FAILED",
        patch: {
          failure_reason: `CHAIN_${item.result ?? "FAILED"}`,
          failed_at: deps.clock.now(),
          tx_hash: item.tx_id,
        },
        expectFrom: ["BROADCAST"],
      });
      if (moved) failed++;
    }
  }
  return { confirmed, failed };
}
