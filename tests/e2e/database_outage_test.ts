// A PostgreSQL server that goes away for a few seconds under load: requests answer 503
// SERVICE_UNAVAILABLE quickly and never hang, creation works again once it is back, and the work that was
// pending (webhook deliveries, a pay-in being paid on chain) completes exactly once.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { fillAddressPool } from "../../domain/payins/address_pool.ts";
import { updateMerchantSettings } from "../../domain/merchants/mod.ts";
import { dispatchJob } from "../../jobs/mod.ts";
import { handleWebhookSweep } from "../../jobs/webhook_delivery.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { clusterUnavailable, createCluster } from "./pg_cluster.ts";
import { until } from "./process.ts";
import { startReceiver } from "./receiver.ts";

const skipReason = clusterUnavailable();
if (skipReason) console.log(`database outage test skipped: ${skipReason}`);

/** The longest any request may take while the database is away (connect timeout is 3 s). */
const ANSWER_BOUND_MS = 5_000;
const OUTAGE_MS = 4_000;
const CLIENTS = 8;

type Answer = {
  status: number;
  code?: string;
  retryAfter: string | null;
  ms: number;
  at: number;
  id?: string;
};

Deno.test({
  name: "the database stops for a few seconds under load: fast 503s, then everything carries on once",
  ignore: skipReason !== undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const cluster = await createCluster();
    const receiver = startReceiver();
    const gw = await startTestGateway({ env: { DATABASE_URL: cluster.url } });
    try {
      const m = await gw.createMerchant("Outage");
      const key = m.keys.liveSecret;
      // The load is many clients of one merchant: out of the way of its rate limit.
      await updateMerchantSettings(gw.deps, m.merchantId, {
        rateLimits: { "POST /v1/payments": 1_000_000, default: 1_000_000 },
      });
      const endpoint = await gw.request("POST", "/v1/webhooks/endpoints", {
        key,
        body: { url: receiver.url, events: ["payin.created", "payin.confirming", "payin.confirmed"] },
      });
      assertEquals(endpoint.status, 201, endpoint.text);
      receiver.setSecret(endpoint.json.data.secret);
      gw.devnet.mine(2);
      await scanChain(gw.deps);
      // Addresses derived ahead, as the server's pool job does: the load measures the database, not HD maths.
      await fillAddressPool({ ...gw.deps, config: { ...gw.deps.config, addressPoolSize: 400 } }, false);

      // Before the outage: a pay-in paid on chain but not yet scanned, and deliveries queued, not sent.
      const paid = await gw.request("POST", "/v1/payments", { key, body: { amount: "10" } });
      assertEquals(paid.status, 201, paid.text);
      gw.devnet.transferUsdt(paid.json.data.address, 11_500_000n);
      gw.devnet.mine(1);

      const answers: Answer[] = [];
      let loading = true;
      const client = async () => {
        while (loading) {
          const t0 = performance.now();
          const res = await gw.request("POST", "/v1/payments", { key, body: { amount: "10" } });
          answers.push({
            status: res.status,
            code: res.json?.error?.code,
            retryAfter: res.headers.get("retry-after"),
            ms: performance.now() - t0,
            at: Date.now(),
            id: res.json?.data?.transactionId,
          });
          if (res.status !== 201) await new Promise((r) => setTimeout(r, 50));
        }
      };
      const clients = Array.from({ length: CLIENTS }, client);
      await new Promise((r) => setTimeout(r, 1_000));

      await cluster.stop();
      const stoppedAt = Date.now();
      // While it is away: the jobs run and fail without sending anything or losing their rows.
      gw.devnet.mine(gw.deps.config.tron.payinConfirmations);
      const pending = gw.enqueued.filter((e) => e.message.type === "webhook.deliver").map((e) => e.message);
      for (const message of pending.slice(0, 3)) await dispatchJob(message, gw.deps).catch(() => {});
      await scanChain(gw.deps).catch(() => {});
      assertEquals(receiver.received.length, 0, "nothing is delivered while the database is away");
      await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));
      await cluster.start();
      const restartedAt = Date.now();
      const deadline = restartedAt + 15_000;
      while (!answers.some((a) => a.at > restartedAt && a.status === 201) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      loading = false;
      await Promise.all(clients);

      const t = (ms: number) => Math.round(ms);
      console.log(
        `${answers.length} answers: ${answers.filter((a) => a.status === 201).length} created, ` +
          `${answers.filter((a) => a.status === 503).length} x 503; back ${
            t(Date.now() - restartedAt)
          } ms after restart`,
      );
      console.log(
        answers.filter((a) => a.ms > 1000).map((a) =>
          `${a.status} ${t(a.ms)} ms, ended ${t(a.at - stoppedAt)} ms after the stop`
        ).join("\n"),
      );
      const during = answers.filter((a) => a.status !== 201);
      assert(during.length > 0, "the outage was seen by the clients");
      for (const a of during) {
        assertEquals([a.status, a.code, a.retryAfter], [503, "SERVICE_UNAVAILABLE", "2"]);
      }
      const slowest = Math.max(...answers.map((a) => a.ms));
      assert(slowest < ANSWER_BOUND_MS, `every answer within ${ANSWER_BOUND_MS} ms (slowest ${slowest} ms)`);
      assert(answers.some((a) => a.at > restartedAt && a.status === 201), "creation works again");

      // Every 201 the clients got is a pay-in that exists: nothing acknowledged was lost.
      const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.id!);
      const stored = await gw.db.query<{ id: string }>("SELECT id FROM payins WHERE id = ANY($1)", [
        acknowledged,
      ]);
      assertEquals(stored.length, acknowledged.length);

      // Back: the scanner catches up and settles the paid pay-in once.
      await scanChain(gw.deps);
      const settled = await gw.request("GET", `/v1/payments/${paid.json.data.transactionId}`, { key });
      assertEquals(settled.json.data.status, "CONFIRMED");
      const balance = await gw.request("GET", "/v1/merchant/balances/USDT_TRC20", { key });
      assertEquals(balance.json.data.total, settled.json.data.netAmount, "credited once");

      // The deliveries pending through the outage, redelivered twice over (a lost message's sweep and a
      // duplicate, in two workers at once), each reach the receiver exactly once.
      await handleWebhookSweep(gw.deps);
      const all = gw.enqueued.filter((e) => e.message.type === "webhook.deliver").map((e) => e.message);
      await Promise.all(
        [all, all].map((round) => Promise.all(round.map((msg) => dispatchJob(msg, gw.deps)))),
      );
      // A delivery message only wakes the process's delivery pump; wait until it has finished them all.
      const rows = await until("every delivery settled", async () => {
        const now = await gw.db.query<{ id: string; status: string }>(
          "SELECT id, status FROM webhook_deliveries ORDER BY id",
        );
        return now.every((r) => r.status !== "PENDING") ? now : undefined;
      }, 30_000);
      assert(
        rows.length >= acknowledged.length,
        "one payin.created delivery per acknowledged pay-in at least",
      );
      assertEquals(rows.filter((r) => r.status !== "SUCCEEDED"), []);
      const receivedIds = receiver.received.map((r) => r.deliveryId).sort();
      assertEquals(receivedIds, rows.map((r) => r.id), "each delivery received exactly once");
      assert(receiver.received.every((r) => r.signatureValid));
    } finally {
      await gw.close().catch(() => {});
      await receiver.stop();
      await cluster.destroy();
    }
  },
});
