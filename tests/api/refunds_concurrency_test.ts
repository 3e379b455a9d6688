// 50 refund requests at once against one pay-in never give back more than it was paid; 50 identical
// requests under one Idempotency-Key make one refund; 50 approvals at once pay once.
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import {
  approve,
  askRefund,
  getRefund,
  inFlight,
  paidCard,
  roomyMerchant,
  runRefundJobs,
  xofWallet,
} from "../refund_fixture.ts";

Deno.test("refunds under concurrency: never more than paid, one refund per key, paid once", async (t) => {
  const gw = await startTestGateway();
  const m = await roomyMerchant(gw);
  const key = m.keys.liveSecret;
  try {
    await paidCard(gw, key, "100000"); // room in the wallet: the limit under test is the pay-in's amount
    const payin = await paidCard(gw, key, "10000");
    const wallet = await xofWallet(gw, key, "CARD");

    await t.step(
      "50 concurrent requests of 700 against 10000: 14 accepted, the rest REFUND_EXCEEDS_AMOUNT",
      async () => {
        const answers = await Promise.all(
          Array.from({ length: 50 }, () => askRefund(gw, key, payin, { amount: "700" })),
        );
        const accepted = answers.filter((a) => a.status === 201);
        for (const a of answers) {
          assert([201, 400, 409].includes(a.status), a.text);
          if (a.status === 400) assertEquals(a.json.error.code, "REFUND_EXCEEDS_AMOUNT");
        }
        assertEquals(accepted.length, 14, "14 x 700 = 9800 <= 10000 < 15 x 700");
        assertEquals(await xofWallet(gw, key, "CARD"), wallet - 9800);
        assertEquals(await inFlight(gw, "CARD"), 9800);
        const rest = await askRefund(gw, key, payin, {});
        assertEquals([rest.status, rest.json.data.amount], [201, "200"]);
        const list = await gw.request("GET", `/v1/refunds?transactionId=${payin}&limit=100`, { key });
        const total = list.json.data.items.reduce(
          (s: number, r: { amount: string }) => s + Number(r.amount),
          0,
        );
        assertEquals(total, 10000);
      },
    );

    await t.step("50 identical requests under one key: one refund, one reservation", async () => {
      const other = await paidCard(gw, key, "5000");
      const before = await xofWallet(gw, key, "CARD");
      const idem = crypto.randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => askRefund(gw, key, other, { amount: "1000" }, idem)),
      );
      const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.json.data.refundId));
      assertEquals(ids.size, 1);
      for (const a of answers) assert(a.status === 201 || a.json.error.code === "CONFLICT", a.text);
      assertEquals(await xofWallet(gw, key, "CARD"), before - 1000);
    });

    await t.step("50 concurrent approvals of one refund: approved once, refunded once", async () => {
      const other = await paidCard(gw, key, "4000");
      const r = (await askRefund(gw, key, other, { amount: "4000" })).json.data;
      const before = await xofWallet(gw, key, "CARD");
      const answers = await Promise.all(Array.from({ length: 50 }, () => approve(gw, r.refundId)));
      assertEquals(answers.filter((a) => a.status === 200).length, 1);
      const jobs = gw.enqueued.filter((e) => e.message.type === "refund.send").length;
      assertEquals(jobs, 1);
      await runRefundJobs(gw);
      assertEquals((await getRefund(gw, key, r.refundId)).status, "COMPLETED");
      assertEquals(gw.simulators.card.getRefund(r.refundId)?.calls, 1);
      assertEquals(await xofWallet(gw, key, "CARD"), before);
    });
  } finally {
    await gw.close();
  }
});
