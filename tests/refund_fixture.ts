// What the refund tests share: a merchant with paid card and mobile money pay-ins (through the simulators,
// as a customer would pay), the jobs the gateway would run, and the ledger figures each test checks.
import { accountBalance, findSystemAccount } from "../db/ledger.ts";
import { processDisbursement } from "../domain/fiat_out/disburse.ts";
import { processRefund } from "../domain/refunds/send.ts";
import { TEST_CARDS } from "../rails/fiat/mod.ts";
import { settleUsdtReceipt } from "../domain/payins/settle.ts";
import { Decimal } from "../domain/money.ts";
import { assertEquals } from "./assert.ts";
import type { TestGateway } from "./helpers.ts";

export type RefundMerchant = Awaited<ReturnType<TestGateway["createMerchant"]>>;

/** Lifts the per-minute limits a test making many requests would meet. */
export async function roomyMerchant(gw: TestGateway, name = "Boutique Ouaga"): Promise<RefundMerchant> {
  const m = await gw.createMerchant(name);
  await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
    rateLimits: { "POST /v1/payments": 1000, default: 1000 },
  });
  return m;
}

/** A card pay-in the customer paid with the success card: CONFIRMED, its wallet credited. */
export async function paidCard(gw: TestGateway, key: string, amount = "10000"): Promise<string> {
  const res = await gw.request("POST", "/v1/payments", {
    key,
    body: { paymentMethod: "CARD", amount, customerName: "Awa Ouedraogo", customerEmail: "awa@example.com" },
  });
  assertEquals(res.status, 201, res.text);
  const id = res.json.data.transactionId;
  const ref = await providerRefOf(gw, id);
  gw.simulators.card.submitCard(ref, { number: TEST_CARDS.SUCCESS, expiry: "12/39", cvc: "123" });
  await gw.simulators.flush();
  assertEquals(await payinStatus(gw, key, id), "CONFIRMED");
  return id;
}

/** A mobile money pay-in approved on the customer's phone (OPERATOR_B_BF approves by itself). */
export async function paidMomo(gw: TestGateway, key: string, amount = "5000", phone = "+22670123456") {
  const res = await gw.request("POST", "/v1/payments", {
    key,
    body: { paymentMethod: "MOBILE_MONEY", amount, customerPhone: phone },
  });
  assertEquals(res.status, 201, res.text);
  const id = res.json.data.transactionId;
  await gw.simulators.flush();
  await gw.simulators.flush();
  assertEquals(await payinStatus(gw, key, id), "CONFIRMED");
  return id;
}

/** The provider's reference of a card or mobile money pay-in (PayDunya's invoice token, a simulator's ref). */
export async function providerRefOf(gw: Pick<TestGateway, "db">, payinId: string): Promise<string> {
  const [{ provider_ref }] = await gw.db.query<{ provider_ref: string }>(
    "SELECT provider_ref FROM payins WHERE id = $1",
    [payinId],
  );
  return provider_ref;
}

export async function payinStatus(gw: TestGateway, key: string, id: string): Promise<string> {
  return (await gw.request("GET", `/v1/payments/${id}`, { key })).json.data.status;
}

/** The merchant's XOF wallet of a rail, as the balances route shows it. */
export async function xofWallet(gw: TestGateway, key: string, rail: "MOMO" | "CARD"): Promise<number> {
  const res = await gw.request("GET", "/v1/merchant/balances/XOF", { key });
  return Number(res.json.data.wallets.find((w: { rail: string }) => w.rail === rail).balance);
}

/** What IN_FLIGHT of a rail holds (live mode): reserved refunds (and payouts) not yet paid. */
export async function inFlight(gw: TestGateway, rail: "MOMO" | "CARD"): Promise<number> {
  const account = await findSystemAccount(gw.db, "IN_FLIGHT", false, rail);
  return Number(await accountBalance(gw.db, account.id) ?? 0);
}

export async function askRefund(
  gw: TestGateway,
  key: string,
  payinId: string,
  body: Record<string, unknown> = {},
  idempotencyKey = crypto.randomUUID(),
) {
  return await gw.request("POST", `/v1/payments/${payinId}/refunds`, {
    key,
    body,
    headers: { "idempotency-key": idempotencyKey },
  });
}

export async function approve(gw: TestGateway, refundId: string, note = "Checked with the shop") {
  return await gw.admin("POST", `/admin/api/refunds/${refundId}/approve`, { note });
}

/** Runs the refund and disbursement jobs the queue holds, as the gateway's listener would. */
export async function runRefundJobs(gw: TestGateway): Promise<void> {
  while (true) {
    const i = gw.enqueued.findIndex((e) =>
      e.message.type === "refund.send" || e.message.type === "fiat.disburse"
    );
    if (i < 0) return;
    const [{ message }] = gw.enqueued.splice(i, 1);
    if (message.type === "refund.send") await processRefund(gw.deps, message.refundId);
    if (message.type === "fiat.disburse") await processDisbursement(gw.deps, message.disbursementId);
  }
}

export async function getRefund(gw: TestGateway, key: string, id: string) {
  return (await gw.request("GET", `/v1/refunds/${id}`, { key })).json.data;
}

export async function eventsOf(gw: TestGateway, refundId: string): Promise<string[]> {
  const rows = await gw.db.query<{ type: string }>(
    "SELECT type FROM events WHERE data->>'refundId' = $1 ORDER BY created_at, id",
    [refundId],
  );
  return rows.map((r) => r.type);
}

/** The page path of a link (the test app is reached without the public origin). */
export function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

export async function postAddress(gw: TestGateway, path: string, address: string) {
  return await gw.request("POST", path, {
    rawBody: new URLSearchParams({ address }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

/** A USDT pay-in paid exactly what it asks (as the scanner would have summed it): CONFIRMED. */
export async function paidUsdt(gw: TestGateway, key: string, amount: string): Promise<string> {
  const res = await gw.request("POST", "/v1/payments", { key, body: { amount, customerName: "Awa" } });
  assertEquals(res.status, 201, res.text);
  const id = res.json.data.transactionId as string;
  const [{ amount: due }] = await gw.db.query<{ amount: string }>(
    "SELECT amount_expected::text AS amount FROM payins WHERE id = $1",
    [
      id,
    ],
  );
  await settleUsdtReceipt(
    gw.deps,
    id,
    () => Promise.resolve({ received: new Decimal(due), txHash: "ab".repeat(32), transferKeys: [] }),
  );
  assertEquals((await gw.request("GET", `/v1/payments/${id}`, { key })).json.data.status, "CONFIRMED");
  return id;
}
