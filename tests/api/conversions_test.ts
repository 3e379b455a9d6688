// Wallet-to-wallet conversions through the whole app: preview and convert both ways with the ledger exact
// to the unit, every refusal code, moved and stale rates, idempotency under 50 concurrent retries, 50
// concurrent conversions against one balance, other merchants' and other modes' wallets, unsolidified
// USDT, per-merchant fees, and the treasury's view of the platform's position.
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { Decimal } from "../../domain/money.ts";
import { XOF_PER_EUR } from "../../rails/fx/mod.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditWallet, eventTypes, idem } from "../money_out_helpers.ts";

type Rail = "TRC20" | "MOMO" | "CARD";
const CURRENCY: Record<Rail, string> = { TRC20: "USDT_TRC20", MOMO: "XOF", CARD: "XOF" };

async function wallets(gw: TestGateway, merchantId: string, isSandbox: boolean) {
  const out = {} as Record<Rail, { id: string; balance: Decimal }>;
  for (const rail of ["TRC20", "MOMO", "CARD"] as const) {
    const w = await findWallet(gw.db, merchantId, isSandbox, CURRENCY[rail], rail);
    out[rail] = { id: w!.id, balance: new Decimal(w!.balance) };
  }
  return out;
}

/** What the test expects from the rate, computed independently of the gateway's code. */
function expected(usdtEur: string, from: "USDT" | "XOF", amount: string, feePercent = "1") {
  const usdtXof = new Decimal(usdtEur).times(XOF_PER_EUR);
  const rate = from === "USDT"
    ? usdtXof
    : new Decimal(1).div(usdtXof).toSignificantDigits(15, Decimal.ROUND_DOWN);
  const dp = from === "USDT" ? 0 : 6;
  const gross = new Decimal(amount).times(rate).toDecimalPlaces(dp, Decimal.ROUND_DOWN);
  const fee = gross.times(feePercent).div(100).toDecimalPlaces(dp, Decimal.ROUND_UP);
  return {
    rate: rate.toFixed(),
    gross: gross.toFixed(dp),
    fee: fee.toFixed(dp),
    net: gross.minus(fee).toFixed(dp),
  };
}

/** Sum of every entry per currency in the mode: zero for each, whatever happened. */
async function ledgerSums(gw: TestGateway, isSandbox: boolean) {
  return await gw.db.query<{ currency: string; s: string }>(
    `SELECT e.currency, sum(e.amount)::text AS s FROM entries e JOIN accounts a ON a.id = e.account_id
      WHERE a.is_sandbox = $1 GROUP BY e.currency ORDER BY e.currency`,
    [isSandbox],
  );
}

async function platformBalance(gw: TestGateway, kind: "FX" | "FEES", isSandbox: boolean, rail: Rail) {
  const account = await findSystemAccount(gw.db, kind, isSandbox, rail);
  const rows = await gw.db.query<{ s: string }>(
    "SELECT COALESCE(sum(amount), 0)::text AS s FROM entries WHERE account_id = $1",
    [account.id],
  );
  return new Decimal(rows[0].s);
}

Deno.test("conversions: both directions exact to the unit, events, list, treasury", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Ouaga Traders");
    const key = m.keys.liveSecret;
    await creditWallet(gw, m.merchantId, false, "TRC20", "100");
    await creditWallet(gw, m.merchantId, false, "CARD", "250000");
    const w = await wallets(gw, m.merchantId, false);
    const usdtEur = gw.rates.current()!;

    await t.step(
      "preview USDT -> XOF shows rate, fee, toAmountNet and the rate's time; nothing moves",
      async () => {
        const res = await gw.request(
          "GET",
          "/v1/conversions/wallet/preview?fromCurrency=USDT_TRC20&toCurrency=XOF&amount=100",
          { key },
        );
        assertEquals(res.status, 200);
        const e = expected(usdtEur, "USDT", "100");
        const d = res.json.data;
        assertEquals([d.rate, d.toAmountGross, d.fee, d.toAmountNet, d.feePercent], [
          e.rate,
          e.gross,
          e.fee,
          e.net,
          "1",
        ]);
        assertMatch(d.rateAsOf, /^\d{4}-\d\d-\d\dT/);
        assertEquals((await wallets(gw, m.merchantId, false)).TRC20.balance.toFixed(), "100");
      },
    );

    await t.step("USDT/TRC20 -> XOF/MOMO: one journal, wallets and platform accounts exact", async () => {
      const res = await gw.request("POST", "/v1/conversions/wallet", {
        key,
        headers: idem(),
        body: { fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "40.5" },
      });
      assertEquals(res.status, 201);
      const e = expected(usdtEur, "USDT", "40.5");
      const d = res.json.data;
      assertMatch(d.id, /^cnv_/);
      assertEquals([d.status, d.fromAmount, d.fromCurrency, d.toAmountNet, d.toCurrency, d.fee], [
        "CONFIRMED",
        "40.500000",
        "USDT_TRC20",
        e.net,
        "XOF",
        e.fee,
      ]);
      const after = await wallets(gw, m.merchantId, false);
      assertEquals(after.TRC20.balance.toFixed(), new Decimal(100).minus("40.5").toFixed());
      assertEquals(after.MOMO.balance.toFixed(), e.net);
      assertEquals((await platformBalance(gw, "FX", false, "TRC20")).toFixed(), "40.5");
      assertEquals(
        (await platformBalance(gw, "FX", false, "MOMO")).toFixed(),
        new Decimal(e.gross).negated().toFixed(),
      );
      assertEquals((await platformBalance(gw, "FEES", false, "MOMO")).toFixed(), e.fee);
      const journals = await gw.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM journals WHERE reference = $1",
        [`conversion:${d.id}`],
      );
      assertEquals(journals[0].n, 1);
      for (const row of await ledgerSums(gw, false)) {
        assertEquals([row.currency, new Decimal(row.s).isZero()], [row.currency, true]);
      }
    });

    await t.step("XOF/CARD -> USDT/TRC20 (the other way, 6-decimal rounding)", async () => {
      const res = await gw.request("POST", "/v1/conversions/wallet", {
        key,
        body: { fromWalletId: w.CARD.id, toWalletId: w.TRC20.id, fromAmount: "123457" },
      });
      assertEquals(res.status, 201);
      const e = expected(usdtEur, "XOF", "123457");
      assertEquals([res.json.data.rate, res.json.data.toAmountNet, res.json.data.fee], [
        e.rate,
        new Decimal(e.net).toFixed(6),
        e.fee,
      ]);
      const after = await wallets(gw, m.merchantId, false);
      assertEquals(after.CARD.balance.toFixed(), String(250000 - 123457));
      assertEquals(after.TRC20.balance.toFixed(), new Decimal(100).minus("40.5").plus(e.net).toFixed());
      assertEquals(
        (await platformBalance(gw, "FEES", false, "TRC20")).toFixed(),
        new Decimal(e.fee).toFixed(),
      );
      for (const row of await ledgerSums(gw, false)) {
        assert(new Decimal(row.s).isZero(), `${row.currency} sums to ${row.s}`);
      }
    });

    await t.step("conversion.confirmed is emitted for each, and the list shows newest first", async () => {
      assertEquals((await eventTypes(gw, m.merchantId)).filter((t) => t.startsWith("conversion.")), [
        "conversion.confirmed",
        "conversion.confirmed",
      ]);
      const list = await gw.request("GET", "/v1/conversions?limit=1", { key });
      assertEquals([list.status, list.json.data.meta.total, list.json.data.items[0].fromCurrency], [
        200,
        2,
        "XOF",
      ]);
      const page2 = await gw.request("GET", "/v1/conversions?limit=1&page=2", { key });
      assertEquals(page2.json.data.items[0].fromCurrency, "USDT_TRC20");
      const publishable = await gw.request("GET", "/v1/conversions", { key: m.keys.livePublishable });
      assertEquals(publishable.status, 403);
    });

    await t.step("the treasury shows the platform's USDT and XOF position from conversions", async () => {
      const res = await gw.admin("GET", "/admin/api/treasury");
      assertEquals(res.status, 200);
      const usdtIn = new Decimal("40.5");
      const usdtOut = new Decimal(expected(usdtEur, "XOF", "123457").gross);
      assertEquals(res.json.data.conversions.usdtPosition, usdtIn.minus(usdtOut).toFixed(6));
      const xofOut = new Decimal(expected(usdtEur, "USDT", "40.5").gross);
      assertEquals(res.json.data.conversions.xofPosition, new Decimal(123457).minus(xofOut).toFixed(0));
    });

    await t.step("a moved rate prices the next conversion; the answer names the new rate", async () => {
      gw.rates.set("0.95");
      const res = await gw.request("POST", "/v1/conversions/wallet", {
        key,
        body: { fromWalletId: w.TRC20.id, toWalletId: w.CARD.id, fromAmount: "10" },
      });
      const e = expected("0.95", "USDT", "10");
      assertEquals([res.status, res.json.data.rate, res.json.data.toAmountNet], [201, e.rate, e.net]);
    });
  } finally {
    await gw.close();
  }
});

Deno.test("conversions: every refusal answers its code and moves nothing", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Careful Shop");
    const other = await gw.createMerchant("Someone Else");
    const key = m.keys.liveSecret;
    await creditWallet(gw, m.merchantId, false, "TRC20", "20");
    await creditWallet(gw, m.merchantId, false, "MOMO", "5000");
    const w = await wallets(gw, m.merchantId, false);
    const ow = await wallets(gw, other.merchantId, false);
    const sw = await wallets(gw, m.merchantId, true);
    const convert = (body: unknown, k = key) =>
      gw.request("POST", "/v1/conversions/wallet", { key: k, body });
    const preview = (q: string) => gw.request("GET", `/v1/conversions/wallet/preview?${q}`, { key });
    const unchanged = async () => {
      const now = await wallets(gw, m.merchantId, false);
      assertEquals([now.TRC20.balance.toFixed(), now.MOMO.balance.toFixed(), now.CARD.balance.toFixed()], [
        "20",
        "5000",
        "0",
      ]);
      assertEquals((await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM conversions"))[0].n, 0);
    };

    await t.step("same currency or same wallet: INVALID_CONVERSION_PAIR", async () => {
      const sameCurrency = await convert({
        fromWalletId: w.MOMO.id,
        toWalletId: w.CARD.id,
        fromAmount: "100",
      });
      assertEquals([sameCurrency.status, sameCurrency.json.error.code], [400, "INVALID_CONVERSION_PAIR"]);
      const sameWallet = await convert({ fromWalletId: w.TRC20.id, toWalletId: w.TRC20.id, fromAmount: "1" });
      assertEquals(sameWallet.json.error.code, "INVALID_CONVERSION_PAIR");
      assertEquals(
        (await preview("fromCurrency=XOF&toCurrency=XOF&amount=100")).json.error.code,
        "INVALID_CONVERSION_PAIR",
      );
      assertEquals(
        (await preview("fromCurrency=BTC&toCurrency=XOF&amount=1")).json.error.code,
        "INVALID_CONVERSION_PAIR",
      );
    });

    await t.step("a currency the gateway prices but holds no wallet in: CONVERSION_NOT_ALLOWED", async () => {
      const res = await preview("fromCurrency=EUR&toCurrency=XOF&amount=10");
      assertEquals([res.status, res.json.error.code], [403, "CONVERSION_NOT_ALLOWED"]);
      assertEquals(
        (await preview("fromCurrency=XOF&toCurrency=USD&amount=10")).json.error.code,
        "CONVERSION_NOT_ALLOWED",
      );
    });

    await t.step("an amount that leaves nothing after the fee: NEGATIVE_REVENUE", async () => {
      for (const fromAmount of ["0.000001", "0.002"]) {
        const res = await convert({ fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount });
        assertEquals([res.status, res.json.error.code], [400, "NEGATIVE_REVENUE"]);
      }
      assertEquals((await preview("fromCurrency=XOF&toCurrency=USDT_TRC20&amount=1")).status, 200);
    });

    await t.step("stale rate: RATE_STALE; no rate: RATE_UNAVAILABLE (503); back: works", async () => {
      gw.rates.setAge(gw.deps.config.fx.maxAgeSeconds + 5);
      const stale = await convert({ fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "1" });
      assertEquals([stale.status, stale.json.error.code], [400, "RATE_STALE"]);
      assertEquals(
        (await preview("fromCurrency=XOF&toCurrency=USDT&amount=1000")).json.error.code,
        "RATE_STALE",
      );
      gw.rates.clear();
      const none = await convert({ fromWalletId: w.MOMO.id, toWalletId: w.TRC20.id, fromAmount: "1000" });
      assertEquals([none.status, none.json.error.code], [503, "RATE_UNAVAILABLE"]);
      await unchanged();
      gw.rates.set("0.92");
      assertEquals((await preview("fromCurrency=XOF&toCurrency=USDT&amount=1000")).status, 200);
    });

    await t.step("more than the balance: INSUFFICIENT_BALANCE", async () => {
      const res = await convert({ fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "20.000001" });
      assertEquals([res.status, res.json.error.code], [400, "INSUFFICIENT_BALANCE"]);
      const xof = await convert({ fromWalletId: w.MOMO.id, toWalletId: w.TRC20.id, fromAmount: "5001" });
      assertEquals(xof.json.error.code, "INSUFFICIENT_BALANCE");
      await unchanged();
    });

    await t.step("another merchant's wallet, or the other mode's: WALLET_NOT_FOUND", async () => {
      for (
        const body of [
          { fromWalletId: ow.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "1" },
          { fromWalletId: w.TRC20.id, toWalletId: ow.MOMO.id, fromAmount: "1" },
          { fromWalletId: sw.TRC20.id, toWalletId: sw.MOMO.id, fromAmount: "1" },
        ]
      ) {
        const res = await convert(body);
        assertEquals([res.status, res.json.error.code], [404, "WALLET_NOT_FOUND"]);
      }
      // A sandbox key never reaches live wallets either.
      const crossed = await convert(
        { fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "1" },
        m.keys.testSecret,
      );
      assertEquals(crossed.json.error.code, "WALLET_NOT_FOUND");
      await unchanged();
    });

    await t.step(
      "hostile input: malformed ids and amounts, wrong types, NUL, surrogates, huge strings",
      async () => {
        const bad: Array<[unknown, number]> = [
          [{ fromWalletId: "wal_\u0000", toWalletId: w.MOMO.id, fromAmount: "1" }, 400],
          [{ fromWalletId: "x".repeat(64), toWalletId: w.MOMO.id, fromAmount: "1" }, 404],
          [{ fromWalletId: "\ud800", toWalletId: w.MOMO.id, fromAmount: "1" }, 400],
          [{ fromWalletId: "x".repeat(100_000), toWalletId: w.MOMO.id, fromAmount: "1" }, 400],
          [{ fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: 1 }, 400],
          [{ fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "1.0000001" }, 400],
          [{ fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "-1" }, 400],
          [{ fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "0" }, 400],
          [{ fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "1e3" }, 400],
          [{ fromWalletId: w.MOMO.id, toWalletId: w.TRC20.id, fromAmount: "10.5" }, 400],
          [{ fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "1", extra: true }, 400],
          [{ fromWalletId: w.TRC20.id, fromAmount: "1" }, 400],
          [[1, 2, 3], 400],
          [null, 400],
        ];
        for (const [body, status] of bad) {
          const res = await convert(body);
          assertEquals(
            res.status,
            status,
            `${JSON.stringify(body).slice(0, 80)} -> ${res.text.slice(0, 200)}`,
          );
        }
        for (
          const q of [
            "fromCurrency=%00&toCurrency=XOF&amount=1",
            "fromCurrency=USDT&toCurrency=XOF&amount=abc",
            `fromCurrency=USDT&toCurrency=XOF&amount=${"9".repeat(5000)}`,
            "toCurrency=XOF&amount=1",
          ]
        ) {
          const res = await preview(q);
          assertEquals(res.status, 400, `${q.slice(0, 60)} -> ${res.text.slice(0, 200)}`);
        }
        await unchanged();
      },
    );
  } finally {
    await gw.close();
  }
});

Deno.test("conversions: 50 identical retries convert once; 50 different ones never overdraw", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Busy Shop");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { default: 10_000 },
    });
    await creditWallet(gw, m.merchantId, false, "TRC20", "100");
    const w = await wallets(gw, m.merchantId, false);

    await t.step("one Idempotency-Key, 50 at once: one conversion, the others replay or wait", async () => {
      const headers = idem();
      const body = { fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: "10" };
      const answers = await Promise.all(
        Array.from(
          { length: 50 },
          () => gw.request("POST", "/v1/conversions/wallet", { key, headers, body }),
        ),
      );
      for (const a of answers) assert([201, 409].includes(a.status), `unexpected ${a.status} ${a.text}`);
      const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.json.data.id));
      assertEquals(ids.size, 1);
      const again = await gw.request("POST", "/v1/conversions/wallet", { key, headers, body });
      assertEquals([again.status, again.headers.get("idempotent-replayed"), again.json.data.id], [
        201,
        "true",
        [...ids][0],
      ]);
      assertEquals((await wallets(gw, m.merchantId, false)).TRC20.balance.toFixed(), "90");
      const mismatch = await gw.request("POST", "/v1/conversions/wallet", {
        key,
        headers,
        body: { ...body, fromAmount: "11" },
      });
      assertEquals([mismatch.status, mismatch.json.error.code], [409, "IDEMPOTENCY_KEY_MISMATCH"]);
    });

    await t.step(
      "50 different conversions of 7 USDT against 90: 12 pass, 38 INSUFFICIENT_BALANCE",
      async () => {
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            gw.request("POST", "/v1/conversions/wallet", {
              key,
              headers: idem(),
              body: { fromWalletId: w.TRC20.id, toWalletId: i % 2 ? w.MOMO.id : w.CARD.id, fromAmount: "7" },
            })),
        );
        const passed = answers.filter((a) => a.status === 201).length;
        const others = answers.filter((a) =>
          a.status !== 201 && a.json?.error?.code !== "INSUFFICIENT_BALANCE"
        );
        assertEquals(others.map((a) => `${a.status} ${a.text.slice(0, 300)}`), []);
        const refused = answers.filter((a) =>
          a.status === 400 && a.json.error.code === "INSUFFICIENT_BALANCE"
        ).length;
        assertEquals([passed, refused], [Math.floor(90 / 7), 50 - Math.floor(90 / 7)]);
        const after = await wallets(gw, m.merchantId, false);
        assertEquals(
          after.TRC20.balance.toFixed(),
          new Decimal(90).minus(new Decimal(7).times(passed)).toFixed(),
        );
        const credited = await gw.db.query<{ s: string }>(
          "SELECT sum(to_amount_net)::text AS s FROM conversions WHERE merchant_id = $1",
          [m.merchantId],
        );
        assertEquals(
          after.MOMO.balance.plus(after.CARD.balance).toFixed(),
          new Decimal(credited[0].s).toFixed(),
        );
        for (const row of await ledgerSums(gw, false)) {
          assert(new Decimal(row.s).isZero(), `${row.currency} sums to ${row.s}`);
        }
      },
    );
  } finally {
    await gw.close();
  }
});

Deno.test("conversions: sandbox keys convert sandbox wallets; per-merchant fee; unsolidified USDT waits", async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Mixed Shop");
    const usdtEur = gw.rates.current()!;

    await t.step("a sandbox key converts sandbox money and leaves live wallets alone", async () => {
      await creditWallet(gw, m.merchantId, true, "TRC20", "50");
      const sw = await wallets(gw, m.merchantId, true);
      const res = await gw.request("POST", "/v1/conversions/wallet", {
        key: m.keys.testSecret,
        body: { fromWalletId: sw.TRC20.id, toWalletId: sw.MOMO.id, fromAmount: "50" },
      });
      assertEquals(res.status, 201);
      assertEquals(
        (await wallets(gw, m.merchantId, true)).MOMO.balance.toFixed(),
        expected(usdtEur, "USDT", "50").net,
      );
      const live = await wallets(gw, m.merchantId, false);
      assertEquals([live.TRC20.balance.toFixed(), live.MOMO.balance.toFixed()], ["0", "0"]);
      const liveList = await gw.request("GET", "/v1/conversions", { key: m.keys.liveSecret });
      assertEquals(liveList.json.data.meta.total, 0);
      for (const row of await ledgerSums(gw, true)) assert(new Decimal(row.s).isZero());
    });

    await t.step(
      "an operator's conversion fee for the merchant applies to preview and conversion",
      async () => {
        const patched = await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
          feeSchedule: { conversionPercent: "0.25" },
        });
        assertEquals(patched.status, 200);
        const res = await gw.request(
          "GET",
          "/v1/conversions/wallet/preview?fromCurrency=USDT&toCurrency=XOF&amount=100",
          { key: m.keys.liveSecret },
        );
        const e = expected(usdtEur, "USDT", "100", "0.25");
        assertEquals([res.json.data.feePercent, res.json.data.fee, res.json.data.toAmountNet], [
          "0.25",
          e.fee,
          e.net,
        ]);
      },
    );

    await t.step(
      "USDT credited but not yet solidified cannot be converted; once solidified it can",
      async () => {
        const w = await wallets(gw, m.merchantId, false);
        const payin = await gw.request("POST", "/v1/payments", {
          key: m.keys.liveSecret,
          body: { amount: "10" },
        });
        assertEquals(payin.status, 201);
        gw.devnet.transferUsdt(payin.json.data.address, 11_500_000n);
        gw.devnet.mine(gw.deps.config.tron.payinConfirmations + 1);
        await scanChain(gw.deps);
        const credited = (await wallets(gw, m.merchantId, false)).TRC20.balance;
        assert(credited.gt(0), "the pay-in is credited");
        const body = { fromWalletId: w.TRC20.id, toWalletId: w.MOMO.id, fromAmount: credited.toFixed() };
        const early = await gw.request("POST", "/v1/conversions/wallet", { key: m.keys.liveSecret, body });
        assertEquals([early.status, early.json.error.code], [400, "INSUFFICIENT_BALANCE"]);
        gw.devnet.mine(25);
        await scanChain(gw.deps);
        const later = await gw.request("POST", "/v1/conversions/wallet", { key: m.keys.liveSecret, body });
        assertEquals(later.status, 201);
        assertEquals((await wallets(gw, m.merchantId, false)).TRC20.balance.toFixed(), "0");
      },
    );
  } finally {
    await gw.close();
  }
});
