// GET /v1/transactions over a generated history (bench/transactions_data.ts: every type and rail, three
// merchants, both modes): every filter, their combinations and search return exactly the rows an oracle
// computed from what was generated, in order, through the offset pages and the keyset cursor alike.
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { type GeneratedTx, generateHistory } from "../../bench/transactions_data.ts";
import { likeContains } from "../../db/transactions.ts";
import { countSearchMatches, type SearchMemo, searchTransactionRows } from "../../db/transactions_search.ts";

const END = new Date("2026-06-30T12:00:00.000Z");
const DAY = 86_400_000;

type Query = Record<string, string>;

/** The oracle: what a query must return, newest first, ties by id (the database's C collation = JS order). */
function expected(all: GeneratedTx[], q: Query): string[] {
  const term = q.search?.trim().toLowerCase();
  const from = q.from ? Date.parse(q.from.length === 10 ? `${q.from}T00:00:00Z` : q.from) : -Infinity;
  const before = q.to
    ? (q.to.length === 10 ? Date.parse(`${q.to}T00:00:00Z`) + DAY : Date.parse(q.to) + 1)
    : Infinity;
  return all
    .filter((t) =>
      (!q.type || t.type === q.type) && (!q.status || t.status === q.status) &&
      (!q.currency || t.currency === q.currency) && t.createdAtMs >= from && t.createdAtMs < before &&
      (!term || t.searchable.some((f) => f.toLowerCase().includes(term)))
    )
    .sort((a, b) => b.createdAtMs - a.createdAtMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((t) => t.id);
}

/** Every page of a query by cursor, checking the meta on the way. */
async function allByCursor(gw: TestGateway, key: string, q: Query, limit = 100) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let total = -1;
  for (let guard = 0; guard < 100; guard++) {
    const params = new URLSearchParams({ ...q, limit: String(limit), ...(cursor ? { cursor } : {}) });
    const res = await gw.request("GET", `/v1/transactions?${params}`, { key });
    assertEquals(res.status, 200, res.text);
    const meta = res.json.data.meta;
    if (total === -1) total = meta.total;
    assertEquals(meta.total, total, "the count does not move between pages");
    ids.push(...res.json.data.items.map((i: { id: string }) => i.id));
    cursor = meta.nextCursor;
    assertEquals(meta.hasNext, cursor !== null);
    if (!cursor) return { ids, total };
  }
  throw new Error("more than 100 pages");
}

Deno.test("a generated history: filters, ranges and search return exactly the expected rows", async (t) => {
  const gw = await startTestGateway();
  try {
    const a = await gw.createMerchant("History Shop");
    const b = await gw.createMerchant("Neighbour Shop");
    for (const m of [a, b]) {
      await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 100_000 } });
    }
    const aLive = await generateHistory(gw.db, {
      merchantId: a.merchantId,
      count: 1500,
      seed: 1,
      endAt: END,
      spanDays: 60,
      collect: true,
    });
    const aTest = await generateHistory(gw.db, {
      merchantId: a.merchantId,
      count: 300,
      seed: 2,
      endAt: END,
      spanDays: 60,
      isSandbox: true,
      collect: true,
    });
    const bLive = await generateHistory(gw.db, {
      merchantId: b.merchantId,
      count: 600,
      seed: 3,
      endAt: END,
      spanDays: 60,
      collect: true,
    });
    const types = new Set(aLive.map((x) => `${x.type}/${x.paymentMethod}`));
    for (
      const kind of [
        "PAYIN/USDT_TRC20",
        "PAYIN/CARD",
        "PAYIN/MOBILE_MONEY",
        "PAYOUT/USDT_TRC20",
        "WITHDRAWAL/USDT_TRC20",
        "WITHDRAWAL/MOBILE_MONEY",
        "WITHDRAWAL/BANK",
        "CONVERSION/null",
        "BULK_ITEM/USDT_TRC20",
        "BULK_ITEM/MOBILE_MONEY",
      ]
    ) assert(types.has(kind), `the generated history has ${kind}`);

    await t.step("the projection equals its sources' views, row for row", async () => {
      const [d] = await gw.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ((SELECT * FROM transaction_rows EXCEPT SELECT * FROM transactions)
          UNION ALL (SELECT * FROM transactions EXCEPT SELECT * FROM transaction_rows)) d`,
      );
      assertEquals(d.n, 0);
    });

    const queries: Query[] = [
      {},
      ...["PAYIN", "PAYOUT", "WITHDRAWAL", "CONVERSION", "BULK_ITEM"].map((type) => ({ type })),
      ...["CONFIRMED", "FAILED", "PENDING_REVIEW", "SUCCEEDED", "UNDERPAID", "CANCELLED"].map((status) => ({
        status,
      })),
      { currency: "XOF" },
      { currency: "USDT_TRC20", type: "WITHDRAWAL" },
      { type: "WITHDRAWAL", status: "REJECTED" },
      { from: "2026-06-01", to: "2026-06-07" },
      { from: "2026-06-10T08:30:00.000Z", to: "2026-06-20T17:45:12.345+02:00", type: "PAYIN" },
      { search: "gmail.com" },
      { search: "  TRAORÉ  " },
      { search: "δημήτρης" },
      { search: "100%_" },
      { search: "50%" },
      { search: "a_b" },
      { search: "Back\\slash" },
      { search: "(.*)" },
      { search: "[abc]" },
      { search: "O'Brien" },
      { search: "=HYPERLINK" },
      { search: "+2267" },
      { search: "ORD-1-" },
      { search: "PAIE-" },
      { search: "acompte", type: "PAYOUT" },
      { search: "zzqqxx" },
      { search: "%%%" },
      { search: "___" },
      { search: "café" },
    ];
    await t.step("each query by cursor, live key: exactly the oracle's ids, in order", async () => {
      for (const q of queries) {
        const want = expected(aLive, q);
        const got = await allByCursor(gw, a.keys.liveSecret, q);
        assertEquals(got.ids, want, JSON.stringify(q));
        assertEquals(got.total, Math.min(want.length, 1_000), JSON.stringify(q));
      }
    });

    await t.step("both steps of a search give the oracle's rows, whichever answers", async () => {
      const terms = ["gmail.com", "traoré", "ORD-1-1", "50%", "acompte", "zzqqxx", "+2267", "o'brien"];
      for (
        const windows of [
          { list: 5, count: 50 },
          { list: 100, count: 400 },
          { list: 5_000, count: 5_000 },
          // The probe (issue 21): sparse and dense samples, so its page and its fallback both answer.
          { list: 5, count: 50, probe: { points: 4, rows: 2, minEstimate: 0 } },
          { list: 5, count: 50, probe: { points: 16, rows: 8, minEstimate: 0 } },
          { list: 2, count: 20, probe: { points: 64, rows: 40, minEstimate: 0 } },
        ]
      ) {
        for (const term of terms) {
          const filter = { merchantId: a.merchantId, isSandbox: false, searchPattern: likeContains(term) };
          const want = expected(aLive, { search: term });
          // The page's probe, handed to the count as the list route does.
          const memo: SearchMemo = {};
          const first = await searchTransactionRows(gw.db, filter, { limit: 21 }, windows, memo);
          assertEquals(first.map((r) => r.id), want.slice(0, 21), `${term} ${JSON.stringify(windows)}`);
          const last = first.at(-2);
          if (last) {
            const after = { createdAt: last.created_at, id: last.id };
            const next = await searchTransactionRows(gw.db, filter, { limit: 21, after }, windows);
            assertEquals(next.map((r) => r.id), want.slice(20, 41), `${term} after`);
          }
          const offset = await searchTransactionRows(gw.db, filter, { limit: 11, offset: 30 }, windows);
          assertEquals(offset.map((r) => r.id), want.slice(30, 41), `${term} offset`);
          const counted = await countSearchMatches(gw.db, filter, 101, windows);
          assertEquals(Math.min(counted, 101), Math.min(want.length, 101), `${term} count`);
          const withMemo = await countSearchMatches(gw.db, filter, 101, windows, memo);
          assertEquals(Math.min(withMemo, 101), Math.min(want.length, 101), `${term} count with the probe`);
        }
      }
    });

    await t.step("the sandbox key sees its own mode only; the other merchant never appears", async () => {
      const few: Query[] = [{}, { type: "PAYIN" }, { search: "gmail.com" }, { status: "FAILED" }];
      for (const q of few) {
        assertEquals(
          (await allByCursor(gw, a.keys.testSecret, q)).ids,
          expected(aTest, q),
          JSON.stringify(q),
        );
        assertEquals(
          (await allByCursor(gw, b.keys.liveSecret, q)).ids,
          expected(bLive, q),
          JSON.stringify(q),
        );
      }
    });

    await t.step("offset pages give the same rows as the cursor", async () => {
      const want = expected(aLive, { type: "PAYIN" });
      const got: string[] = [];
      for (let page = 1;; page++) {
        const res = await gw.request("GET", `/v1/transactions?type=PAYIN&limit=37&page=${page}`, {
          key: a.keys.liveSecret,
        });
        const { items, meta } = res.json.data;
        const total = Math.min(want.length, 1_000);
        assertEquals([meta.page, meta.limit, meta.total, meta.totalExact], [
          page,
          37,
          total,
          want.length <= 1_000,
        ]);
        assertEquals(meta.totalPages, Math.ceil(total / 37));
        assertEquals(meta.hasPrev, page > 1);
        got.push(...items.map((i: { id: string }) => i.id));
        if (!meta.hasNext) break;
      }
      assertEquals(got, want);
    });

    await t.step("one record by id: its own merchant and mode only", async () => {
      const sample = [
        aLive.find((x) => x.type === "CONVERSION")!,
        aLive.find((x) => x.type === "BULK_ITEM")!,
      ];
      for (const tx of sample) {
        const mine = await gw.request("GET", `/v1/transactions/${tx.id}`, { key: a.keys.liveSecret });
        assertEquals([mine.status, mine.json.data.id, mine.json.data.type], [200, tx.id, tx.type]);
        for (const key of [a.keys.testSecret, b.keys.liveSecret, b.keys.testSecret]) {
          const other = await gw.request("GET", `/v1/transactions/${tx.id}`, { key });
          assertEquals([other.status, other.json.error.code], [404, "NOT_FOUND"]);
        }
      }
    });
  } finally {
    await gw.close();
  }
});
