// The whole story over HTTP against the real server and its devnet, as a merchant following README would
// drive it: merchant, webhook endpoint, pay-in, customer transfer, blocks, settlement, signed webhooks.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { approvedMerchant, startGateway, until } from "./process.ts";
import { startReceiver } from "./receiver.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";

Deno.test({
  name: "USDT pay-in end to end: real server, devnet, scanner, webhooks, restart",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-usdt-" });
    const receiver = startReceiver();
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN, DEVNET_BLOCK_MS: "300" };
    let gw = await startGateway(env);
    const api = async (method: string, path: string, key: string, body?: unknown) => {
      const res = await fetch(`${gw.url}${path}`, {
        method,
        headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, json: await res.json() };
    };
    const devnet = (path: string, body: unknown) =>
      fetch(`${gw.url}/devnet/control/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json());

    try {
      const { key } = await approvedMerchant(gw.url, ADMIN_TOKEN);

      await t.step("a webhook test delivery arrives at a local receiver, signed as specified", async () => {
        const endpoint = await api("POST", "/v1/webhooks/endpoints", key, {
          url: receiver.url,
          events: ["payin.created", "payin.confirming", "payin.confirmed", "deposit.confirmed"],
        });
        assertEquals(endpoint.status, 201);
        assertMatch(endpoint.json.data.secret, /^whs_/);
        receiver.setSecret(endpoint.json.data.secret);
        const test = await api("POST", "/v1/webhooks/test", key, {
          endpointId: endpoint.json.data.id,
          eventType: "payin.confirmed",
        });
        assertEquals(test.status, 200);
        const got = await receiver.waitFor((w) => w.deliveryId === test.json.data.deliveryId);
        assertEquals(got.event, "payin.confirmed");
        assert(got.signatureValid, "signature verifies with the endpoint secret");
        assertMatch(got.eventId, /^evt_/);
      });

      let payin: Record<string, string> = {};
      await t.step("create, pay, CONFIRMING then CONFIRMED; balance credited; webhooks signed", async () => {
        const res = await api("POST", "/v1/payments", key, {
          amount: "10",
          externalRef: "e2e-1",
          metadata: { cart: "A7" },
        });
        assertEquals(res.status, 201);
        payin = res.json.data;
        const createdHook = await receiver.waitFor((w) =>
          w.event === "payin.created" && w.data.transactionId === payin.transactionId
        );
        assertEquals(createdHook.data.metadata, { cart: "A7" });
        const transfer = await devnet("transfer", { to: payin.address, amount: payin.amountExpected });
        assertMatch(transfer.txID, /^[0-9a-f]{64}$/);
        await until("CONFIRMING", async () => {
          const r = await api("GET", `/v1/payments/${payin.transactionId}`, key);
          return r.json.data.status === "CONFIRMING" ? true : undefined;
        });
        const confirmed = await until("CONFIRMED", async () => {
          const r = await api("GET", `/v1/payments/${payin.transactionId}`, key);
          return r.json.data.status === "CONFIRMED" ? r.json.data : undefined;
        });
        assertEquals(confirmed.txHash, transfer.txID);
        assertEquals(confirmed.amountReceived, "11.500000");
        const balance = await api("GET", "/v1/merchant/balances/USDT_TRC20", key);
        assertEquals(balance.json.data.total, "9.850000");
        const confirming = await receiver.waitFor((w) =>
          w.event === "payin.confirming" && w.data.transactionId === payin.transactionId
        );
        const done = await receiver.waitFor((w) =>
          w.event === "payin.confirmed" && w.data.transactionId === payin.transactionId
        );
        assert(confirming.signatureValid && done.signatureValid);
        assertEquals(Object.keys(done.data).sort(), [
          "address",
          "amount",
          "amountReceived",
          "chain",
          "confirmedAt",
          "currency",
          "externalRef",
          "metadata",
          "status",
          "transactionId",
          "txHash",
        ]);
        assertEquals([done.data.status, done.data.externalRef, done.data.txHash], [
          "CONFIRMED",
          "e2e-1",
          transfer.txID,
        ]);
      });

      await t.step("killed while a payment confirms, restarted: credited exactly once", async () => {
        const res = await api("POST", "/v1/payments", key, { amount: "20" });
        const p = res.json.data;
        await devnet("transfer", { to: p.address, amount: p.amountExpected });
        await until("CONFIRMING", async () => {
          const r = await api("GET", `/v1/payments/${p.transactionId}`, key);
          return r.json.data.status === "CONFIRMING" ? true : undefined;
        });
        gw.process.kill("SIGKILL");
        await gw.process.status;
        gw = await startGateway(env);
        // The new process waits for the dead one's scanner lease to lapse: polled slowly enough to stay under
        // the key's 100 reads a minute, and any refusal meanwhile is only "not yet".
        const confirmed = await until("CONFIRMED after restart", async () => {
          await new Promise((r) => setTimeout(r, 700));
          const r = await api("GET", `/v1/payments/${p.transactionId}`, key);
          return r.json.data?.status === "CONFIRMED" ? r.json.data : undefined;
        }, 120_000);
        assertEquals(confirmed.netAmount, "19.700000"); // 21.5 received - 1.5 network fee = 20, less 1.5 %
        const balance = await api("GET", "/v1/merchant/balances/USDT_TRC20", key);
        assertEquals(balance.json.data.total, "29.550000"); // 9.85 + 19.70, each once
        await receiver.waitFor((w) =>
          w.event === "payin.confirmed" && w.data.transactionId === p.transactionId
        );
        const hooks = receiver.received.filter((w) =>
          w.event === "payin.confirmed" && w.data.transactionId === p.transactionId
        );
        assertEquals(new Set(hooks.map((h) => h.eventId)).size, 1, "one event, however many deliveries");
      });
    } finally {
      await gw.stop();
      await receiver.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
