// README's USDT payout walk-through on the real process with blocks produced on time (every second here,
// every 3 s by default), several sweeps in a row: the first sweep uses the hot wallet's energy, so every
// later one must stake more (or fall back to TRX); a payout that waits for the hot wallet still confirms
// within minutes, an approved withdrawal too, and two payouts accepted in the same second against one hot
// wallet both confirm, neither reverted. Nothing is mined on demand.
import { assert, assertEquals } from "../assert.ts";
import { approvedMerchant, jsonClient, startGateway } from "./process.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";
const MINUTES = 60_000;

/** Polls `probe` once a second (as a merchant would) until it answers something other than undefined. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test({
  name: "sweeps in a row on on-time blocks: every payout and withdrawal confirms, none reverts",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-sweeps-" });
    const gw = await startGateway({ DATA_DIR: dataDir, ADMIN_TOKEN, DEVNET_BLOCK_MS: "1000" });
    const { call, admin } = jsonClient(gw.url, ADMIN_TOKEN);
    const timings: string[] = [];
    const timed = async <T>(what: string, fn: () => Promise<T>) => {
      const started = Date.now();
      const out = await fn();
      timings.push(`${what}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
      return out;
    };
    try {
      const { key, merchantId } = await approvedMerchant(gw.url, ADMIN_TOKEN);
      // The test polls each item once a second, several at a time: more than a key's 100 requests a minute.
      await admin("PATCH", `/admin/api/merchants/${merchantId}`, {
        rateLimits: { default: 1000 },
      });
      const api = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
        call(method, path, { "x-api-key": key, ...extra }, body);
      const transfer = async (to: string, amount: string) => {
        const res = await fetch(`${gw.url}/devnet/control/transfer`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ to, amount }),
        });
        assertEquals(res.status, 200);
      };
      const pay = async (amount: string, sent: string) => {
        const payin = await api("POST", "/v1/payments", { amount });
        await transfer(payin.json.data.address, sent);
        await until("pay-in confirmed", async () => {
          const p = await api("GET", `/v1/payments/${payin.json.data.transactionId}`);
          return p.json.data.status === "CONFIRMED" ? true : undefined;
        }, 2 * MINUTES);
      };
      const treasury = async () => (await admin("GET", "/admin/api/treasury")).json.data;
      const sweptAll = () =>
        until("every deposit swept", async () => {
          const now = await treasury();
          return now.awaitingSweep.addresses === 0 ? now : undefined;
        }, 4 * MINUTES);
      const dest = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";
      await api("POST", "/v1/wallets/whitelist", { address: dest, usageContexts: ["PAYOUT", "WITHDRAWAL"] });
      const payout = async (amount: string) => {
        const res = await api("POST", "/v1/payout", { amount, destinationAddress: dest }, {
          "idempotency-key": crypto.randomUUID(),
        });
        assertEquals(res.status, 201, JSON.stringify(res.json));
        return res.json.data.transactionId as string;
      };
      const finalOf = (path: string) =>
        until(`${path} final`, async () => {
          const s = (await api("GET", path)).json.data.status;
          return s === "CONFIRMED" || s === "FAILED" ? s : undefined;
        }, 5 * MINUTES);
      /** Waits until the spendable balance covers `total` (credits solidify 19 blocks deep). */
      const spendable = (amount: string) =>
        until("spendable", async () => {
          const e = await api("POST", "/v1/payout/estimate", { amount, destinationAddress: dest });
          return e.json.data?.sufficient ? true : undefined;
        }, 2 * MINUTES);

      await t.step("a 10 USDT pay-in confirms and is swept on its own (energy lent)", async () => {
        await timed("pay-in 10 confirmed", () => pay("10", "11.5"));
        const after = await timed("first sweep done", sweptAll);
        assertEquals(after.hotWallet.usdt, "11.500000");
      });

      await t.step(
        "a second pay-in, then a 20 USDT payout: a second sweep stakes more and it confirms",
        async () => {
          await timed("pay-in 50 confirmed", () => pay("50", "51.5"));
          await timed("credits spendable", () => spendable("20"));
          const id = await payout("20");
          assertEquals(await timed("payout 20 CONFIRMED", () => finalOf(`/v1/payout/${id}`)), "CONFIRMED");
          const read = (await api("GET", `/v1/payout/${id}`)).json.data;
          assertEquals(read.waiting, null);
        },
      );

      await t.step("an approved withdrawal is sent and confirms", async () => {
        const w = await api("POST", "/v1/withdrawals", { amount: "15" }, {
          "idempotency-key": crypto.randomUUID(),
        });
        await admin("POST", `/admin/api/review/${w.json.data.id}/approve`, { reviewer: "awa" });
        assertEquals(
          await timed("withdrawal CONFIRMED", () => finalOf(`/v1/withdrawals/${w.json.data.id}`)),
          "CONFIRMED",
        );
      });

      await t.step(
        "four customers in two waves, then payouts of 36 and 24 in the same second: both confirm",
        async () => {
          await timed("wave 1 confirmed", () => Promise.all([pay("20", "21.5"), pay("20", "21.5")]));
          await timed("wave 1 swept", sweptAll);
          await timed("wave 2 confirmed", () => Promise.all([pay("20", "21.5"), pay("20", "21.5")]));
          await timed("wave 2 spendable", () => spendable("62"));
          const [a, b] = await Promise.all([payout("36"), payout("24")]);
          const [sa, sb] = await timed(
            "payouts 36 and 24 CONFIRMED",
            () => Promise.all([finalOf(`/v1/payout/${a}`), finalOf(`/v1/payout/${b}`)]),
          );
          assertEquals([sa, sb], ["CONFIRMED", "CONFIRMED"]);
        },
      );

      await t.step("the treasury balances, nothing waits, nothing was lost", async () => {
        const now = await timed("last sweep done", sweptAll);
        assertEquals(now.reconciliation.shortfall, false);
        assertEquals(now.waitingToSend.count, 0);
        const balance = await (await fetch(`${gw.url}/devnet/control/balance/${dest}`)).json();
        assertEquals(balance.usdt, "94"); // 20 + 14 (withdrawal net) + 36 + 24
        assert(!gw.output.some((l) => l.includes("CHAIN_REVERT")), "a payout reverted on chain");
      });
    } finally {
      console.log(`timings (1 s blocks):\n  ${timings.join("\n  ")}`);
      await gw.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
