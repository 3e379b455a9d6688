// The rate source seam and the domain's rules on top of it: the peg, derived pairs, staleness, absence,
// rounding in the platform's favour, and the production feed's behaviour on bad answers.
import { assertEquals } from "../assert.ts";
import { parseConfig } from "../../config.ts";
import { manualClock } from "../../domain/clock.ts";
import { AppError } from "../../domain/errors.ts";
import { convertAmount, currentRate } from "../../domain/fx/rates.ts";
import { Decimal } from "../../domain/money.ts";
import {
  fixedRateSource,
  httpRateFeed,
  rateFor,
  simulatedRateFeed,
  XOF_PER_EUR,
} from "../../rails/fx/mod.ts";

const config = parseConfig({ APP_ENV: "development" });

function depsWith(feedRate: string | null) {
  const clock = manualClock(new Date("2026-11-23T12:00:00Z"));
  const rates = simulatedRateFeed(feedRate, clock.now);
  return { clock, rates, config };
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  throw new Error("expected an AppError");
}

Deno.test("XOF/EUR is the 655.957 peg and needs no market rate", async () => {
  const deps = depsWith(null);
  const rate = await currentRate(deps, "EUR", "XOF");
  assertEquals([rate.rate, rate.source], [XOF_PER_EUR, "peg"]);
  assertEquals((await convertAmount(deps, { from: "EUR", to: "XOF", amount: "10" })).amount, "6559");
});

Deno.test("USDT/XOF is the USDT/EUR observation times the peg, with the observation's time", async () => {
  const deps = depsWith("0.92");
  deps.rates.setAge(30);
  const rate = await currentRate(deps, "USDT_TRC20", "XOF");
  assertEquals(rate.rate, new Decimal("0.92").times(XOF_PER_EUR).toFixed());
  assertEquals(rate.asOf.toISOString(), "2026-11-23T11:59:30.000Z");
  assertEquals(rate.source, "simulated+peg");
  const back = await currentRate(deps, "XOF", "USDT_TRC20");
  // The inverse is rounded down (never more USDT per XOF than the exact rate).
  assertEquals(new Decimal(back.rate).times(rate.rate).lte(1), true);
});

Deno.test("a moved rate moves conversions; rounding is down for what is received, up for what is paid", async () => {
  const deps = depsWith("0.92");
  const down = await convertAmount(deps, { from: "USDT_TRC20", to: "XOF", amount: "1.5" });
  assertEquals([down.exact, down.amount], ["905.22066", "905"]);
  const up = await convertAmount(deps, { from: "USDT_TRC20", to: "XOF", amount: "1.5", rounding: "up" });
  assertEquals(up.amount, "906");
  deps.rates.set("1.00");
  assertEquals((await convertAmount(deps, { from: "USDT_TRC20", to: "XOF", amount: "1" })).amount, "655");
  const toUsdt = await convertAmount(deps, { from: "XOF", to: "USDT_TRC20", amount: "655957" });
  assertEquals(toUsdt.amount, "999.999999"); // 1/655.957 is cut at 15 digits, then down to 6 decimals
  const paid = await convertAmount(deps, { from: "XOF", to: "USDT", amount: "655957", rounding: "up" });
  assertEquals(paid.amount, "1000.000000");
});

Deno.test("an old observation is RATE_STALE, none is RATE_UNAVAILABLE, the peg alone never is", async () => {
  const deps = depsWith("0.92");
  deps.rates.setAge(config.fx.maxAgeSeconds);
  await currentRate(deps, "USDT_TRC20", "XOF"); // exactly at the limit: still usable
  deps.rates.setAge(config.fx.maxAgeSeconds + 1);
  assertEquals(await code(currentRate(deps, "USDT_TRC20", "XOF")), "RATE_STALE");
  assertEquals(await code(convertAmount(deps, { from: "XOF", to: "USDT", amount: "1000" })), "RATE_STALE");
  deps.rates.clear();
  assertEquals(await code(currentRate(deps, "XOF", "USDT_TRC20")), "RATE_UNAVAILABLE");
  assertEquals((await currentRate(deps, "XOF", "EUR")).source, "peg");
  deps.rates.set("0.93");
  assertEquals((await currentRate(deps, "USDT", "EUR")).rate, "0.93");
});

Deno.test("the fixed source is always fresh; the configured default is 0.92 USDT/EUR", async () => {
  const clock = manualClock();
  const source = fixedRateSource(config.fx.fixedUsdtEur, clock.now);
  const rate = await rateFor(source, "USDT", "XOF", clock.now());
  assertEquals([rate?.rate, rate?.asOf.getTime()], ["603.48044", clock.now().getTime()]);
  assertEquals(config.fx.source, "fixed");
  assertEquals(
    parseConfig({
      APP_ENV: "production",
      APP_SECRET: "x".repeat(32),
      ADMIN_TOKEN: "y".repeat(16),
      TRON_MNEMONIC: "m",
    }).fx.source,
    "feed",
  );
});

Deno.test("the HTTP feed caches, keeps the last good rate through failures, and has none before a first", async () => {
  const clock = manualClock(new Date("2026-11-23T12:00:00Z"));
  const answers: Array<() => Response> = [
    () => new Response("oops", { status: 502 }),
    () => Response.json({ rate: "0.91", asOf: "2026-11-23T12:00:05Z" }),
    () => Response.json({ rate: -1, asOf: "nonsense" }),
  ];
  let calls = 0;
  const feed = httpRateFeed({
    url: "https://rates.example/usdt-eur",
    now: clock.now,
    cacheMs: 10_000,
    fetch: () => Promise.resolve(answers[Math.min(calls++, answers.length - 1)]()),
  });
  assertEquals(await feed.usdtEur(), null);
  assertEquals(await feed.usdtEur(), null); // cached: no second call inside cacheMs
  assertEquals(calls, 1);
  clock.advance(10_000);
  const got = await feed.usdtEur();
  assertEquals([got?.rate, got?.asOf.toISOString(), got?.source], [
    "0.91",
    "2026-11-23T12:00:05.000Z",
    "feed:rates.example",
  ]);
  clock.advance(10_000);
  assertEquals((await feed.usdtEur())?.rate, "0.91"); // malformed answer: the last good one stays
  assertEquals(calls, 3);
});
