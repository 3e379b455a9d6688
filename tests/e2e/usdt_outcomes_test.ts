// Every USDT outcome over HTTP against the real server, with a devnet that mines only when told to, so
// each confirmation and the reorg happen exactly when the test says. (Expiry and late funds need 15
// minutes to pass; they are driven with a manual clock in tests/api/payins_usdt_test.ts.)
import { assert, assertEquals } from "../assert.ts";
import { signAgreement, startGateway, until } from "./process.ts";
import { startReceiver } from "./receiver.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";

Deno.test({
  name: "USDT outcomes over HTTP: underpaid, overpaid, two transfers, dust, reorg",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-outcomes-" });
    const receiver = startReceiver();
    const gw = await startGateway({ DATA_DIR: dataDir, ADMIN_TOKEN, DEVNET_BLOCK_MS: "0" });
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${gw.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    const merchant = await post("/admin/api/merchants", { name: "Outcomes", kybStatus: "APPROVED" }, {
      authorization: `Bearer ${ADMIN_TOKEN}`,
    });
    const key: string = merchant.data.keys.liveSecret;
    await signAgreement(gw.url, key);
    // The test polls every 100 ms, far above the default 100 requests a minute.
    await fetch(`${gw.url}/admin/api/merchants/${merchant.data.merchantId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ rateLimits: { default: 100000, "POST /v1/payments": 1000 } }),
    }).then((r) => r.body?.cancel());
    const api = (path: string, body?: unknown) =>
      body === undefined
        ? fetch(`${gw.url}${path}`, { headers: { "x-api-key": key } }).then((r) => r.json())
        : post(path, body, { "x-api-key": key });
    const mine = (blocks: number) => post("/devnet/control/mine", { blocks });
    const pay = (to: string, amount: string) => post("/devnet/control/transfer", { to, amount });
    const status = async (id: string) => (await api(`/v1/payments/${id}`)).data;
    const settledAs = (id: string, wanted: string) =>
      until(`${id} ${wanted}`, async () => {
        const p = await status(id);
        return p.status === wanted ? p : undefined;
      });
    const balance = async () => (await api("/v1/merchant/balances/USDT_TRC20")).data.total as string;

    try {
      const endpoint = await api("/v1/webhooks/endpoints", {
        url: receiver.url,
        events: ["payin.underpaid", "payin.overpaid", "payin.failed", "payin.confirmed"],
      });
      receiver.setSecret(endpoint.data.secret);
      await mine(1);

      await t.step("underpaid and overpaid: credited what arrived, with shortfall and surplus", async () => {
        const under = (await api("/v1/payments", { amount: "20" })).data;
        const over = (await api("/v1/payments", { amount: "20" })).data;
        await pay(under.address, "15");
        await pay(over.address, "25");
        await mine(5);
        const u = await settledAs(under.transactionId, "UNDERPAID");
        const o = await settledAs(over.transactionId, "OVERPAID");
        assertEquals([u.amountReceived, u.netAmount], ["15.000000", "13.297500"]);
        assertEquals([o.amountReceived, o.netAmount], ["25.000000", "23.147500"]);
        const uh = await receiver.waitFor((w) =>
          w.event === "payin.underpaid" && w.data.transactionId === under.transactionId
        );
        const oh = await receiver.waitFor((w) =>
          w.event === "payin.overpaid" && w.data.transactionId === over.transactionId
        );
        assert(uh.signatureValid && oh.signatureValid);
        assertEquals([uh.data.shortfall, oh.data.surplus], ["6.500000", "3.500000"]);
        assertEquals(await balance(), "36.445000");
      });

      await t.step("two transfers add up to one CONFIRMED settlement", async () => {
        const p = (await api("/v1/payments", { amount: "8" })).data;
        await pay(p.address, "4");
        await mine(2);
        await pay(p.address, "5.5");
        await mine(4);
        await until(
          "second transfer seen",
          async () => (await status(p.transactionId)).amountReceived === "9.500000" || undefined,
        );
        assertEquals((await status(p.transactionId)).status, "CONFIRMING");
        await mine(1);
        const done = await settledAs(p.transactionId, "CONFIRMED");
        assertEquals(done.amountReceived, "9.500000");
        await receiver.waitFor((w) =>
          w.event === "payin.confirmed" && w.data.transactionId === p.transactionId
        );
      });

      await t.step("dust below the network fee: FAILED with BELOW_DUST_THRESHOLD", async () => {
        const p = (await api("/v1/payments", { amount: "10" })).data;
        await pay(p.address, "1");
        await mine(5);
        const failed = await settledAs(p.transactionId, "FAILED");
        assertEquals(failed.failureReason, "BELOW_DUST_THRESHOLD");
        const hook = await receiver.waitFor((w) =>
          w.event === "payin.failed" && w.data.transactionId === p.transactionId
        );
        assertEquals(hook.data.reason, "BELOW_DUST_THRESHOLD");
      });

      await t.step("a reorg before 5 confirmations drops the transfer and credits nothing", async () => {
        const before = await balance();
        const p = (await api("/v1/payments", { amount: "6" })).data;
        await pay(p.address, "7.5");
        await mine(2);
        await settledAs(p.transactionId, "CONFIRMING");
        await post("/devnet/control/reorg", { depth: 3 });
        await mine(8);
        const back = await settledAs(p.transactionId, "AWAITING_PAYMENT");
        assertEquals(back.amountReceived, "0.000000");
        assertEquals(await balance(), before);
      });
    } finally {
      await gw.stop();
      await receiver.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
