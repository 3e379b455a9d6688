// CSV export jobs: the file of a generated history matches the sources row for row (100,000 rows on
// PostgreSQL; 20,000 on PGlite, where generating them through the triggers takes a minute per 100,000),
// a runner that dies mid-file is replaced without a row written twice or lost, identical requests share a
// job, and nobody reads another merchant's job.
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { generateHistory } from "../../bench/transactions_data.ts";
import { assertFileMatches, download, drainExports, expectedRows } from "../export_helpers.ts";
import { claimJob } from "../../db/exports.ts";
import { appendChunk } from "../../db/exports.ts";
import {
  EXPORT_LEASE_MS,
  purgeExpiredExports,
  runExportJob,
  sweepExports,
} from "../../domain/exports/run.ts";
import { transactionsCsv } from "../../domain/transactions/export_csv.ts";
import { manualClock } from "../../domain/clock.ts";

const END = new Date("2026-06-30T12:00:00.000Z");
const ROWS = Deno.env.get("DATABASE_URL") ? 100_000 : 20_000;

Deno.test(`a ${ROWS.toLocaleString("en")}-row export matches the sources row for row`, async (t) => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Export Shop");
    const other = await gw.createMerchant("Other Shop");
    for (const x of [m, other]) {
      await gw.admin("PATCH", `/admin/api/merchants/${x.merchantId}`, { rateLimits: { default: 100_000 } });
    }
    await generateHistory(gw.db, {
      merchantId: m.merchantId,
      count: ROWS,
      seed: 11,
      endAt: END,
      spanDays: 90,
    });
    await generateHistory(gw.db, {
      merchantId: m.merchantId,
      count: 500,
      seed: 12,
      endAt: END,
      isSandbox: true,
    });
    await generateHistory(gw.db, { merchantId: other.merchantId, count: 1000, seed: 13, endAt: END });
    const key = m.keys.liveSecret;

    let jobId = "";
    await t.step("the route answers { jobId, status } at once; the queue builds the file", async () => {
      const res = await gw.request("GET", "/v1/transactions/export?from=2026-01-01&to=2026-06-30", { key });
      assertEquals(res.status, 202, res.text);
      assertEquals(Object.keys(res.json.data).sort(), ["jobId", "status"]);
      assertEquals(res.json.data.status, "QUEUED");
      jobId = res.json.data.jobId;
      const before = await gw.request("GET", `/v1/exports/${jobId}/download`, { key });
      assertEquals([before.status, before.json.error.code], [400, "INVALID_STATE"]);
      await drainExports(gw);
      const status = await gw.request("GET", `/v1/exports/${jobId}/status`, { key });
      assertEquals(status.status, 200, status.text);
      assertEquals([status.json.data.status, status.json.data.rows], ["COMPLETED", ROWS]);
      assertEquals(status.json.data.downloadUrl, `/v1/exports/${jobId}/download`);
    });

    await t.step("the download is the sources' rows, oldest first, exact, spreadsheet-safe", async () => {
      const { res, text } = await download(gw, key, jobId);
      assertEquals(res.status, 200);
      assertEquals(res.headers.get("content-type"), "text/csv; charset=utf-8");
      assertEquals(
        res.headers.get("content-disposition"),
        'attachment; filename="transactions_2026-01-01_2026-06-30.csv"',
      );
      const want = await expectedRows(
        gw,
        m.merchantId,
        false,
        "2026-01-01T00:00:00Z",
        "2026-07-01T00:00:00Z",
      );
      assertEquals(want.length, ROWS);
      assertFileMatches(text, want);
    });

    await t.step("a period cut inside the history holds exactly its rows", async () => {
      const from = "2026-05-03T10:15:00.250Z";
      const to = "2026-05-20T08:00:00.000+01:00";
      const res = await gw.request(
        "GET",
        `/v1/transactions/export?from=${from}&to=${encodeURIComponent(to)}`,
        { key },
      );
      await drainExports(gw);
      const { text } = await download(gw, key, res.json.data.jobId);
      const want = await expectedRows(
        gw,
        m.merchantId,
        false,
        from,
        new Date(Date.parse(to) + 1).toISOString(),
      );
      assert(want.length > 100);
      assertFileMatches(text, want);
    });

    await t.step("the job is its merchant's and mode's only", async () => {
      for (const k of [other.keys.liveSecret, m.keys.testSecret]) {
        for (const path of [`/v1/exports/${jobId}/status`, `/v1/exports/${jobId}/download`]) {
          const res = await gw.request("GET", path, { key: k });
          assertEquals([res.status, res.json.error.code], [404, "NOT_FOUND"], path);
        }
      }
      const sandbox = await gw.request("GET", "/v1/transactions/export?from=2020-01-01&to=2026-12-31", {
        key: m.keys.testSecret,
      });
      await drainExports(gw);
      const { text } = await download(gw, m.keys.testSecret, sandbox.json.data.jobId);
      assertFileMatches(
        text,
        await expectedRows(gw, m.merchantId, true, "2020-01-01T00:00:00Z", "2027-01-01T00:00:00Z"),
      );
    });
  } finally {
    await gw.close();
  }
});

Deno.test("a runner that dies mid-file is replaced from its last chunk: no row twice, none lost", async () => {
  const clock = manualClock(new Date("2026-07-01T00:00:00.000Z"));
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Crash Shop");
    await generateHistory(gw.db, { merchantId: m.merchantId, count: 2_345, seed: 21, endAt: END });
    const key = m.keys.liveSecret;
    const started = await gw.request("GET", "/v1/transactions/export?from=2025-01-01&to=2026-06-30", { key });
    const jobId = started.json.data.jobId;
    gw.enqueued.splice(0); // the queue message vanished

    // A runner claims the job and commits two pages of 500, then its process dies (no release).
    const dead = "dead-runner-token";
    const job = (await claimJob(gw.db, jobId, dead, clock.now(), EXPORT_LEASE_MS))!;
    let cursor: unknown = null;
    for (let seq = 0; seq < 2; seq++) {
      const page = await transactionsCsv.nextPage(
        gw.deps,
        { merchantId: m.merchantId, isSandbox: false },
        job.params,
        cursor,
        500,
      );
      assert(
        await appendChunk(gw.db, {
          jobId,
          token: dead,
          seq,
          rows: page.rows,
          text: page.text,
          cursor: page.cursor,
          now: clock.now(),
          leaseMs: EXPORT_LEASE_MS,
        }),
      );
      cursor = page.cursor;
    }
    // While its lease holds, nobody else writes; the cron finds nothing due.
    assertEquals(await runExportJob(gw.deps, jobId), "BUSY");
    assertEquals(await sweepExports(gw.deps), 0);

    clock.advance(EXPORT_LEASE_MS + 1);
    assertEquals(await sweepExports(gw.deps), 1);
    const status = await gw.request("GET", `/v1/exports/${jobId}/status`, { key });
    assertEquals([status.json.data.status, status.json.data.rows], ["COMPLETED", 2_345]);
    const [row] = await gw.db.query<{ failures: number }>("SELECT failures FROM export_jobs WHERE id = $1", [
      jobId,
    ]);
    assertEquals(row.failures, 1, "the dead runner counts as one failed run");

    // The dead runner wakes up and tries to go on: its token is gone, it writes nothing.
    const late = await transactionsCsv.nextPage(
      gw.deps,
      { merchantId: m.merchantId, isSandbox: false },
      job.params,
      cursor,
      500,
    );
    assertEquals(
      await appendChunk(gw.db, {
        jobId,
        token: dead,
        seq: 2,
        rows: late.rows,
        text: late.text,
        cursor: late.cursor,
        now: clock.now(),
        leaseMs: EXPORT_LEASE_MS,
      }),
      false,
    );
    const { text } = await download(gw, key, jobId);
    assertFileMatches(
      text,
      await expectedRows(gw, m.merchantId, false, "2025-01-01T00:00:00Z", "2026-07-01T00:00:00Z"),
    );

    // Seven days on, the file is deleted; the job still answers, as EXPIRED.
    clock.advance(7 * 86_400_000 + 1);
    assertEquals(await purgeExpiredExports(gw.deps), 1);
    const expired = await gw.request("GET", `/v1/exports/${jobId}/download`, { key });
    assertEquals([expired.status, expired.json.error.code], [400, "INVALID_STATE"]);
    assertEquals(
      (await gw.request("GET", `/v1/exports/${jobId}/status`, { key })).json.data.status,
      "EXPIRED",
    );
    assertEquals((await gw.db.query("SELECT 1 FROM export_chunks WHERE job_id = $1", [jobId])).length, 0);
  } finally {
    await gw.close();
  }
});

Deno.test("identical export requests share one job; a fourth open job waits; a broken job fails for good", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Busy Shop");
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 100_000 } });
    const key = m.keys.liveSecret;
    const ask = (from: string) =>
      gw.request("GET", `/v1/transactions/export?from=${from}&to=2026-06-30`, { key });
    const answers = await Promise.all(Array.from({ length: 50 }, () => ask("2026-01-01")));
    assertEquals(new Set(answers.map((a) => a.status)), new Set([202]));
    assertEquals(new Set(answers.map((a) => a.json.data.jobId)).size, 1);
    assertEquals((await ask("2026-02-01")).status, 202);
    assertEquals((await ask("2026-03-01")).status, 202);
    const fourth = await ask("2026-04-01");
    assertEquals([fourth.status, fourth.json.error.code, fourth.headers.get("retry-after")], [
      429,
      "RATE_LIMITED",
      "30",
    ]);
    const [{ n }] = await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM export_jobs");
    assertEquals(n, 3);
    await drainExports(gw);
    assertEquals((await ask("2026-04-01")).status, 202, "room again once they finished");

    // A job of a form this version does not know cannot be built: FAILED, and its download says so.
    const jobId = answers[0].json.data.jobId;
    await gw.db.query("UPDATE export_jobs SET kind = 'NO_SUCH_FORM', status = 'QUEUED' WHERE id = $1", [
      jobId,
    ]);
    assertEquals(await runExportJob(gw.deps, jobId), "FAILED");
    const res = await gw.request("GET", `/v1/exports/${jobId}/download`, { key });
    assertEquals([res.status, res.json.error.code], [400, "INVALID_STATE"]);
  } finally {
    await gw.close();
  }
});
