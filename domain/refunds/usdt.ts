// USDT refunds: once approved, the customer gives a TRON address on the hosted page (signed link), and the
// refund is paid from the hot wallet by the money-out sender (domain/money_out/send.ts: hot wallet reserved,
// signed once, expiry judged by the chain's head) as an outbound transfer of kind REFUND. That transfer moves
// no money of its own: the refund's reservation is already in IN_FLIGHT, and its end is booked here by the
// refund's finishers, in the transfer's transaction (paid on confirmation, returned on a revert).
import { insertOutbound, type OutboundRow } from "../../db/outbound.ts";
import { findRefund, isDepositAddress, lockRefund, type RefundRow } from "../../db/refunds.ts";
import { isTronAddress, toHexAddress } from "../../rails/tron/address.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { newId } from "../ids.ts";
import { registerRefundTransferOwner } from "../money_out/finish.ts";
import { hotWallet } from "../treasury/hot_wallet.ts";
import { completeRefund, failRefund } from "./finish.ts";
import { transitionRefund } from "./states.ts";
import { type PageLink, verifyPageLink } from "./usdt_link.ts";

type PageDeps = Pick<Deps, "db" | "queue" | "clock" | "config">;

/** What the hosted page shows: nothing merchant-internal beyond the shop's name. */
export type RefundPageView = {
  refundId: string;
  amount: string;
  currency: string;
  status: RefundRow["status"];
  merchantName: string;
  address: string | null;
  txHash: string | null;
};

async function pageView(deps: Pick<Deps, "db">, row: RefundRow): Promise<RefundPageView> {
  const name = await deps.db.query<{ name: string }>(
    "SELECT COALESCE(NULLIF(display_name, ''), name) AS name FROM merchants WHERE id = $1",
    [row.merchant_id],
  );
  return {
    refundId: row.id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    merchantName: name[0]?.name ?? "",
    address: row.destination_address,
    txHash: row.status === "COMPLETED" ? row.provider_ref : null,
  };
}

async function usdtRefundOf(deps: PageDeps, link: PageLink): Promise<RefundRow> {
  await verifyPageLink(deps.config, link, deps.clock.now());
  const row = await findRefund(deps.db, link.refundId);
  if (!row || row.payment_method !== "USDT_TRC20") throw new AppError("NOT_FOUND", "No refund for this link");
  return row;
}

/** GET /refunds/:id?exp&sig: the refund as the customer sees it. */
export async function getRefundPage(deps: PageDeps, link: PageLink): Promise<RefundPageView> {
  return await pageView(deps, await usdtRefundOf(deps, link));
}

/** INVALID_ADDRESS unless a base58check T-address that is neither the gateway's nor the USDT contract. */
export async function assertRefundAddress(deps: PageDeps, row: RefundRow, address: string): Promise<void> {
  if (!isTronAddress(address)) {
    throw new AppError("INVALID_ADDRESS", "Not a TRON address (34 characters starting with T)");
  }
  const contract = deps.config.tron.usdtContract;
  if (address === contract || toHexAddress(address) === toHexAddress(contract)) {
    throw new AppError("INVALID_ADDRESS", "This is the USDT contract, not a wallet");
  }
  const hot = hotWallet(deps.config, row.is_sandbox).address;
  if (address === hot || await isDepositAddress(deps.db, toHexAddress(address))) {
    throw new AppError("INVALID_ADDRESS", "This address belongs to the payment gateway, not to you");
  }
}

/**
 * POST /refunds/:id: sets the refund's address once and hands the refund to the sender. Under the refund's
 * lock, so two tabs or a double click set it once: the same address again answers the refund as it is, a
 * different one is CONFLICT. Only an APPROVED refund takes an address (INVALID_TRANSACTION_STATUS).
 */
export async function submitRefundAddress(
  deps: PageDeps,
  link: PageLink,
  rawAddress: string,
): Promise<RefundPageView> {
  const found = await usdtRefundOf(deps, link);
  const address = rawAddress.trim();
  const row = await deps.db.tx(async (tx) => {
    const locked = (await lockRefund(tx, found.id))!;
    if (locked.destination_address) {
      if (locked.destination_address === address) return locked;
      throw new AppError("CONFLICT", "This refund's address was already given");
    }
    if (locked.status !== "APPROVED") {
      throw new AppError("INVALID_TRANSACTION_STATUS", `Refund is ${locked.status}; it takes no address`);
    }
    const txDeps = { ...deps, db: tx };
    await assertRefundAddress(txDeps, locked, address);
    const now = deps.clock.now();
    const transfer = await insertOutbound(tx, {
      id: newId("rfo", now.getTime()),
      kind: "REFUND",
      merchantId: locked.merchant_id,
      isSandbox: locked.is_sandbox,
      status: "APPROVED",
      amount: locked.amount,
      fee: "0",
      debited: locked.amount,
      netAmount: locked.amount,
      destinationAddress: address,
      whitelistEntryId: null,
      externalRef: null,
      metadata: { refundId: locked.id, payinId: locked.payin_id },
      requiresManualApproval: false,
      now,
    });
    const moved = await transitionRefund(txDeps, locked, "PROCESSING", {
      destination_address: address,
      address_set_at: now,
      outbound_id: transfer.id,
      sent_at: now,
      provider: "tron",
      attempts: locked.attempts + 1,
    });
    tx.afterCommit(() => deps.queue.enqueue({ type: "outbound.send", outboundId: transfer.id }));
    return moved;
  });
  return await pageView(deps, row);
}

function refundIdOf(row: OutboundRow): string {
  const id = row.metadata?.refundId;
  if (typeof id !== "string") throw new Error(`refund transfer ${row.id} names no refund`);
  return id;
}

registerRefundTransferOwner({
  async settled(deps, row) {
    await completeRefund(deps, refundIdOf(row), { providerRef: row.tx_hash, provider: "tron" });
  },
  async released(deps, row) {
    await failRefund(deps, refundIdOf(row), {
      reason: row.failure_reason ?? "CHAIN_FAILED",
      providerRef: row.tx_hash,
      provider: "tron",
    });
  },
});
