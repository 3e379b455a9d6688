// A gateway whose LIVE money goes through one aggregator adapter pointed at its simulator by URL, with a
// merchant, pay-in helpers, and disbursements queued for a stand-in owner (what a withdrawal or a bulk
// item does, recorded in a table of the test's own in the same transaction).
import { findDisbursement } from "../../db/disbursements.ts";
import type { Db } from "../../db/mod.ts";
import { manualClock } from "../../domain/clock.ts";
import {
  type DisbursementRow,
  queueDisbursement,
  registerDisbursementFinisher,
} from "../../domain/fiat_out/disburse.ts";
import { openAggregator } from "../../domain/providers/aggregators.ts";
import { createCinetPay } from "../../rails/fiat/cinetpay/mod.ts";
import type { FiatProviderSet } from "../../rails/fiat/provider.ts";
import { startTestGateway } from "../helpers.ts";
import { CINETPAY_CREDENTIALS, startCinetPaySimulator } from "./cinetpay_simulator.ts";
import { PAYDUNYA_KEYS, startPayDunyaSimulator, TEST_WITHDRAW_MODES } from "./paydunya_simulator.ts";
import { deliverTo } from "./sim_server.ts";

registerDisbursementFinisher("BULK_ITEM", async (tx: Db, d: DisbursementRow, outcome) => {
  await tx.query("INSERT INTO test_finished (disbursement_id, status) VALUES ($1, $2)", [
    d.id,
    outcome.status,
  ]);
});

export async function startAggregatorGateway() {
  const clock = manualClock(new Date("2026-11-26T10:00:00Z"));
  const gw = await startTestGateway({ clock });
  await gw.db.exec("CREATE TABLE test_finished (disbursement_id text PRIMARY KEY, status text NOT NULL)");
  const m = await gw.createMerchant("Boutique Ouaga", "APPROVED");
  await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
    rateLimits: { "POST /v1/payments": 1000, default: 1000 },
  });
  const key = m.keys.liveSecret;
  const { deliver, answers } = deliverTo(gw.app);
  return {
    gw,
    clock,
    merchant: m,
    deliver,
    /** HTTP status the gateway answered to each callback the simulator delivered. */
    answers,
    /** Every live pay-in and disbursement now goes through `providers`. */
    useLive(providers: FiatProviderSet) {
      gw.deps.fiat.live = providers;
    },
    async payin(method: "CARD" | "MOBILE_MONEY", amount = "5000") {
      const body = method === "CARD"
        ? { amount, paymentMethod: "CARD", customerName: "Awa Ouedraogo", customerEmail: "awa@example.com" }
        : { amount, paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" };
      const res = await gw.request("POST", "/v1/payments", { key, body });
      if (res.status !== 201) throw new Error(`pay-in refused: ${res.text}`);
      return res.json.data as { transactionId: string; status: string; hostedPaymentUrl?: string };
    },
    async payinStatus(id: string): Promise<string> {
      return (await gw.request("GET", `/v1/payments/${id}`, { key })).json.data.status;
    },
    /** How many times the pay-in was credited (journals are unique per reference: 0 or 1). */
    async credits(id: string): Promise<number> {
      const rows = await gw.db.query("SELECT 1 FROM journals WHERE reference = $1", [`payin:${id}`]);
      return rows.length;
    },
    queue(phone: string, amount = "2500") {
      const reference = `bulk:${crypto.randomUUID()}`;
      return gw.db.tx((tx) =>
        queueDisbursement(tx, {
          reference,
          owner: { kind: "BULK_ITEM", id: `item_${reference}` },
          merchantId: m.merchantId,
          isSandbox: false,
          channel: "MOMO",
          amount,
          destination: {
            kind: "MOMO",
            momoOperator: phone.startsWith("+2267") ? "OPERATOR_B_BF" : "OPERATOR_A_BF",
            momoPhone: phone,
          },
          now: clock.now(),
        })
      );
    },
    async disbursement(id: string) {
      const row = (await findDisbursement(gw.db, id))!;
      const done = await gw.db.query("SELECT 1 FROM test_finished WHERE disbursement_id = $1", [id]);
      return {
        status: row.status,
        reason: row.failure_reason,
        reference: row.reference,
        finished: done.length,
      };
    },
    /** Moves the clock to the subject's next poll (its backoff), if one is scheduled. */
    async untilPollDue(kind: "PAYIN" | "DISBURSEMENT", id: string) {
      const rows = await gw.db.query<{ next_poll_at: Date }>(
        "SELECT next_poll_at FROM provider_polls WHERE subject_kind = $1 AND subject_id = $2",
        [kind, id],
      );
      const due = rows[0] ? new Date(rows[0].next_poll_at).getTime() : 0;
      if (due > clock.now().getTime()) clock.set(new Date(due));
    },
    async held(kind: "PAYIN" | "DISBURSEMENT", id: string): Promise<string | null> {
      const rows = await gw.db.query<{ held_status: string | null }>(
        "SELECT held_status FROM provider_polls WHERE subject_kind = $1 AND subject_id = $2",
        [kind, id],
      );
      return rows[0]?.held_status ?? null;
    },
  };
}

export type AggregatorFixture = Awaited<ReturnType<typeof startAggregatorGateway>>;

/** The fixture with PayDunya's adapter, built as FIAT_PROVIDER=paydunya builds it, at PayDunya's simulator. */
export async function startPayDunyaGateway() {
  const f = await startAggregatorGateway();
  const sim = startPayDunyaSimulator(f.deliver);
  const paydunya = openAggregator(
    {
      fiat: {
        ...f.gw.deps.config.fiat,
        provider: "paydunya",
        aggregatorTimeoutMs: 3000,
        paydunya: {
          ...PAYDUNYA_KEYS,
          apiUrl: sim.url,
          storeName: "Boutique Ouaga",
          withdrawModes: TEST_WITHDRAW_MODES,
        },
      },
    },
    f.gw.db,
    { fetch },
  )!;
  f.useLive(paydunya);
  const close = async () => {
    await sim.close();
    await f.gw.close();
  };
  return { f, sim, close };
}

/** The fixture with CinetPay's adapter (collections and transfers) at CinetPay's simulator. */
export async function startCinetPayGateway() {
  const f = await startAggregatorGateway();
  const sim = startCinetPaySimulator(f.deliver);
  f.useLive(
    createCinetPay({
      ...CINETPAY_CREDENTIALS,
      apiUrl: sim.url,
      transferUrl: sim.url,
      fetch,
      timeoutMs: 3000,
    }),
  );
  const close = async () => {
    await sim.close();
    await f.gw.close();
  };
  return { f, sim, close };
}
