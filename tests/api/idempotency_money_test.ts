// idempotentMoney on a probe money route (tests/support/money_probe.ts): a transfer from the merchant's
// live wallet to WORLD through postJournal, its idempotency record completed in the same transaction.
import type { Db } from "../../db/mod.ts";
import { postJournal } from "../../domain/ledger.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { moneyProbeApp, transferRequest, WORLD_LIVE_TRC20 } from "../support/money_probe.ts";

const FUNDED = "100";

async function balanceOf(db: Db, accountId: string): Promise<Decimal> {
  const rows = await db.query<{ balance: string }>("SELECT balance::text FROM accounts WHERE id = $1", [
    accountId,
  ]);
  return new Decimal(rows[0].balance);
}

for (const design of ["in-transaction", "in-transaction-middleware"] as const) {
  Deno.test(`idempotent money route (${design === "in-transaction" ? "idempotentMoney" : "idempotentMoneyRoute"})`, async (t) => {
    const gw = await startTestGateway();
    try {
      const { merchantId } = await gw.createMerchant("Money Shop");
      const [{ id: walletId }] = await gw.db.query<{ id: string }>(
        `SELECT id FROM accounts WHERE merchant_id = $1 AND is_sandbox = false AND kind = 'WALLET' AND rail = 'TRC20'`,
        [merchantId],
      );
      const fund = (amount: string) =>
        postJournal(gw.db, {
          reference: `fund:${crypto.randomUUID()}`,
          kind: "probe_funding",
          merchantId,
          isSandbox: false,
          postings: [{ accountId: WORLD_LIVE_TRC20, amount: `-${amount}` }, { accountId: walletId, amount }],
        });
      await fund(FUNDED);
      const app = moneyProbeApp({
        deps: gw.deps,
        merchantId,
        walletId,
        design,
        pauseAt: "none",
        pause: () => Promise.resolve(),
      });
      const send = async (key: string, amount: string, extra: Record<string, unknown> = {}) => {
        const res = await app.request(transferRequest(key, amount, extra));
        return {
          status: res.status,
          replayed: res.headers.get("Idempotent-Replayed"),
          json: await res.json(),
        };
      };
      const balance = () => balanceOf(gw.db, walletId);

      await t.step("the same key and body moves the money once and replays the answer", async () => {
        const before = await balance();
        const key = crypto.randomUUID();
        const first = await send(key, "3");
        assertEquals([first.status, first.replayed], [201, null]);
        const second = await send(key, "3");
        assertEquals([second.status, second.replayed], [201, "true"]);
        assertEquals(second.json, first.json);
        assertEquals(before.minus(await balance()).toFixed(), "3");
      });

      await t.step(
        "the same key with another amount: 409 IDEMPOTENCY_KEY_MISMATCH, nothing moves",
        async () => {
          const key = crypto.randomUUID();
          await send(key, "1");
          const before = await balance();
          const other = await send(key, "2");
          assertEquals([other.status, other.json.error.code], [409, "IDEMPOTENCY_KEY_MISMATCH"]);
          assertEquals((await balance()).toFixed(), before.toFixed());
        },
      );

      await t.step("50 concurrent identical requests: money moves once, no 500", async () => {
        const before = await balance();
        const key = crypto.randomUUID();
        const answers = await Promise.all(Array.from({ length: 50 }, () => send(key, "2")));
        const fresh = answers.filter((a) => a.status === 201 && a.replayed === null);
        assertEquals(fresh.length, 1);
        for (const a of answers) {
          assert(
            (a.status === 201 && a.json.data.journalId === fresh[0].json.data.journalId) ||
              (a.status === 409 && a.json.error.code === "CONFLICT"),
            `unexpected answer ${a.status} ${JSON.stringify(a.json)}`,
          );
        }
        assertEquals(before.minus(await balance()).toFixed(), "2");
      });

      await t.step("a crash after the movement rolls it back and keeps nothing: the retry runs", async () => {
        const before = await balance();
        const key = crypto.randomUUID();
        const failed = await send(key, "4", { explode: true });
        assertEquals([failed.status, failed.json.error.code], [500, "INTERNAL_ERROR"]);
        assertEquals((await balance()).toFixed(), before.toFixed());
        const retried = await send(key, "4", { explode: true });
        assertEquals(retried.status, 500);
        assertEquals((await balance()).toFixed(), before.toFixed());
      });

      await t.step(
        "a validation refusal is not kept: the fixed request runs under the same key",
        async () => {
          const before = await balance();
          const key = crypto.randomUUID();
          const refused = await send(key, "ten");
          assertEquals([refused.status, refused.json.error.code], [400, "VALIDATION_ERROR"]);
          const fixed = await send(key, "5");
          assertEquals([fixed.status, fixed.replayed], [201, null]);
          assertEquals(before.minus(await balance()).toFixed(), "5");
        },
      );

      await t.step("INSUFFICIENT_BALANCE is the key's outcome: replayed even after a top-up", async () => {
        const before = await balance();
        const tooMuch = before.plus(1).toFixed();
        const key = crypto.randomUUID();
        const refused = await send(key, tooMuch);
        assertEquals([refused.status, refused.json.error.code], [400, "INSUFFICIENT_BALANCE"]);
        await fund("10");
        const again = await send(key, tooMuch);
        assertEquals([again.status, again.replayed, again.json], [400, "true", refused.json]);
        assertEquals((await balance()).toFixed(), before.plus(10).toFixed());
      });
    } finally {
      await gw.close();
    }
  });
}
