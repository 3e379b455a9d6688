// Bad and hostile input to the history and its exports: each answer a clear catalogue code, never a 500,
// never another merchant's rows.
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { generateHistory } from "../../bench/transactions_data.ts";

const END = new Date("2026-06-30T12:00:00.000Z");

Deno.test("the history refuses bad input with catalogue codes and leaks nothing", async (t) => {
  const gw = await startTestGateway();
  try {
    const a = await gw.createMerchant("Careful Shop");
    const b = await gw.createMerchant("Other Shop");
    for (const m of [a, b]) {
      await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 100_000 } });
    }
    await generateHistory(gw.db, { merchantId: a.merchantId, count: 200, seed: 5, endAt: END });
    const bRows = await generateHistory(gw.db, {
      merchantId: b.merchantId,
      count: 200,
      seed: 6,
      endAt: END,
      collect: true,
    });
    const bIds = new Set(bRows.map((r) => r.id));
    const key = a.keys.liveSecret;
    const get = (path: string, k = key) => gw.request("GET", path, { key: k });

    await t.step("each bad query answers its code", async () => {
      const cases: Array<[string, number, string]> = [
        ["/v1/transactions?typ=PAYIN", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?sort=amount", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?type=TOPUP", 400, "INVALID_TRANSACTION_TYPE"],
        ["/v1/transactions?type=payin", 400, "INVALID_TRANSACTION_TYPE"],
        ["/v1/transactions?type=PAYIN&type=PAYOUT", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?status=DONE", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?currency=EUR", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?from=2026-06-10&to=2026-06-01", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?from=2026-06-10T00:00:00Z&to=2026-06-09T23:59:59.999Z", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?from=2026-02-30", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?from=2026-06-01T24:00:00Z", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?from=2026-06-01T10:00:00", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?from=yesterday", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?from=1969-12-31", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?to=275760-09-13", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?search=ab", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?search=%20%20ab%20%20", 400, "VALIDATION_ERROR"],
        [`/v1/transactions?search=${"x".repeat(101)}`, 400, "VALIDATION_ERROR"],
        [`/v1/transactions?search=${"x".repeat(20_000)}`, 400, "VALIDATION_ERROR"],
        ["/v1/transactions?search=abc%01def", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?search=abc%1Fdef", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?search=abc%00def", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?cursor=nonsense!", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?cursor=bm90IGEgY3Vyc29y", 400, "VALIDATION_ERROR"],
        [`/v1/transactions?cursor=${btoa("1.pay_x")}`, 400, "VALIDATION_ERROR"],
        [
          "/v1/transactions?cursor=MTc5NDk2Nzk5NjIxNi5wYXlfMDFtOGJwZzd5cmUxcXd2ZTRiYXRmOXlwc3k&page=2",
          400,
          "VALIDATION_ERROR",
        ],
        ["/v1/transactions?page=501&limit=20", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?page=0", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?page=1e3", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?limit=101", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?limit=-1", 400, "VALIDATION_ERROR"],
        ["/v1/transactions?limit=abc", 400, "VALIDATION_ERROR"],
        ["/v1/transactions/nope", 404, "NOT_FOUND"],
        ["/v1/transactions/pay_%27%3B%20DROP%20TABLE%20transactions%3B--", 404, "NOT_FOUND"],
        [`/v1/transactions/pay_${"0".repeat(26)}`, 404, "NOT_FOUND"],
        [`/v1/transactions/whe_${"0".repeat(26)}`, 404, "NOT_FOUND"],
        ["/v1/transactions/export", 400, "VALIDATION_ERROR"],
        ["/v1/transactions/export?from=2026-01-01", 400, "VALIDATION_ERROR"],
        ["/v1/transactions/export?to=2026-01-01", 400, "VALIDATION_ERROR"],
        ["/v1/transactions/export?from=2026-02-01&to=2026-01-01", 400, "VALIDATION_ERROR"],
        ["/v1/transactions/export?from=2026-01-01&to=2026-02-01&type=PAYIN", 400, "VALIDATION_ERROR"],
        ["/v1/transactions/export?from=2026-01-01&to=not-a-date", 400, "VALIDATION_ERROR"],
        ["/v1/exports/exp_nope/status", 404, "NOT_FOUND"],
        [`/v1/exports/exp_${"0".repeat(26)}/download`, 404, "NOT_FOUND"],
      ];
      for (const [path, status, code] of cases) {
        const res = await get(path);
        assertEquals(
          [res.status, res.json?.error?.code],
          [status, code],
          `${path.slice(0, 120)}: ${res.text.slice(0, 200)}`,
        );
      }
    });

    await t.step("SQL and regex metacharacters are literal and never reach another merchant", async () => {
      for (
        const term of [
          "' OR 1=1 --",
          "'; DROP TABLE transactions; --",
          ".*.",
          "%_%",
          "\\%\\",
          "$1;",
          "(?i)a",
          "^ord",
          "a|b|c",
        ]
      ) {
        const res = await get(`/v1/transactions?search=${encodeURIComponent(term)}&limit=100`);
        assertEquals(res.status, 200, `${term}: ${res.text}`);
        for (const item of res.json.data.items) {
          assert(!bIds.has(item.id), `${term} leaked another merchant's row`);
          const fields = [
            item.customerEmail,
            item.customerName,
            item.customerPhone,
            item.externalRef,
            item.note,
            item.recipientName,
            item.destination,
          ];
          assert(
            fields.some((f) => typeof f === "string" && f.toLowerCase().includes(term.toLowerCase())),
            term,
          );
        }
      }
      assertEquals((await gw.db.query("SELECT 1 FROM transactions LIMIT 1")).length, 1);
    });

    await t.step("another merchant's ids and cursors show nothing of theirs", async () => {
      for (const id of [...bIds].slice(0, 20)) {
        const res = await get(`/v1/transactions/${id}`);
        assertEquals([res.status, res.json.error.code], [404, "NOT_FOUND"]);
      }
      // A cursor made from B's newest row is only a position: A's rows before it, never B's.
      const newest = bRows.sort((x, y) => y.createdAtMs - x.createdAtMs)[0];
      const cursor = btoa(`${newest.createdAtMs}.${newest.id}`).replaceAll("=", "");
      const res = await get(`/v1/transactions?cursor=${cursor}&limit=100`);
      assertEquals(res.status, 200);
      for (const item of res.json.data.items) assert(!bIds.has(item.id));
    });

    await t.step("keys: none 401, publishable 403, and 50 identical requests agree", async () => {
      const none = await gw.request("GET", "/v1/transactions");
      assertEquals([none.status, none.json.error.code], [401, "UNAUTHORIZED"]);
      for (
        const path of [
          "/v1/transactions",
          `/v1/transactions/${[...bIds][0]}`,
          "/v1/transactions/export?from=2026-01-01&to=2026-02-01",
        ]
      ) {
        const pk = await get(path, a.keys.livePublishable);
        assertEquals([pk.status, pk.json.error.code, pk.json.error.cause], [
          403,
          "FORBIDDEN",
          "INSUFFICIENT_SCOPE",
        ], path);
      }
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => get("/v1/transactions?type=PAYIN&limit=5")),
      );
      assertEquals(new Set(answers.map((r) => r.status)), new Set([200]));
      assertEquals(new Set(answers.map((r) => JSON.stringify(r.json.data))).size, 1);
    });
  } finally {
    await gw.close();
  }
});
