// The analytics roll-ups (migration 038) equal a direct recount of the pay-ins after a generated mixed
// history: inserts on two merchants and both modes over six weeks, status moves (AWAITING_PAYMENT ->
// PENDING -> CONFIRMED, -> EXPIRED, -> FAILED), amounts changed after credit, deletions, with folds of
// part of the deltas in between; periods aligned on days, cut inside days, inside one day, by week.
import { foldPayinDaily, payinsByStatus, settledVolume } from "../../db/analytics.ts";
import type { Db } from "../../db/mod.ts";
import { analyticsSummary, foldAnalyticsRollups } from "../../domain/analytics/mod.ts";
import { Decimal } from "../../domain/money.ts";
import { assertEquals } from "../assert.ts";
import { withGateway } from "../helpers.ts";

const BASE = Date.UTC(2026, 2, 1);
const HOUR = 3_600_000;

/** A small deterministic generator: the same history on every run and both databases. */
function rng(seed: number) {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
}

type Recount = { volume: Map<string, string>; status: Map<string, number> };

/** What the roll-ups must say, counted from payins directly. */
async function recount(
  db: Db,
  q: { merchantId: string; isSandbox: boolean; from: Date; to: Date },
  week = false,
) {
  const volume = await db.query<{ k: string; v: string }>(
    `SELECT to_char(date_trunc($5, (confirmed_at AT TIME ZONE 'UTC')::date::timestamp), 'YYYY-MM-DD') || ' ' ||
            currency AS k, count(*) || ' ' || sum(amount_received) || ' ' || sum(service_fee + network_fee) AS v
       FROM payins WHERE merchant_id = $1 AND is_sandbox = $2 AND confirmed_at >= $3 AND confirmed_at < $4
      GROUP BY 1`,
    [q.merchantId, q.isSandbox, q.from, q.to, week ? "week" : "day"],
  );
  const status = await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM payins
      WHERE merchant_id = $1 AND is_sandbox = $2 AND created_at >= $3 AND created_at < $4 GROUP BY 1`,
    [q.merchantId, q.isSandbox, q.from, q.to],
  );
  return {
    volume: new Map(volume.map((r) => [r.k, r.v])),
    status: new Map(status.map((r) => [r.status, r.n])),
  } satisfies Recount;
}

async function rolled(
  db: Db,
  q: { merchantId: string; isSandbox: boolean; from: Date; to: Date },
  week = false,
) {
  const volume = await settledVolume(db, { ...q, interval: week ? "week" : "day" });
  const status = await payinsByStatus(db, q);
  // Amounts compared as numbers written canonically (numeric sums may carry trailing zeros).
  const canon = (v: string) => new Decimal(v).toString();
  return {
    volume: new Map(
      volume.map((r) => [`${r.bucket} ${r.currency}`, `${r.count} ${canon(r.volume)} ${canon(r.fees)}`]),
    ),
    status: new Map(status.map((r) => [r.status, r.count])),
  };
}

function canonRecount(r: Recount): Recount {
  const volume = new Map(
    [...r.volume].map(([k, v]) => {
      const [n, vol, fees] = v.split(" ");
      return [k, `${n} ${new Decimal(vol)} ${new Decimal(fees)}`];
    }),
  );
  return { volume, status: r.status };
}

Deno.test(
  "analytics roll-ups: equal a direct recount after a mixed history, folded or not",
  withGateway(async (gw) => {
    const db = gw.db;
    const merchants = [await gw.createMerchant("Roll A"), await gw.createMerchant("Roll B")];
    const rand = rng(21);
    const ids: string[] = [];
    const insert = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const m = merchants[Math.floor(rand() * 2)];
        const xof = rand() < 0.4;
        const created = new Date(BASE + Math.floor(rand() * 42 * 24 * HOUR) + Math.floor(rand() * HOUR));
        const id = `pay_rollup${String(ids.length).padStart(6, "0")}`;
        ids.push(id);
        await db.query(
          `INSERT INTO payins (id, merchant_id, is_sandbox, payment_method, status, currency, amount, amount_expected,
                               expires_at, created_at)
           VALUES ($1, $2, $3, $4, 'AWAITING_PAYMENT', $5, $6, $6, $7, $7)`,
          [
            id,
            m.merchantId,
            rand() < 0.2,
            xof ? "MOBILE_MONEY" : "USDT_TRC20",
            xof ? "XOF" : "USDT_TRC20",
            xof ? String(1000 + Math.floor(rand() * 50_000)) : (1 + rand() * 500).toFixed(6),
            created,
          ],
        );
      }
    };
    // Moves a random fifth of the pay-ins one step along; credited ones get confirmed_at and amounts.
    const move = async () => {
      for (const id of ids) {
        const r = rand();
        if (r > 0.2) continue;
        const [p] = await db.query<{ status: string; amount: string; created_at: Date }>(
          "SELECT status, amount::text, created_at FROM payins WHERE id = $1",
          [id],
        );
        if (!p) continue;
        const confirmedAt = new Date(p.created_at.getTime() + Math.floor(rand() * 30 * HOUR));
        if (p.status === "AWAITING_PAYMENT") {
          const next = r < 0.03 ? "EXPIRED" : r < 0.05 ? "FAILED" : "PENDING";
          await db.query("UPDATE payins SET status = $2 WHERE id = $1", [id, next]);
        } else if (p.status === "PENDING") {
          const received = new Decimal(p.amount).times(r < 0.05 ? "1.1" : "1");
          await db.query(
            `UPDATE payins SET status = $2, confirmed_at = $3, amount_received = $4, service_fee = $4 * 0.01,
                    network_fee = 1, net_amount = $4 * 0.99 - 1 WHERE id = $1`,
            [id, r < 0.05 ? "OVERPAID" : "CONFIRMED", confirmedAt, received.toString()],
          );
        } else if (p.status === "CONFIRMED" && r < 0.04) {
          // A correction after credit: what was received and the fee change (the volume must follow).
          await db.query(
            "UPDATE payins SET amount_received = amount_received + 1, service_fee = service_fee + 0.5 WHERE id = $1",
            [id],
          );
        } else if (r < 0.01) {
          await db.query("DELETE FROM transactions WHERE id = $1", [id]);
          await db.query("DELETE FROM payins WHERE id = $1", [id]);
        } else {
          // An update that touches nothing the roll-ups count writes no delta.
          await db.query("UPDATE payins SET customer_name = 'Awa' WHERE id = $1", [id]);
        }
      }
    };
    const periods: Array<[Date, Date]> = [
      [new Date(BASE), new Date(BASE + 45 * 24 * HOUR)], // whole days
      [new Date(BASE + 5 * HOUR + 17_000), new Date(BASE + 30 * 24 * HOUR + 13 * HOUR)], // cut inside days
      [new Date(BASE + 3 * 24 * HOUR + 2 * HOUR), new Date(BASE + 3 * 24 * HOUR + 20 * HOUR)], // inside one day
      [new Date(BASE + 10 * 24 * HOUR), new Date(BASE + 11 * 24 * HOUR)], // exactly one day
      [new Date(BASE - 10 * 24 * HOUR), new Date(BASE + 3 * 24 * HOUR + 1)], // before the history to a day + 1 ms
    ];
    const check = async (when: string) => {
      for (const m of merchants) {
        for (const isSandbox of [false, true]) {
          for (const [from, to] of periods) {
            for (const week of [false, true]) {
              const q = { merchantId: m.merchantId, isSandbox, from, to };
              const label = `${when} ${m.merchantId} sandbox=${isSandbox} ${from.toISOString()} week=${week}`;
              const want = canonRecount(await recount(db, q, week));
              const got = await rolled(db, q, week);
              assertEquals(got.volume, want.volume, label);
              assertEquals(got.status, want.status, label);
            }
          }
        }
      }
    };
    await insert(300);
    await check("after inserts, nothing folded");
    await move();
    await foldPayinDaily(db, 97); // part of the deltas only
    await move();
    await check("after moves, part folded");
    await insert(100);
    await move();
    await move();
    await foldAnalyticsRollups(gw.deps);
    await check("after more moves, all folded");
    const [{ pending }] = await db.query<{ pending: number }>(
      "SELECT count(*)::int AS pending FROM payin_daily_deltas",
    );
    assertEquals(pending, 0);
    // Folded, the daily rows are the recount itself, every day and key (zero rows aside).
    const daily = await db.query<{ k: string }>(
      `SELECT merchant_id || is_sandbox || kind || day || currency || status || ':' || count || ':' ||
              volume::numeric(30, 6) || ':' || fees::numeric(30, 6) AS k
         FROM payin_daily WHERE count <> 0 ORDER BY 1`,
    );
    const direct = await db.query<{ k: string }>(
      `SELECT k FROM (
         SELECT merchant_id || is_sandbox || 'CREATED' || (created_at AT TIME ZONE 'UTC')::date || currency || status ||
                ':' || count(*) || ':' || 0::numeric(30, 6) || ':' || 0::numeric(30, 6) AS k FROM payins GROUP BY
                merchant_id, is_sandbox, (created_at AT TIME ZONE 'UTC')::date, currency, status
         UNION ALL
         SELECT merchant_id || is_sandbox || 'SETTLED' || (confirmed_at AT TIME ZONE 'UTC')::date || currency || ':' ||
                count(*) || ':' || sum(amount_received)::numeric(30, 6) || ':' ||
                sum(service_fee + network_fee)::numeric(30, 6)
           FROM payins WHERE confirmed_at IS NOT NULL
          GROUP BY merchant_id, is_sandbox, (confirmed_at AT TIME ZONE 'UTC')::date, currency
       ) AS d ORDER BY 1`,
    );
    assertEquals(daily.map((r) => r.k), direct.map((r) => r.k));
    // A status move is a count moved: PENDING -> CONFIRMED takes one from PENDING and adds one to CONFIRMED.
    const scope = { merchantId: merchants[0].merchantId, isSandbox: false };
    const range = { from: "2026-02-01", to: "2026-05-01" };
    const [pending1] = await db.query<{ id: string }>(
      "SELECT id FROM payins WHERE merchant_id = $1 AND NOT is_sandbox AND status = 'PENDING' LIMIT 1",
      [scope.merchantId],
    );
    const before = await analyticsSummary(gw.deps, scope, range);
    await db.query(
      `UPDATE payins SET status = 'CONFIRMED', confirmed_at = created_at + interval '1 minute', amount_received = amount
        WHERE id = $1`,
      [pending1.id],
    );
    const after = await analyticsSummary(gw.deps, scope, range);
    assertEquals(after.countsByStatus.PENDING, before.countsByStatus.PENDING - 1);
    assertEquals(after.countsByStatus.CONFIRMED, before.countsByStatus.CONFIRMED + 1);
    assertEquals(after.payinCount, before.payinCount);
  }),
);
