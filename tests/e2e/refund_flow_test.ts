// Refunds on every rail end to end over HTTP against the real server, as a merchant and an operator would
// drive them: a card, a mobile money and a USDT pay-in paid as customers pay, each refunded in part
// (asked with an Idempotency-Key, approved by an operator, the USDT customer giving an address on the
// signed page) until `COMPLETED`, with the merchant's receiver verifying every signed refund.* delivery.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { approvedMerchant, startGateway, until } from "./process.ts";
import { startReceiver } from "./receiver.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";
/** A customer's own TRON address (README's example). */
const CUSTOMER_ADDRESS = "TK6W91FmNg9bBof4c9HJX7M3TYoaoCYZjb";

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test({
  name: "refunds end to end: card, mobile money and USDT to COMPLETED, every refund.* webhook verified",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-refunds-" });
    const port = freePort();
    const gw = await startGateway({
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SIMULATOR_DELAY_MS: "300",
      DEVNET_BLOCK_MS: "300",
    });
    const receiver = startReceiver();
    try {
      const { key } = await approvedMerchant(gw.url, ADMIN_TOKEN);
      const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
        const res = await fetch(`${gw.url}${path}`, {
          method,
          headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        return { status: res.status, json: await res.json() };
      };
      const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
        call(method, path, { "x-api-key": key, ...headers }, body);
      const endpoint = await api("POST", "/v1/webhooks/endpoints", {
        url: receiver.url,
        events: ["refund.created", "refund.approved", "refund.rejected", "refund.completed", "refund.failed"],
      });
      assertEquals(endpoint.status, 201, JSON.stringify(endpoint.json));
      receiver.setSecret(endpoint.json.data.secret);

      // Polled under the key's read limit (100 a minute): a refusal (429) is "not yet", not a failure.
      const polled = (path: string, status: string) =>
        until(`${path} ${status}`, async () => {
          await new Promise((r) => setTimeout(r, 700));
          const r = await api("GET", path);
          return r.status === 200 && r.json.data.status === status ? r.json.data : undefined;
        }, 150_000);
      const payinStatus = (id: string, status: string) => polled(`/v1/payments/${id}`, status);
      const refundStatus = (id: string, status: string) => polled(`/v1/refunds/${id}`, status);
      /** Asks the refund, checks it waits for approval, and has an operator approve it. */
      const askAndApprove = async (payinId: string, amount: string) => {
        const idem = { "idempotency-key": crypto.randomUUID() };
        const asked = await api("POST", `/v1/payments/${payinId}/refunds`, { amount, reason: "e2e" }, idem);
        assertEquals(asked.status, 201, JSON.stringify(asked.json));
        assertEquals(asked.json.data.status, "PENDING_APPROVAL");
        const again = await api("POST", `/v1/payments/${payinId}/refunds`, { amount, reason: "e2e" }, idem);
        assertEquals(
          again.json.data.refundId,
          asked.json.data.refundId,
          "a retried request is the same refund",
        );
        const ok = await call("POST", `/admin/api/refunds/${asked.json.data.refundId}/approve`, {
          authorization: `Bearer ${ADMIN_TOKEN}`,
        }, { note: "Checked with the shop", reviewer: "ops@example.bf" });
        assertEquals(ok.status, 200, JSON.stringify(ok.json));
        return asked.json.data.refundId as string;
      };
      /** The three refund.* deliveries of a refund, each signed and verified; the completed one's data. */
      const verifiedHooks = async (refundId: string) => {
        const completed = await receiver.waitFor((w) =>
          w.event === "refund.completed" && w.data.refundId === refundId
        );
        // Deliveries run concurrently: the earlier events may still be on their way.
        const mine = await until(`${refundId}'s three deliveries`, () => {
          const got = receiver.received.filter((w) => w.data.refundId === refundId);
          return Promise.resolve(got.length >= 3 ? got : undefined);
        });
        for (const w of mine) assert(w.signatureValid, `${w.event} verifies`);
        assertEquals(mine.map((w) => w.event).sort(), [
          "refund.approved",
          "refund.completed",
          "refund.created",
        ]);
        assertEquals([completed.livemode, completed.data.status], [true, "COMPLETED"]);
        return completed.data;
      };

      await t.step("card: paid on the acquirer's form, 4,000 refunded by the acquirer", async () => {
        const p = (await api("POST", "/v1/payments", {
          amount: "10000",
          paymentMethod: "CARD",
          customerName: "Awa Ouedraogo",
          customerEmail: "awa@example.bf",
        })).json.data;
        const paid = await fetch(p.hostedPaymentUrl, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ number: "4242424242424242", expiry: "12/39", cvc: "123" }),
          redirect: "manual",
        });
        await paid.body?.cancel();
        await payinStatus(p.transactionId, "CONFIRMED");
        const refundId = await askAndApprove(p.transactionId, "4000");
        const done = await refundStatus(refundId, "COMPLETED");
        assertMatch(done.providerRef, /^sim_rfd_/);
        const hook = await verifiedHooks(refundId);
        assertEquals([hook.transactionId, hook.amount, hook.paymentMethod], [
          p.transactionId,
          "4000",
          "CARD",
        ]);
      });

      await t.step("mobile money: paid by SMS code, 2,000 sent back to the paying number", async () => {
        const p = (await api("POST", "/v1/payments", {
          amount: "5000",
          paymentMethod: "MOBILE_MONEY",
          customerPhone: "+22654123456",
        })).json.data;
        const otp = await api("POST", `/v1/payments/${p.transactionId}/submit-otp`, { otp: "123456" });
        assertEquals(otp.status, 200, JSON.stringify(otp.json));
        await payinStatus(p.transactionId, "CONFIRMED");
        const refundId = await askAndApprove(p.transactionId, "2000");
        await refundStatus(refundId, "COMPLETED");
        const hook = await verifiedHooks(refundId);
        assertEquals([hook.transactionId, hook.amount, hook.paymentMethod], [
          p.transactionId,
          "2000",
          "MOBILE_MONEY",
        ]);
      });

      await t.step(
        "USDT: paid on the devnet, 5 USDT paid to the address given on the signed page",
        async () => {
          const p = (await api("POST", "/v1/payments", { amount: "10" })).json.data;
          const sent = await fetch(`${gw.url}/devnet/control/transfer`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ to: p.address, amount: "11.5" }),
          });
          assertEquals(sent.status, 200, await sent.text());
          await payinStatus(p.transactionId, "CONFIRMED");
          const refundId = await askAndApprove(p.transactionId, "5");
          const approved = (await api("GET", `/v1/refunds/${refundId}`)).json.data;
          assertEquals(approved.status, "APPROVED");
          const page = await fetch(approved.customerPageUrl);
          assert((await page.text()).includes("5.000000"), "the page shows the amount");
          const posted = await fetch(approved.customerPageUrl, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ address: CUSTOMER_ADDRESS }),
          });
          assertEquals(posted.status, 200, await posted.text());
          const done = await refundStatus(refundId, "COMPLETED");
          assertEquals(done.destinationAddress, CUSTOMER_ADDRESS);
          assertMatch(done.providerRef, /^[0-9a-f]{64}$/);
          const hook = await verifiedHooks(refundId);
          assertEquals([hook.transactionId, hook.amount, hook.currency], [
            p.transactionId,
            "5.000000",
            "USDT_TRC20",
          ]);
          const balance = await (await fetch(`${gw.url}/devnet/control/balance/${CUSTOMER_ADDRESS}`)).json();
          assertEquals(Number(balance.usdt), 5, JSON.stringify(balance));
        },
      );
    } finally {
      await gw.stop();
      await receiver.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
