// Shared steps of the money-out tests: credit a merchant's wallet through the ledger, whitelist an
// address, read balances and events.
import { findSystemAccount, findWallet } from "../db/ledger.ts";
import { postJournal } from "../domain/ledger.ts";
import { Decimal } from "../domain/money.ts";
import { toBase58Address } from "../rails/tron/address.ts";
import type { TestGateway } from "./helpers.ts";

export function randomTronAddress(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return toBase58Address("41" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""));
}

/** A credit from outside the gateway (what a settled pay-in does) to one wallet, through the one ledger helper. */
export async function creditWallet(
  gw: TestGateway,
  merchantId: string,
  isSandbox: boolean,
  rail: "TRC20" | "MOMO" | "CARD",
  amount: string,
) {
  const world = await findSystemAccount(gw.db, "WORLD", isSandbox, rail);
  const wallet = await findWallet(
    gw.db,
    merchantId,
    isSandbox,
    rail === "TRC20" ? "USDT_TRC20" : "XOF",
    rail,
  );
  await postJournal(gw.db, {
    reference: `test-credit:${crypto.randomUUID()}`,
    kind: "TEST_CREDIT",
    merchantId,
    isSandbox,
    postings: [{ accountId: world.id, amount: new Decimal(amount).negated() }, {
      accountId: wallet!.id,
      amount,
    }],
  });
}

export async function creditUsdt(gw: TestGateway, merchantId: string, isSandbox: boolean, amount: string) {
  await creditWallet(gw, merchantId, isSandbox, "TRC20", amount);
}

export async function usdtBalance(gw: TestGateway, merchantId: string, isSandbox: boolean): Promise<string> {
  const wallet = await findWallet(gw.db, merchantId, isSandbox, "USDT_TRC20", "TRC20");
  return new Decimal(wallet!.balance).toFixed(6);
}

/** What IN_FLIGHT holds, from its entries (whatever the ledger caches). */
export async function inFlight(gw: TestGateway, isSandbox: boolean): Promise<string> {
  const account = await findSystemAccount(gw.db, "IN_FLIGHT", isSandbox, "TRC20");
  const rows = await gw.db.query<{ s: string }>(
    "SELECT COALESCE(sum(amount), 0)::text AS s FROM entries WHERE account_id = $1",
    [account.id],
  );
  return new Decimal(rows[0].s).toFixed(6);
}

export async function whitelist(
  gw: TestGateway,
  key: string,
  address: string,
  usageContexts: string[],
): Promise<string> {
  const res = await gw.request("POST", "/v1/wallets/whitelist", { key, body: { address, usageContexts } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`whitelist failed: ${res.text}`);
  return res.json.data.id;
}

export async function eventTypes(gw: TestGateway, merchantId: string): Promise<string[]> {
  const rows = await gw.db.query<{ type: string }>(
    "SELECT type FROM events WHERE merchant_id = $1 ORDER BY created_at, id",
    [merchantId],
  );
  return rows.map((r) => r.type);
}

export const idem = () => ({ "idempotency-key": crypto.randomUUID() });
