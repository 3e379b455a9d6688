// A pay-in's money can go back once: refunds and disputes share what the customer paid. Each path reads
// the other's claim under the same pay-in lock, so together they never exceed the amount received.
import { balanceStatement } from "../../domain/statements/statement.ts";
import { assertEquals } from "../assert.ts";
import { withGateway } from "../helpers.ts";
import { askRefund, paidCard, roomyMerchant } from "../refund_fixture.ts";
import { assertLedgerConsistent } from "../dispute_fixture.ts";

Deno.test(
  "refunds and disputes on one pay-in never claim more than it received, whichever comes first",
  withGateway(async (gw) => {
    const m = await roomyMerchant(gw);
    const key = m.keys.liveSecret;
    const payinId = await paidCard(gw, key, "10000");

    const refund = await askRefund(gw, key, payinId, { amount: "6000" });
    assertEquals(refund.status, 201, refund.text);

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

    const more = await askRefund(gw, key, payinId, { amount: "1" });
    assertEquals(more.json.error.code, "REFUND_EXCEEDS_AMOUNT", more.text);

    // Decided for the merchant, the dispute no longer claims anything: what is left can be refunded again (the pay-in fee stays with the gateway, so not all 4,000).
    const resolved = await gw.admin("POST", `/admin/api/disputes/${dispute.json.data.id}/resolve`, {
      note: "Livraison prouvée",
    });
    assertEquals(resolved.status, 200, resolved.text);
    const rest = await askRefund(gw, key, payinId, { amount: "3000" });
    assertEquals(rest.status, 201, rest.text);
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
  }),
);

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
