// Money out end to end over HTTP, as README tells a merchant: a USDT pay-in on the devnet, an address
// whitelisted, a payout that waits for the hot wallet, the sweep it pulls forward, the payout confirmed at
// 20 with every webhook signed; then withdrawals through operator review: approved and confirmed, one
// rejected, one cancelled, with the balance restored.
import { assert, assertEquals } from "../assert.ts";
import { approvedMerchant, jsonClient, startGateway, until } from "./process.ts";
import { startReceiver } from "./receiver.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";

Deno.test({
  name: "money out end to end: pay-in, sweep, payout confirmed at 20, withdrawals reviewed",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-moneyout-" });
    const receiver = startReceiver();
    const gw = await startGateway({ DATA_DIR: dataDir, ADMIN_TOKEN, DEVNET_BLOCK_MS: "300" });
    const { call, admin } = jsonClient(gw.url, ADMIN_TOKEN);
    const balanceOf = async (address: string) =>
      (await (await fetch(`${gw.url}/devnet/control/balance/${address}`)).json()).usdt as string;
    try {
      const { key } = await approvedMerchant(gw.url, ADMIN_TOKEN);
      const api = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
        call(method, path, { "x-api-key": key, ...extra }, body);
      const endpoint = await api("POST", "/v1/webhooks/endpoints", {
        url: receiver.url,
        events: [
          "payout.requested",
          "payout.approved",
          "payout.broadcast",
          "payout.confirmed",
          "withdrawal.approved",
          "withdrawal.broadcast",
          "withdrawal.confirmed",
        ],
      });
      receiver.setSecret(endpoint.json.data.secret);
      const wallet = async () =>
        (await api("GET", "/v1/wallets/balance")).json.data.balances.find((b: { currency: string }) =>
          b.currency === "USDT_TRC20"
        ).balance as string;

      await t.step("a customer pays 101.5 USDT; the merchant is credited 98.5", async () => {
        const payin = await api("POST", "/v1/payments", { amount: "100" });
        const transfer = await fetch(`${gw.url}/devnet/control/transfer`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ to: payin.json.data.address, amount: "101.5" }),
        });
        assertEquals(transfer.status, 200);
        await until("pay-in confirmed", async () => {
          const p = await api("GET", `/v1/payments/${payin.json.data.transactionId}`);
          return p.json.data.status === "CONFIRMED" ? true : undefined;
        }, 60_000);
        assertEquals(await wallet(), "98.500000");
      });

      const dest = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";
      await t.step("the merchant whitelists a recipient for payouts and withdrawals", async () => {
        const res = await api("POST", "/v1/wallets/whitelist", {
          address: dest,
          label: "Supplier",
          usageContexts: ["PAYOUT", "WITHDRAWAL"],
        });
        assertEquals(res.status, 201);
      });

      await t.step(
        "a payout pulls a sweep forward, is broadcast, and confirms at 20 with signed webhooks",
        async () => {
          // Credits are spendable once solidified (19 blocks behind the head): a few seconds on this devnet.
          // A merchant asks the estimate, once a second, rather than spend its payout rate limit.
          for (let i = 0; i < 60; i++) {
            const estimate = await api("POST", "/v1/payout/estimate", {
              amount: "20",
              destinationAddress: dest,
            });
            if (estimate.json.data?.sufficient) break;
            await new Promise((r) => setTimeout(r, 1000));
          }
          const payout = await api("POST", "/v1/payout", { amount: "20", destinationAddress: dest }, {
            "idempotency-key": crypto.randomUUID(),
          });
          assertEquals(payout.status, 201, JSON.stringify(payout.json));
          const id = payout.json.data.transactionId;
          const confirmed = await receiver.waitFor(
            (w) => w.event === "payout.confirmed" && w.data.transactionId === id,
            120_000,
          );
          assert(confirmed.signatureValid);
          for (const event of ["payout.requested", "payout.approved", "payout.broadcast"]) {
            const got = await receiver.waitFor((w) => w.event === event && w.data.transactionId === id);
            assert(got.signatureValid, event);
          }
          assertEquals(await balanceOf(dest), "20");
          assertEquals((await api("GET", `/v1/payout/${id}`)).json.data.status, "CONFIRMED");
          assertEquals(await wallet(), "77.500000");
          const treasury = (await admin("GET", "/admin/api/treasury")).json.data;
          assertEquals(treasury.awaitingSweep.usdt, "0.000000");
          assertEquals(treasury.reconciliation.shortfall, false);
        },
      );

      await t.step("a withdrawal waits for review, is approved, and confirms on chain", async () => {
        const w = await api("POST", "/v1/withdrawals", { amount: "30" }, {
          "idempotency-key": crypto.randomUUID(),
        });
        assertEquals([w.status, w.json.data.status, w.json.data.netAmount], [
          201,
          "PENDING_REVIEW",
          "29.000000",
        ]);
        const approved = await admin("POST", `/admin/api/review/${w.json.data.id}/approve`, {
          reviewer: "awa",
        });
        assertEquals(approved.json.data.item.status, "APPROVED");
        const done = await receiver.waitFor(
          (r) => r.event === "withdrawal.confirmed" && r.data.id === w.json.data.id,
          120_000,
        );
        assert(done.signatureValid);
        assertEquals(await balanceOf(dest), "49");
        assertEquals(await wallet(), "47.500000");
      });

      await t.step("one withdrawal rejected, one cancelled: the balance is restored each time", async () => {
        const a = await api("POST", "/v1/withdrawals", { amount: "10" }, {
          "idempotency-key": crypto.randomUUID(),
        });
        const b = await api("POST", "/v1/withdrawals", { amount: "7" }, {
          "idempotency-key": crypto.randomUUID(),
        });
        assertEquals(await wallet(), "30.500000");
        const rejected = await admin("POST", `/admin/api/review/${a.json.data.id}/reject`, {
          reviewer: "awa",
          note: "destination not verified",
        });
        assertEquals(rejected.json.data.item.status, "REJECTED");
        const cancelled = await api("DELETE", `/v1/withdrawals/${b.json.data.id}`);
        assertEquals(cancelled.json.data.status, "CANCELLED");
        assertEquals(await wallet(), "47.500000");
        assertEquals(await balanceOf(dest), "49");
      });
    } finally {
      await gw.stop();
      await receiver.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
