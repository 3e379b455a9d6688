// Shared steps of the dispute tests: a card pay-in paid on the simulator's page, a chargeback raised by
// the simulator, and the ledger's invariants checked after every step.
import { assert, assertEquals } from "./assert.ts";
import type { TestGateway } from "./helpers.ts";

/** A CARD pay-in of `amount` XOF paid with the success card; answers its id and the provider's ref. */
export async function paidCardPayin(gw: TestGateway, key: string, amount = "10000") {
  const created = await gw.request("POST", "/v1/payments", {
    key,
    body: { amount, paymentMethod: "CARD", customerName: "Awa Ouédraogo", customerEmail: "awa@example.com" },
  });
  assertEquals(created.status, 201, created.text);
  const id = created.json.data.transactionId as string;
  const page = new URL(created.json.data.hostedPaymentUrl).pathname;
  const paid = await gw.app.request(page, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "number=4242424242424242&expiry=12%2F39&cvc=123",
  });
  await paid.body?.cancel();
  await gw.simulators.flush();
  const payin = (await gw.request("GET", `/v1/payments/${id}`, { key })).json.data;
  assertEquals(payin.status, "CONFIRMED");
  return { id, providerRef: payin.txHash as string };
}

/** Asks the simulated acquirer for a chargeback of the payment `providerRef`; answers the simulator's JSON. */
export async function raiseChargeback(
  gw: TestGateway,
  providerRef: string,
  body: Record<string, unknown> = {},
) {
  const res = await gw.app.request(`/simulators/card/${providerRef}/chargeback`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

export async function xofCardWallet(gw: TestGateway, key: string): Promise<string> {
  const res = await gw.request("GET", "/v1/merchant/balances/XOF", { key });
  return res.json.data.wallets.find((w: { rail: string }) => w.rail === "CARD").balance;
}

/**
 * The ledger after any step: every journal balanced per currency, every wallet's cached balance the sum
 * of its entries and never negative, and each DISPUTES account holding exactly what its disputes hold.
 */
export async function assertLedgerConsistent(gw: TestGateway): Promise<void> {
  const unbalanced = await gw.db.query(
    `SELECT journal_id FROM entries GROUP BY journal_id, currency HAVING sum(amount) <> 0`,
  );
  assertEquals([...unbalanced], []);
  const drift = await gw.db.query(
    `SELECT a.id FROM accounts a LEFT JOIN entries e ON e.account_id = a.id
      WHERE a.kind = 'WALLET' GROUP BY a.id, a.balance HAVING a.balance <> coalesce(sum(e.amount), 0) OR a.balance < 0`,
  );
  assertEquals([...drift], []);
  const holds = await gw.db.query<{ rail: string; is_sandbox: boolean; ledger: string; held: string }>(
    `SELECT a.rail, a.is_sandbox,
            (SELECT coalesce(sum(e.amount), 0) FROM entries e WHERE e.account_id = a.id)::text AS ledger,
            (SELECT coalesce(sum(d.held), 0) FROM disputes d WHERE d.rail = a.rail AND d.is_sandbox = a.is_sandbox)::text AS held
       FROM accounts a WHERE a.kind = 'DISPUTES'`,
  );
  assert(holds.length === 6, "one DISPUTES account per mode and rail");
  for (const h of holds) assertEquals(Number(h.ledger), Number(h.held), `DISPUTES ${h.rail} ${h.is_sandbox}`);
}

/** The dispute.* events recorded for a dispute, oldest first. */
export async function disputeEvents(gw: TestGateway, disputeId: string): Promise<string[]> {
  const rows = await gw.db.query<{ type: string }>(
    "SELECT type FROM events WHERE data->>'disputeId' = $1 ORDER BY created_at, id",
    [disputeId],
  );
  return rows.map((r) => r.type);
}

/** How many journals a dispute booked, by kind. */
export async function disputeJournals(gw: TestGateway, disputeId: string): Promise<string[]> {
  const rows = await gw.db.query<{ kind: string }>(
    "SELECT kind FROM journals WHERE reference LIKE $1 ORDER BY created_at, reference",
    [`dispute:${disputeId}:%`],
  );
  return rows.map((r) => r.kind);
}
