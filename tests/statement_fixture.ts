// A merchant with a history on every rail, booked by the gateway's own domain functions: USDT pay-ins
// (exact and overpaid), a card and a mobile money pay-in, a payout settled and one refunded, an XOF
// withdrawal, a conversion, a bulk batch executed, and a plain credit of a kind the statement does not know.
import { findWallet } from "../db/ledger.ts";
import { settleUsdtReceipt } from "../domain/payins/settle.ts";
import { applyFiatOutcome } from "../domain/payins/settle_fiat.ts";
import { releaseOutbound, settleOutbound } from "../domain/money_out/finish.ts";
import { Decimal } from "../domain/money.ts";
import type { CreatedMerchant } from "../domain/merchants/mod.ts";
import { assertEquals } from "./assert.ts";
import type { TestGateway } from "./helpers.ts";
import { creditWallet, idem, randomTronAddress, whitelist } from "./money_out_helpers.ts";

/** The gateway options the history needs: fiat destinations usable at once. */
export const HISTORY_ENV = { env: { FIAT_DESTINATION_COOLDOWN_SECONDS: "0" } };

export type History = { merchant: CreatedMerchant; payinIds: string[]; orderless: string[] };

// deno-lint-ignore no-explicit-any
async function ok(res: Promise<{ status: number; json: any; text: string }>, status = [200, 201, 202]) {
  const r = await res;
  if (!status.includes(r.status)) throw new Error(`unexpected ${r.status}: ${r.text}`);
  return r.json.data;
}

/** A USDT pay-in of `amount`, paid with `received` (what the scanner would have summed) and settled. */
export async function paidUsdtPayin(
  gw: TestGateway,
  key: string,
  amount: string,
  received: string,
  ref?: string,
) {
  const d = await ok(gw.request("POST", "/v1/payments", {
    key,
    body: {
      amount,
      ...(ref ? { externalRef: ref } : {}),
      customerEmail: "awa@example.bf",
      customerName: "Awa Ouédraogo",
    },
  }));
  await settleUsdtReceipt(
    gw.deps,
    d.transactionId,
    () => Promise.resolve({ received: new Decimal(received), txHash: "ab".repeat(32), transferKeys: [] }),
  );
  return d.transactionId as string;
}

export async function paidFiatPayin(
  gw: TestGateway,
  key: string,
  method: "CARD" | "MOBILE_MONEY",
  amount: string,
) {
  const body = method === "CARD"
    ? { amount, paymentMethod: "CARD", customerName: "Issa Kaboré", customerEmail: "issa@example.bf" }
    : { amount, paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" };
  const d = await ok(gw.request("POST", "/v1/payments", { key, body }));
  await applyFiatOutcome(gw.deps, d.transactionId, {
    status: "SUCCEEDED",
    providerRef: `sim-${d.transactionId}`,
  });
  return d.transactionId as string;
}

export async function buildHistory(gw: TestGateway): Promise<History> {
  const m = await gw.createMerchant("Boutique Ouaga");
  const key = m.keys.liveSecret;
  await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
    rateLimits: {
      default: 100000,
      "POST /v1/payments": 1000,
      "POST /v1/payout": 1000,
      "POST /v1/withdrawals": 1000,
    },
  });
  const payinIds = [
    await paidUsdtPayin(gw, key, "100", "101.5", "order-100"),
    await paidUsdtPayin(gw, key, "40", "45"),
    await paidFiatPayin(gw, key, "CARD", "25000"),
    await paidFiatPayin(gw, key, "MOBILE_MONEY", "60000"),
  ];
  // A pay-in left unpaid: no movement, no invoice.
  const unpaid = await ok(gw.request("POST", "/v1/payments", { key, body: { amount: "9" } }));

  // Money out: one payout confirmed on chain, one failed and refunded.
  const dest = randomTronAddress();
  await whitelist(gw, key, dest, ["PAYOUT"]);
  const p1 = await ok(
    gw.request("POST", "/v1/payout", {
      key,
      headers: idem(),
      body: { amount: "20", destinationAddress: dest },
    }),
  );
  const p2 = await ok(
    gw.request("POST", "/v1/payout", {
      key,
      headers: idem(),
      body: { amount: "7.5", destinationAddress: dest },
    }),
  );
  const p1Id = p1.id ?? p1.payoutId ?? p1.transactionId;
  const p2Id = p2.id ?? p2.payoutId ?? p2.transactionId;
  await gw.db.query("UPDATE outbound_transfers SET status = 'BROADCAST' WHERE id = $1", [p1Id]);
  await settleOutbound(gw.deps, { id: p1Id, txHash: "cd".repeat(32) });
  await releaseOutbound(gw.deps, {
    id: p2Id,
    to: "FAILED",
    patch: { failure_reason: "TEST" } as never,
    strict: true,
  });

  // XOF: a mobile money withdrawal to a registered destination.
  await ok(gw.request("POST", "/v1/merchants/fiat-destinations", {
    key,
    body: { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456" },
  }));
  await ok(
    gw.request("POST", "/v1/withdrawals", {
      key,
      headers: idem(),
      body: { amount: "10000", currency: "XOF", rail: "MOMO" },
    }),
  );

  // A conversion USDT -> XOF (mobile money wallet).
  const wallets = (await ok(gw.request("GET", "/v1/merchants/wallets", { key }))) as Array<
    { id: string; rail: string }
  >;
  const byRail = Object.fromEntries(wallets.map((w) => [w.rail, w.id]));
  await ok(gw.request("POST", "/v1/conversions/wallet", {
    key,
    headers: idem(),
    body: { fromWalletId: byRail.TRC20, toWalletId: byRail.MOMO, fromAmount: "10" },
  }));

  // A USDT bulk batch of two items, executed (one debit, itemized by the statement).
  const addresses = [randomTronAddress(), randomTronAddress()];
  for (const a of addresses) await whitelist(gw, key, a, ["PAYOUT"]);
  const batch = await ok(
    gw.request("POST", "/v1/bulk-payments", { key, body: { rail: "USDT_TRC20", label: "salaries" } }),
  );
  await ok(gw.request("POST", `/v1/bulk-payments/${batch.id}/items`, {
    key,
    body: {
      items: [{ walletAddress: addresses[0], amount: "5" }, { walletAddress: addresses[1], amount: "6.25" }],
    },
  }));
  await ok(gw.request("POST", `/v1/bulk-payments/${batch.id}/validate`, { key }));
  await ok(gw.request("POST", `/v1/bulk-payments/${batch.id}/execute`, { key, headers: idem() }));

  // A movement of a kind no statement rule knows: still listed, still reconciled.
  await creditWallet(gw, m.merchantId, false, "CARD", "1234");
  return { merchant: m, payinIds, orderless: [unpaid.transactionId] };
}

/** The cached balances of the merchant's wallets in a currency, summed. */
export async function cachedBalance(gw: TestGateway, merchantId: string, currency: "USDT_TRC20" | "XOF") {
  const rails = currency === "XOF" ? ["MOMO", "CARD"] : ["TRC20"];
  let sum = new Decimal(0);
  for (const rail of rails) {
    sum = sum.plus((await findWallet(gw.db, merchantId, false, currency, rail))!.balance);
  }
  return sum;
}

export function assertDecimalEquals(actual: Decimal.Value, expected: Decimal.Value, message?: string) {
  assertEquals(new Decimal(actual).toFixed(6), new Decimal(expected).toFixed(6), message);
}
