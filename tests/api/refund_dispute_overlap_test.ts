// A pay-in's money can go back once: refunds and disputes share what the customer paid. Each path reads
// the other's claim under the same pay-in lock, so together they never exceed the amount received.
import { balanceStatement } from "../../domain/statements/statement.ts";
import { assertEquals } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import { approve, askRefund, getRefund, paidCard, roomyMerchant, runRefundJobs } from "../refund_fixture.ts";
import { assertLedgerConsistent } from "../dispute_fixture.ts";
import { assertFileMatches, download, drainExports, expectedRows } from "../export_helpers.ts";

Deno.test(
  "refunds and disputes on one pay-in never claim more than it received, whichever comes first",
  withGateway(async (gw) => {
    const m = await roomyMerchant(gw);
    const key = m.keys.liveSecret;
    const payinId = await paidCard(gw, key, "10000");

    const refund = await askRefund(gw, key, payinId, { amount: "6000" });
    assertEquals(refund.status, 201, refund.text);
    // The refund waits for approval: its 6,000 shows as reserved for refunds on the card wallet only.
    assertEquals(await refundFigures(gw, key), { CARD: ["6000", "0"], MOMO: ["0", "0"] });

    const tooMuch = await gw.admin("POST", "/admin/api/disputes", {
      transactionId: payinId,
      reason: "NOT_RECEIVED",
      amount: "5000",
      note: "Réclamation du porteur",
    });
    assertEquals(tooMuch.json.error.code, "INVALID_AMOUNT", tooMuch.text);

    // Without an amount, the dispute takes what the refund left: 4,000.
    const dispute = await gw.admin("POST", "/admin/api/disputes", {
      transactionId: payinId,
      reason: "NOT_RECEIVED",
      note: "Réclamation du porteur",
    });
    assertEquals(dispute.status < 300, true, dispute.text);
    assertEquals(dispute.json.data.amount, "4000");
    const disputeId: string = dispute.json.data.id;

    // The dispute is a row of the history: type DISPUTE, its id, the disputed amount, its status.
    const listed = (await gw.request("GET", "/v1/transactions?type=DISPUTE", { key })).json.data.items;
    assertEquals(
      listed.map((t: Row) => [t.id, t.type, t.amount, t.status, t.paymentMethod, t.walletRail, t.fee]),
      [[disputeId, "DISPUTE", "4000", "OPEN", "CARD", "CARD", "0"]],
    );

    const more = await askRefund(gw, key, payinId, { amount: "1" });
    assertEquals(more.json.error.code, "REFUND_EXCEEDS_AMOUNT", more.text);

    // Decided for the merchant, the dispute no longer claims anything: what is left can be refunded again (the pay-in fee stays with the gateway, so not all 4,000).
    const resolved = await gw.admin("POST", `/admin/api/disputes/${dispute.json.data.id}/resolve`, {
      note: "Livraison prouvée",
    });
    assertEquals(resolved.status, 200, resolved.text);
    const one = await gw.request("GET", `/v1/transactions/${disputeId}`, { key });
    assertEquals([one.status, one.json.data.type, one.json.data.amount, one.json.data.status], [
      200,
      "DISPUTE",
      "4000",
      "RESOLVED",
    ]);
    const byStatus = await gw.request("GET", "/v1/transactions?type=DISPUTE&status=RESOLVED", { key });
    assertEquals(byStatus.json.data.items.map((t: Row) => t.id), [disputeId]);
    const openOnes = await gw.request("GET", "/v1/transactions?type=DISPUTE&status=OPEN", { key });
    assertEquals(openOnes.json.data.items, []);
    // Another merchant cannot read it, and a dispute id that does not exist is not found either.
    const other = await gw.createMerchant("Autre boutique");
    const theirs = await gw.request("GET", `/v1/transactions/${disputeId}`, { key: other.keys.liveSecret });
    assertEquals([theirs.status, theirs.json.error.code], [404, "NOT_FOUND"]);
    const unknownId = disputeId.slice(0, -1) + (disputeId.endsWith("0") ? "1" : "0");
    const none = await gw.request("GET", `/v1/transactions/${unknownId}`, { key });
    assertEquals(none.status, 404, none.text);
    const rest = await askRefund(gw, key, payinId, { amount: "3000" });
    assertEquals(rest.status, 201, rest.text);
    assertEquals(await refundFigures(gw, key), { CARD: ["9000", "0"], MOMO: ["0", "0"] });
    await assertLedgerConsistent(gw);

    // The balance statement names each movement: two refund reservations, a dispute's hold and release.
    const s = await balanceStatement(gw.deps, {
      merchantId: m.merchantId,
      mode: "live",
      currency: "XOF",
      from: new Date(Date.now() - 3_600_000),
      to: new Date(Date.now() + 60_000),
    });
    const of = (type: string) => s.lines.filter((l) => l.type === type).map((l) => l.amount);
    assertEquals(of("CUSTOMER_REFUND"), ["-6000", "-3000"]);
    // The wallet held 3,650 after the first refund (10,000 less fees less 6,000): the rest was a shortfall.
    assertEquals(of("DISPUTE"), ["-3650", "3650"]);
    assertEquals(of("OTHER"), []);
    assertEquals([s.totals.customerRefunds, s.totals.disputes], ["-9000", "0"]);
    assertEquals(s.closingBalance, s.ledgerBalance);

    const view = (await gw.request("GET", `/v1/payments/${payinId}`, { key })).json.data;
    assertEquals([view.disputed, view.refundedAmount], [true, "0"]); // reserved refunds are not paid yet

    // Rejected, the first refund's 6,000 is no longer reserved; paid, the second's 3,000 neither.
    const no = await gw.admin("POST", `/admin/api/refunds/${refund.json.data.refundId}/reject`, {
      note: "Client remboursé autrement",
    });
    assertEquals(no.status, 200, no.text);
    assertEquals(await refundFigures(gw, key), { CARD: ["3000", "0"], MOMO: ["0", "0"] });
    assertEquals((await approve(gw, rest.json.data.refundId)).status, 200);
    await runRefundJobs(gw);
    assertEquals((await getRefund(gw, key, rest.json.data.refundId)).status, "COMPLETED");
    assertEquals(await refundFigures(gw, key), { CARD: ["0", "0"], MOMO: ["0", "0"] });
    await assertLedgerConsistent(gw);
    // The trigger kept the projection equal to the disputes themselves (migration 048's view).
    const [{ n }] = await gw.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         (SELECT * FROM transaction_rows_disputes EXCEPT SELECT * FROM transactions WHERE type = 'DISPUTE')
         UNION ALL (SELECT * FROM transactions WHERE type = 'DISPUTE' EXCEPT SELECT * FROM transaction_rows_disputes)) d`,
    );
    assertEquals(n, 0);

    // The CSV export carries the dispute's row like any other, exactly as the sources hold it.
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const [from, to, after] = [day(Date.now() - 86_400_000), day(Date.now()), day(Date.now() + 86_400_000)];
    const asked = await gw.request("GET", `/v1/transactions/export?from=${from}&to=${to}`, { key });
    assertEquals(asked.status, 202, asked.text);
    await drainExports(gw);
    const csv = await download(gw, key, asked.json.data.jobId);
    assertEquals(csv.res.status, 200, csv.text);
    const want = await expectedRows(gw, m.merchantId, false, `${from}T00:00:00Z`, `${after}T00:00:00Z`);
    const line = csv.text.split("\n").filter((l) => l.includes(disputeId));
    assertEquals(line.length, 1, csv.text);
    assertEquals([line[0].includes(",DISPUTE,"), line[0].includes(",RESOLVED,")], [true, true], line[0]);
    assertFileMatches(csv.text, want);
  }),
);

// deno-lint-ignore no-explicit-any
type Row = any;

/**
 * Per XOF wallet: [reservedForRefunds, reserved] as GET /v1/merchant/balances/XOF shows them, checked
 * equal to what GET /v1/wallets/balance shows for the same wallet.
 */
async function refundFigures(gw: TestGateway, key: string) {
  const one = (await gw.request("GET", "/v1/merchant/balances/XOF", { key })).json.data;
  const all = (await gw.request("GET", "/v1/wallets/balance", { key })).json.data;
  const out: Record<string, [string, string]> = {};
  for (const w of one.wallets) {
    const same = all.balances.find((b: Row) => b.walletId === w.id);
    assertEquals(same.reservedForRefunds, w.reservedForRefunds, `wallet ${w.rail}`);
    out[w.rail] = [w.reservedForRefunds, w.reserved];
  }
  return out;
}

Deno.test(
  "a dispute racing refunds on one pay-in: together they never give back more than it received",
  withGateway(async (gw) => {
    const m = await roomyMerchant(gw);
    const key = m.keys.liveSecret;
    const payinId = await paidCard(gw, key, "10000");
    const refunds = Array.from({ length: 10 }, () => askRefund(gw, key, payinId, { amount: "1500" }));
    const disputes = Array.from({ length: 3 }, () =>
      gw.admin("POST", "/admin/api/disputes", {
        transactionId: payinId,
        reason: "NOT_RECEIVED",
        amount: "4000",
        note: "Réclamation du porteur",
      }));
    const answers = await Promise.all([...refunds, ...disputes]);
    assertEquals(answers.filter((a) => a.status >= 500).length, 0);
    const [{ refunded }] = await gw.db.query<{ refunded: string }>(
      `SELECT COALESCE(sum(amount), 0)::text AS refunded FROM refunds
        WHERE payin_id = $1 AND status NOT IN ('REJECTED', 'CANCELLED', 'FAILED')`,
      [payinId],
    );
    const [{ disputed }] = await gw.db.query<{ disputed: string }>(
      "SELECT COALESCE(sum(amount), 0)::text AS disputed FROM disputes WHERE payin_id = $1",
      [payinId],
    );
    const total = Number(refunded) + Number(disputed);
    assertEquals(total <= 10000, true, `refunded ${refunded} + disputed ${disputed}`);
    // Whichever order the lock gave, what was accepted is exactly what the records hold.
    const accepted = answers.slice(0, 10).filter((a) => a.status === 201).length * 1500 +
      answers.slice(10).filter((a) => a.status < 300).length * 4000;
    assertEquals(accepted, total);
    await assertLedgerConsistent(gw);
  }),
);
