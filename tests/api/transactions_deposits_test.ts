// Late funds and direct deposits are rows of the history (type DEPOSIT, migration 038): credited ones
// CONFIRMED with what the wallet got and the fees, dust FAILED; a late payment carries its pay-in's
// externalRef and customer (searching the order finds both); the projection equals its views; the filter
// and GET /v1/transactions/:id answer them, another merchant's key does not.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { manualClock } from "../../domain/clock.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

Deno.test("late funds and direct deposits appear in the history", async () => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Late Shop");
    const other = await gw.createMerchant("Other Shop");
    const key = m.keys.liveSecret;
    const scan = () => {
      clock.advance(10);
      return scanChain(gw.deps);
    };
    await scan();
    // A direct top-up of 100 USDT, then dust of 1 USDT (below the 1.5 network fee).
    const standing = (await gw.request("GET", "/v1/wallets/deposit-address", { key })).json.data.address;
    gw.devnet.transferUsdt(standing, 100_000_000n);
    gw.devnet.mine(20);
    await scan();
    gw.devnet.transferUsdt(standing, 1_000_000n);
    gw.devnet.mine(20);
    await scan();
    // A pay-in that expired unpaid, paid late.
    const created = await gw.request("POST", "/v1/payments", {
      key,
      body: {
        amount: "10",
        expiresInSeconds: 900,
        externalRef: "ORD-LATE-7",
        customerEmail: "late@example.bf",
      },
    });
    const payin = created.json.data;
    clock.advance(901_000);
    await scan();
    clock.advance(-901_000); // the devnet's blocks carry real time
    await gw.db.query("UPDATE payins SET expires_at = now() - interval '1 minute' WHERE id = $1", [
      payin.transactionId,
    ]);
    gw.devnet.transferUsdt(payin.address, 11_500_000n);
    gw.devnet.mine(20);
    await scan();

    const list = await gw.request("GET", "/v1/transactions?type=DEPOSIT", { key });
    assertEquals(list.status, 200, list.text);
    const rows = list.json.data.transactions ?? list.json.data.items ?? list.json.data;
    const deposits = (Array.isArray(rows) ? rows : []) as Array<Record<string, unknown>>;
    assertEquals(deposits.length, 3, list.text);
    for (const d of deposits) {
      assertMatch(String(d.id), /^dep_[0-9a-f]{26}$/);
      assertEquals([d.type, d.currency, d.paymentMethod, d.walletRail], [
        "DEPOSIT",
        "USDT_TRC20",
        "USDT_TRC20",
        "TRC20",
      ]);
    }
    const byAmount = Object.fromEntries(deposits.map((d) => [d.amount, d]));
    // Direct: less the network fee only. Dust: nothing credited. Late funds: network and service fees.
    assertEquals(
      [byAmount["100.000000"].status, byAmount["100.000000"].fee, byAmount["100.000000"].netAmount],
      ["CONFIRMED", "1.500000", "98.500000"],
    );
    assertEquals(
      [byAmount["1.000000"].status, byAmount["1.000000"].netAmount, byAmount["1.000000"].failureReason],
      ["FAILED", "0.000000", "BELOW_DUST_THRESHOLD"],
    );
    const late = byAmount["11.500000"];
    assertEquals([late.status, late.netAmount, late.externalRef], ["CONFIRMED", "9.850000", "ORD-LATE-7"]);
    // What the history says the wallet got is what the ledger credited.
    const [{ wallet }] = await gw.db.query<{ wallet: string }>(
      `SELECT balance::text AS wallet FROM accounts
        WHERE merchant_id = $1 AND NOT is_sandbox AND kind = 'WALLET' AND currency = 'USDT_TRC20'`,
      [m.merchantId],
    );
    assertEquals(Number(wallet).toFixed(6), (98.5 + 9.85).toFixed(6));
    // One record by its id; the order's reference finds the pay-in and its late funds.
    const one = await gw.request("GET", `/v1/transactions/${late.id}`, { key });
    assertEquals([one.status, one.json.data.id, one.json.data.txHash], [200, late.id, late.txHash]);
    const found = await gw.request("GET", "/v1/transactions?search=ORD-LATE-7", { key });
    const foundRows = (found.json.data.transactions ?? found.json.data.items ?? found.json.data) as Array<
      { id: string }
    >;
    assertEquals(foundRows.map((r) => r.id).sort(), [late.id, payin.transactionId].sort());
    // Another merchant sees none of them; a malformed deposit id is NOT_FOUND too.
    assertEquals(
      (await gw.request("GET", `/v1/transactions/${late.id}`, { key: other.keys.liveSecret })).status,
      404,
    );
    assertEquals((await gw.request("GET", "/v1/transactions/dep_xyz", { key })).status, 404);
    // The projection equals its views (the deposits' view included).
    const [{ n }] = await gw.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ((SELECT * FROM transaction_rows EXCEPT SELECT * FROM transactions)
        UNION ALL (SELECT * FROM transactions EXCEPT SELECT * FROM transaction_rows)) d`,
    );
    assertEquals(n, 0);
    assert(deposits.every((d) => typeof d.createdAt === "string"));
  } finally {
    await gw.close();
  }
});
