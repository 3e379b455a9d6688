// USDT pay-ins through the API, paid on the in-process devnet and followed by the scanner.
import { TronWeb } from "tronweb";
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { manualClock } from "../../domain/clock.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";

const units = (usdt: string) => BigInt(Math.round(Number(usdt) * 1e6));

async function walletBalance(gw: TestGateway, key: string): Promise<string> {
  const res = await gw.request("GET", "/v1/merchant/balances/USDT_TRC20", { key });
  return res.json.data.total;
}

async function eventsOf(gw: TestGateway, payinId: string): Promise<string[]> {
  const rows = await gw.db.query<{ type: string }>(
    "SELECT type FROM events WHERE data->>'transactionId' = $1 ORDER BY created_at, id",
    [payinId],
  );
  return rows.map((r) => r.type);
}

Deno.test("USDT pay-ins: creation rules, chain settlement, sandbox simulation", async (t) => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock });
  const m = await gw.createMerchant("Boutique Ouaga");
  const key = m.keys.liveSecret;
  // The manual clock moves a little at every step so that creation and event times are ordered.
  const scan = () => {
    clock.advance(10);
    return scanChain(gw.deps);
  };
  const create = (body: Record<string, unknown>, apiKey = key, query = "") => {
    clock.advance(10);
    return gw.request("POST", `/v1/payments${query}`, { key: apiKey, body });
  };
  const count = async () => (await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payins"))[0].n;
  await scan(); // the scanner starts following at the head

  try {
    await t.step("creation answers exactly the specification's fields", async () => {
      const res = await create({ amount: "10", externalRef: "order-1", metadata: { orderId: 42 } });
      assertEquals(res.status, 201);
      const d = res.json.data;
      assertEquals(Object.keys(d).sort(), [
        "address",
        "amount",
        "amountExpected",
        "chain",
        "currency",
        "expiresAt",
        "networkFee",
        "paymentUrl",
        "qrCodeUrl",
        "status",
        "transactionId",
      ]);
      assertMatch(d.transactionId, /^pay_/);
      assertMatch(d.address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      assert(TronWeb.isAddress(d.address));
      assertMatch(d.qrCodeUrl, /^data:image\/png;base64,/);
      assertEquals([d.amount, d.networkFee, d.amountExpected], ["10.000000", "1.500000", "11.500000"]);
      assertEquals([d.currency, d.chain, d.status], ["USDT_TRC20", "TRON", "AWAITING_PAYMENT"]);
      assertEquals(new Date(d.expiresAt).getTime() - clock.now().getTime(), 1800_000);
      assertEquals(d.paymentUrl, `http://localhost:8000/checkout/${d.transactionId}`);
      assertEquals(await eventsOf(gw, d.transactionId), ["payin.created"]);
    });

    await t.step("every pay-in gets its own fresh address", async () => {
      const a = (await create({ amount: "5" })).json.data.address;
      const b = (await create({ amount: "5" })).json.data.address;
      assert(a !== b);
    });

    await t.step("bad amounts and fields get their codes and create nothing", async () => {
      const before = await count();
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ amount: 10 }, 400, "VALIDATION_ERROR"],
        [{ amount: "ten" }, 400, "INVALID_AMOUNT"],
        [{ amount: "10.1234567" }, 400, "INVALID_AMOUNT"],
        [{ amount: "-10" }, 400, "INVALID_AMOUNT"],
        [{ amount: "1e3" }, 400, "INVALID_AMOUNT"],
        [{ amount: "0" }, 400, "AMOUNT_TOO_LOW"],
        [{ amount: "4.999999" }, 400, "AMOUNT_TOO_LOW"],
        [{ amount: "10", expiresInSeconds: 899 }, 400, "VALIDATION_ERROR"],
        [{ amount: "10", expiresInSeconds: 86401 }, 400, "VALIDATION_ERROR"],
        [{ amount: "10", color: "red" }, 400, "VALIDATION_ERROR"],
        [{ amount: "10", paymentMethod: "CASH" }, 400, "VALIDATION_ERROR"],
        [{ amount: "10", externalRef: "order-1" }, 409, "DUPLICATE_EXTERNAL_REF"],
      ];
      for (const [body, status, code] of cases) {
        const res = await create(body);
        assertEquals([res.status, res.json.error.code], [status, code], JSON.stringify(body));
      }
      const low = await create({ amount: "4" });
      assertMatch(low.json.error.message, /5 USDT/);
      assertEquals(await count(), before);
    });

    await t.step("rails and verification: USDT_PAYMENTS_DISABLED, KYB_REQUIRED (live only)", async () => {
      const pending = await gw.createMerchant("Unverified", "PENDING");
      const live = await create({ amount: "10" }, pending.keys.liveSecret);
      assertEquals([live.status, live.json.error.code], [403, "KYB_REQUIRED"]);
      const sandbox = await create({ amount: "10" }, pending.keys.testSecret, "?sandbox=true");
      assertEquals(sandbox.status, 201);
      await gw.admin("PATCH", `/admin/api/merchants/${pending.merchantId}`, { enabledRails: ["CARD"] });
      const off = await create({ amount: "10" }, pending.keys.testSecret, "?sandbox=true");
      assertEquals([off.status, off.json.error.code], [403, "USDT_PAYMENTS_DISABLED"]);
    });

    await t.step("GET one and the paged list, scoped to the merchant and mode", async () => {
      const created = (await create({ amount: "12.5", externalRef: "order-list" })).json.data;
      const one = await gw.request("GET", `/v1/payments/${created.transactionId}`, { key });
      assertEquals(one.status, 200);
      assertEquals(one.json.data.id, created.transactionId);
      assertEquals(one.json.data.amountReceived, "0.000000");
      assertEquals(one.json.data.externalRef, "order-list");
      assertEquals(one.json.data.isSandbox, false);
      const other = await gw.createMerchant("Other");
      assertEquals(
        (await gw.request("GET", `/v1/payments/${created.transactionId}`, { key: other.keys.liveSecret }))
          .status,
        404,
      );
      assertEquals(
        (await gw.request("GET", `/v1/payments/${created.transactionId}`, { key: m.keys.testSecret })).status,
        404,
      );
      const pk = await gw.request("GET", `/v1/payments/${created.transactionId}`, {
        key: m.keys.livePublishable,
      });
      assertEquals(pk.status, 200);
      const list = await gw.request(
        "GET",
        "/v1/payments?limit=2&status=AWAITING_PAYMENT&currency=USDT_TRC20",
        { key },
      );
      assertEquals(list.status, 200);
      assertEquals(list.json.data.items.length, 2);
      assertEquals(list.json.data.meta.page, 1);
      assert(list.json.data.meta.total >= 4);
      assertEquals(list.json.data.meta.hasNext, true);
      assertEquals(list.json.data.items[0].id, created.transactionId, "newest first");
      const bad = await gw.request("GET", "/v1/payments?limit=101", { key });
      assertEquals([bad.status, bad.json.error.code], [400, "VALIDATION_ERROR"]);
    });

    await t.step(
      "paid exactly: CONFIRMING when seen, CONFIRMED at 5 confirmations, wallet credited",
      async () => {
        const before = await walletBalance(gw, key);
        const p = (await create({ amount: "10" })).json.data;
        gw.devnet.transferUsdt(p.address, units("11.5"));
        gw.devnet.mine(1);
        await scan();
        let rec = (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data;
        assertEquals(rec.status, "CONFIRMING");
        assertEquals(rec.amountReceived, "11.500000");
        gw.devnet.mine(3);
        await scan();
        assertEquals(
          (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data.status,
          "CONFIRMING",
        );
        gw.devnet.mine(1);
        await scan();
        rec = (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data;
        assertEquals(rec.status, "CONFIRMED");
        assertEquals(rec.serviceFee, "0.150000");
        assertEquals(rec.netAmount, "9.850000");
        assertMatch(rec.txHash, /^[0-9a-f]{64}$/);
        assertEquals((Number(await walletBalance(gw, key)) - Number(before)).toFixed(6), "9.850000");
        assertEquals(await eventsOf(gw, p.transactionId), [
          "payin.created",
          "payin.confirming",
          "payin.confirmed",
        ]);
        await scan();
        assertEquals(
          (Number(await walletBalance(gw, key)) - Number(before)).toFixed(6),
          "9.850000",
          "a rescan credits nothing twice",
        );
      },
    );

    await t.step(
      "underpaid and overpaid carry shortfall and surplus; the merchant gets what arrived",
      async () => {
        const under = (await create({ amount: "20" })).json.data;
        const over = (await create({ amount: "20" })).json.data;
        gw.devnet.transferUsdt(under.address, units("15"));
        gw.devnet.transferUsdt(over.address, units("25"));
        gw.devnet.mine(5);
        await scan();
        const u = (await gw.request("GET", `/v1/payments/${under.transactionId}`, { key })).json.data;
        const o = (await gw.request("GET", `/v1/payments/${over.transactionId}`, { key })).json.data;
        assertEquals([u.status, o.status], ["UNDERPAID", "OVERPAID"]);
        assertEquals(u.netAmount, "13.297500"); // (15 - 1.5) less 1.5 %: 13.5 - 0.2025
        const payloads = await gw.db.query<{ type: string; data: Record<string, string> }>(
          "SELECT type, data FROM events WHERE type IN ('payin.underpaid', 'payin.overpaid') AND data->>'transactionId' IN ($1, $2)",
          [under.transactionId, over.transactionId],
        );
        const byType = Object.fromEntries(payloads.map((p) => [p.type, p.data]));
        assertEquals(byType["payin.underpaid"].shortfall, "6.500000");
        assertEquals(byType["payin.overpaid"].surplus, "3.500000");
        assertEquals(byType["payin.underpaid"].status, "UNDERPAID");
      },
    );

    await t.step("two transfers add up to one settlement", async () => {
      const p = (await create({ amount: "8" })).json.data;
      gw.devnet.transferUsdt(p.address, units("4"));
      gw.devnet.mine(2);
      await scan();
      gw.devnet.transferUsdt(p.address, units("5.5"));
      gw.devnet.mine(4);
      await scan();
      assertEquals(
        (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data.status,
        "CONFIRMING",
      );
      gw.devnet.mine(1);
      await scan();
      const rec = (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data;
      assertEquals([rec.status, rec.amountReceived], ["CONFIRMED", "9.500000"]);
    });

    await t.step("dust below the network fee fails the pay-in with BELOW_DUST_THRESHOLD", async () => {
      const p = (await create({ amount: "10" })).json.data;
      gw.devnet.transferUsdt(p.address, units("1"));
      gw.devnet.mine(1);
      await scan();
      assertEquals(
        (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data.status,
        "AWAITING_PAYMENT",
      );
      gw.devnet.mine(4);
      await scan();
      const rec = (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data;
      assertEquals([rec.status, rec.failureReason], ["FAILED", "BELOW_DUST_THRESHOLD"]);
      const failed = await gw.db.query<{ data: { reason: string } }>(
        "SELECT data FROM events WHERE type = 'payin.failed' AND data->>'transactionId' = $1",
        [p.transactionId],
      );
      assertEquals(failed[0].data.reason, "BELOW_DUST_THRESHOLD");
    });

    await t.step("a reorg before 5 confirmations drops the transfer; nothing is credited", async () => {
      const before = await walletBalance(gw, key);
      const p = (await create({ amount: "6" })).json.data;
      gw.devnet.transferUsdt(p.address, units("7.5"));
      gw.devnet.mine(2);
      await scan();
      assertEquals(
        (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data.status,
        "CONFIRMING",
      );
      gw.devnet.reorg(3);
      gw.devnet.mine(6);
      await scan();
      const rec = (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data;
      assertEquals([rec.status, rec.amountReceived], ["AWAITING_PAYMENT", "0.000000"]);
      assertEquals(await walletBalance(gw, key), before);
    });

    await t.step(
      "expiry with nothing received: EXPIRED; late funds later become a deposit at 20 confirmations",
      async () => {
        const p = (await create({ amount: "10", expiresInSeconds: 900 })).json.data;
        clock.advance(901_000);
        await scan();
        const rec = (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data;
        assertEquals(rec.status, "EXPIRED");
        assertEquals((await eventsOf(gw, p.transactionId)).at(-1), "payin.expired");
        clock.advance(-901_000); // the devnet's blocks carry real time: keep the gateway's clock beside it
        const before = await walletBalance(gw, key);
        await gw.db.query("UPDATE payins SET expires_at = now() - interval '1 minute' WHERE id = $1", [
          p.transactionId,
        ]);
        gw.devnet.transferUsdt(p.address, units("11.5"));
        gw.devnet.mine(19);
        await scan();
        assertEquals(await walletBalance(gw, key), before, "not yet at 20 confirmations");
        gw.devnet.mine(1);
        await scan();
        assertEquals((Number(await walletBalance(gw, key)) - Number(before)).toFixed(6), "9.850000");
        const deposit = await gw.db.query<{ data: Record<string, string> }>(
          "SELECT data FROM events WHERE type = 'deposit.confirmed' AND data->>'payinId' = $1",
          [p.transactionId],
        );
        assertEquals(deposit.length, 1);
        assertEquals(deposit[0].data.amount, "11.500000");
        assertEquals(
          (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data.status,
          "EXPIRED",
        );
      },
    );

    await t.step("a scan that dies mid-block is redone, and credits exactly once", async () => {
      const before = await walletBalance(gw, key);
      const p = (await create({ amount: "5" })).json.data;
      gw.devnet.transferUsdt(p.address, units("6.5"));
      gw.devnet.mine(1);
      const real = gw.deps.tron;
      let calls = 0;
      const flaky = {
        ...real,
        getTransactionInfosByBlock: (n: number) => {
          if (calls++ === 0) return Promise.reject(new Error("killed mid-block"));
          return real.getTransactionInfosByBlock(n);
        },
      };
      await scanChain({ ...gw.deps, tron: flaky }).then(() => assert(false, "should have failed"), () => {});
      gw.devnet.mine(5);
      await Promise.all([scanChain({ ...gw.deps, tron: flaky }), scan()]);
      await scan();
      const rec = (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key })).json.data;
      assertEquals(rec.status, "CONFIRMED");
      assertEquals((Number(await walletBalance(gw, key)) - Number(before)).toFixed(6), "4.925000");
      const journals = await gw.db.query("SELECT id FROM journals WHERE reference = $1", [
        `payin:${p.transactionId}`,
      ]);
      assertEquals(journals.length, 1);
    });

    await t.step("sandbox simulate settles an AWAITING_PAYMENT sandbox pay-in once", async () => {
      const p = (await create({ amount: "10" }, m.keys.testSecret, "?sandbox=true")).json.data;
      const sim = await gw.request("POST", `/v1/sandbox/payments/${p.transactionId}/simulate`, {
        key: m.keys.testSecret,
      });
      assertEquals(sim.status, 200);
      assertEquals(sim.json.data, { message: "Sandbox pay-in confirmed", transactionId: p.transactionId });
      const rec =
        (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key: m.keys.testSecret })).json.data;
      assertEquals([rec.status, rec.isSandbox], ["CONFIRMED", true]);
      assertEquals(await walletBalance(gw, m.keys.testSecret), "9.850000");
      const again = await gw.request("POST", `/v1/sandbox/payments/${p.transactionId}/simulate`, {
        key: m.keys.testSecret,
      });
      assertEquals([again.status, again.json.error.code], [400, "INVALID_STATE"]);
      const live = (await create({ amount: "10" })).json.data;
      const onLive = await gw.request("POST", `/v1/sandbox/payments/${live.transactionId}/simulate`, { key });
      assertEquals(onLive.status, 400);
      const notMine = await gw.request("POST", `/v1/sandbox/payments/${p.transactionId}/simulate`, {
        key: (await gw.createMerchant("X")).keys.testSecret,
      });
      assertEquals(notMine.status, 404);
    });

    await t.step("ledger invariants hold after all of it", async () => {
      const unbalanced = await gw.db.query(
        "SELECT journal_id FROM entries GROUP BY journal_id, currency HAVING sum(amount) <> 0",
      );
      assertEquals(unbalanced.length, 0);
      const drift = await gw.db.query(
        `SELECT a.id FROM accounts a LEFT JOIN entries e ON e.account_id = a.id WHERE a.kind = 'WALLET'
          GROUP BY a.id, a.balance HAVING a.balance <> COALESCE(sum(e.amount), 0)`,
      );
      assertEquals(drift.length, 0);
    });
  } finally {
    await gw.close();
  }
});
