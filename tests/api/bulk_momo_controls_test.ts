// Bulk mobile money meets the controls of XOF withdrawals (issue 18, item 5): executing needs the scope of
// XOF withdrawals; a number that is not one of the merchant's fiat destinations past its cooldown holds the
// debited batch for an operator, and nothing is sent before approval (a rejection or a cancel gives the
// money back); the per-item maximum holds at import, validate and execute; numbers of another country or
// operator are refused at import; concurrent executes and decisions move money once.
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import { advanceBatch } from "../../domain/bulk/run.ts";
import { manualClock } from "../../domain/clock.ts";
import { processDisbursement } from "../../domain/fiat_out/disburse.ts";
import { Decimal } from "../../domain/money.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { batchOf, createBatch, csvOf, upload, whitelistMany } from "../bulk_helpers.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditUsdt, creditWallet, idem } from "../money_out_helpers.ts";
import { OPERATOR_TEST_ENV, operatorClient } from "../operator_helpers.ts";

const DAY_MS = 86_400_000;
const START = new Date("2026-11-20T08:00:00Z");
/** Numbers of OPERATOR_B_BF (70...) and OPERATOR_A_BF (66...). */
const AWA = "+22670111111";
const BILA = "+22666222222";

async function setup(env: Record<string, string> = {}) {
  const clock = manualClock(START);
  const gw = await startTestGateway({ clock, env }); // the test gateway's cooldown: 24 h
  const m = await gw.createMerchant("Momo Controls Shop");
  await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 100_000 } });
  await creditWallet(gw, m.merchantId, false, "MOMO", "1000000");
  return { gw, clock, m, key: m.keys.liveSecret as string };
}

async function run(
  fn: (ctx: Awaited<ReturnType<typeof setup>>) => Promise<void>,
  env: Record<string, string> = {},
) {
  const ctx = await setup(env);
  try {
    await fn(ctx);
  } finally {
    await ctx.gw.close();
  }
}

async function momoWallet(gw: TestGateway, merchantId: string): Promise<string> {
  return new Decimal((await findWallet(gw.db, merchantId, false, "XOF", "MOMO"))!.balance).toFixed(0);
}

async function momoInFlight(gw: TestGateway): Promise<string> {
  const account = await findSystemAccount(gw.db, "IN_FLIGHT", false, "MOMO");
  const rows = await gw.db.query<{ s: string }>(
    "SELECT COALESCE(sum(amount), 0)::text AS s FROM entries WHERE account_id = $1",
    [account.id],
  );
  return new Decimal(rows[0].s).toFixed(0);
}

async function registerNumber(gw: TestGateway, key: string, phone: string, operator: string) {
  const res = await gw.request("POST", "/v1/merchants/fiat-destinations", {
    key,
    body: { kind: "MOMO", momoOperator: operator, momoPhone: phone },
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.text}`);
  return res.json.data;
}

/** A VALIDATED mobile money batch paying `items` ([phone, amount]). */
async function validatedBatch(gw: TestGateway, key: string, items: Array<[string, string]>) {
  const id = await createBatch(gw, key, "MOBILE_MONEY");
  const add = await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
    key,
    body: { items: items.map(([walletAddress, amount]) => ({ walletAddress, amount })) },
  });
  if (add.status !== 200) throw new Error(`items failed: ${add.text}`);
  const valid = await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key });
  if (valid.status !== 200) throw new Error(`validate failed: ${valid.text}`);
  return id;
}

/** What the fiat.disburse jobs and the run would do: advance, send every queued disbursement, advance. */
async function drain(gw: TestGateway, id: string): Promise<string | undefined> {
  await advanceBatch(gw.deps, id);
  const queued = gw.enqueued.splice(0).flatMap((e) =>
    e.message.type === "fiat.disburse" ? [e.message.disbursementId] : []
  );
  for (const disbursementId of queued) await processDisbursement(gw.deps, disbursementId);
  return await advanceBatch(gw.deps, id);
}

const execute = (gw: TestGateway, key: string, id: string, headers: Record<string, string> = idem()) =>
  gw.request("POST", `/v1/bulk-payments/${id}/execute`, { key, headers });

Deno.test("bulk momo: executing needs withdrawals_write (payouts_write alone pays USDT only)", () =>
  run(async ({ gw, clock, m, key }) => {
    const issue = async (scopes: string[]) =>
      (await gw.admin("POST", `/admin/api/merchants/${m.merchantId}/keys`, { kind: "restricted", scopes }))
        .json.data.key as string;
    const payoutsOnly = await issue(["payouts_read", "payouts_write"]);
    await registerNumber(gw, key, AWA, "OPERATOR_B_BF");
    clock.advance(DAY_MS);
    const id = await validatedBatch(gw, payoutsOnly, [[AWA, "200000"]]);

    for (const action of ["execute", "retry"]) {
      const refused = await gw.request("POST", `/v1/bulk-payments/${id}/${action}`, {
        key: payoutsOnly,
        headers: idem(),
      });
      assertEquals([refused.status, refused.json.error.code, refused.json.error.cause], [
        403,
        "FORBIDDEN",
        "INSUFFICIENT_SCOPE",
      ], refused.text);
    }
    assertEquals(await momoWallet(gw, m.merchantId), "1000000");
    assertEquals((await batchOf(gw, key, id)).status, "VALIDATED");
    assertEquals(gw.simulators.momoPayout.transfersMade, 0);

    // A USDT batch keeps needing payouts_write only.
    const [address] = await whitelistMany(gw, key, 1);
    await creditUsdt(gw, m.merchantId, false, "100");
    const usdt = await createBatch(gw, payoutsOnly, "USDT_TRC20");
    await gw.request("POST", `/v1/bulk-payments/${usdt}/items`, {
      key: payoutsOnly,
      body: { items: [{ walletAddress: address, amount: "10" }] },
    });
    assertEquals(
      (await gw.request("POST", `/v1/bulk-payments/${usdt}/validate`, { key: payoutsOnly })).status,
      200,
    );
    const usdtExec = await execute(gw, payoutsOnly, usdt);
    assertEquals([usdtExec.status, usdtExec.json.data.status], [202, "PROCESSING"], usdtExec.text);

    const both = await issue(["payouts_read", "payouts_write", "withdrawals_write"]);
    // Retrying a batch never executed is a state error (it used to reach the ledger with nothing to debit).
    const early = await gw.request("POST", `/v1/bulk-payments/${id}/retry`, { key: both, headers: idem() });
    assertEquals([early.status, early.json.error.code], [400, "INVALID_TRANSACTION_STATUS"], early.text);
    const ok = await execute(gw, both, id);
    assertEquals([ok.status, ok.json.data.status], [202, "PROCESSING"], ok.text);
    assertEquals(await drain(gw, id), "COMPLETED");
    assertEquals(gw.simulators.momoPayout.transfersMade, 1);
  }));

Deno.test("bulk momo: an unregistered number holds the batch for review; nothing is sent until approval", () =>
  run(async ({ gw, clock, m, key }) => {
    await registerNumber(gw, key, AWA, "OPERATOR_B_BF");
    clock.advance(DAY_MS);
    const id = await validatedBatch(gw, key, [[AWA, "50000"], [BILA, "200000"]]);
    const exec = await execute(gw, key, id);
    assertEquals([exec.status, exec.json.data.status], [202, "PENDING_REVIEW"], exec.text);
    assertMatch(exec.json.data.reviewReason, /line 2 \+22666222222: not a registered fiat destination/);
    assert(!exec.json.data.reviewReason.includes("line 1"), exec.json.data.reviewReason);
    // Debited (1,000 + 4,000 fees at 2%), reserved in review, nothing handed to the operator network.
    assertEquals(await momoWallet(gw, m.merchantId), String(1_000_000 - 255_000));
    const reserved = (await gw.request("GET", "/v1/wallets/balance", { key })).json.data.balances
      .find((b: { rail: string }) => b.rail === "MOMO");
    assertEquals([reserved.reservedInReview, reserved.reservedInFlight], ["255000", "0"]);
    assertEquals(await drain(gw, id), "PENDING_REVIEW");
    assertEquals(gw.enqueued.filter((e) => e.message.type === "bulk.advance").length, 0);
    assertEquals(gw.simulators.momoPayout.transfersMade, 0);
    const disbursements = await gw.db.query("SELECT id FROM fiat_disbursements");
    assertEquals(disbursements.length, 0);
    const again = await execute(gw, key, id);
    assertEquals([again.status, again.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);

    // The operator sees it, with why; a rejection needs a note.
    const queue = await gw.admin("GET", "/admin/api/bulk-review");
    assertEquals(queue.json.data.map((q: { batch: { id: string } }) => q.batch.id), [id]);
    assertEquals(queue.json.data[0].merchantId, m.merchantId);
    const one = await gw.admin("GET", `/admin/api/bulk-review/${id}`);
    assertEquals(one.json.data.batch.items.length, 2);
    const noNote = await gw.admin("POST", `/admin/api/bulk-review/${id}/reject`, { reviewer: "ops-awa" });
    assertEquals([noNote.status, noNote.json.error.code], [400, "REASON_NOTE_REQUIRED"]);
    assertEquals(
      (await gw.admin("POST", "/admin/api/bulk-review/blk_nope/approve", { reviewer: "x" })).status,
      404,
    );

    const approve = await gw.admin("POST", `/admin/api/bulk-review/${id}/approve`, {
      reviewer: "ops-awa",
      note: "agents known to us",
    });
    assertEquals([approve.status, approve.json.data.batch.status, approve.json.data.reviewer], [
      200,
      "PROCESSING",
      "ops-awa",
    ]);
    const late = await gw.admin("POST", `/admin/api/bulk-review/${id}/reject`, { reviewer: "b", note: "no" });
    assertEquals([late.status, late.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
    assertEquals(await drain(gw, id), "COMPLETED");
    assertEquals(gw.simulators.momoPayout.transfersMade, 2);
    const done = await batchOf(gw, key, id);
    assertEquals([done.reviewNote, done.reviewReason !== null], ["agents known to us", true]);
    assertEquals((await gw.admin("GET", "/admin/api/bulk-review")).json.data, []);
    assertEquals(await momoInFlight(gw), "0");
  }));

Deno.test("bulk momo: a rejection or a cancel during review gives the money back and sends nothing", () =>
  run(async ({ gw, m, key }) => {
    const rejected = await validatedBatch(gw, key, [[BILA, "200000"]]);
    assertEquals((await execute(gw, key, rejected)).json.data.status, "PENDING_REVIEW");
    const reject = await gw.admin("POST", `/admin/api/bulk-review/${rejected}/reject`, {
      reviewer: "ops-issa",
      note: "unknown recipient",
    });
    assertEquals([reject.status, reject.json.data.batch.status, reject.json.data.reviewer], [
      200,
      "REJECTED",
      "ops-issa",
    ]);
    const seen = await batchOf(gw, key, rejected);
    assertEquals([seen.status, seen.counts.cancelled, seen.reviewNote], ["REJECTED", 1, "unknown recipient"]);
    assertEquals(await momoWallet(gw, m.merchantId), "1000000");
    assertEquals(await momoInFlight(gw), "0");
    const approveLate = await gw.admin("POST", `/admin/api/bulk-review/${rejected}/approve`, {
      reviewer: "x",
    });
    assertEquals(approveLate.json.error.code, "INVALID_TRANSACTION_STATUS");

    const cancelled = await validatedBatch(gw, key, [[BILA, "1000"]]);
    await execute(gw, key, cancelled);
    assertEquals(await momoWallet(gw, m.merchantId), String(1_000_000 - 1020));
    const cancel = await gw.request("POST", `/v1/bulk-payments/${cancelled}/cancel`, { key });
    assertEquals([cancel.status, cancel.json.data.status], [200, "CANCELLED"], cancel.text);
    assertEquals(await momoWallet(gw, m.merchantId), "1000000");
    const approveCancelled = await gw.admin("POST", `/admin/api/bulk-review/${cancelled}/approve`, {
      reviewer: "x",
    });
    assertEquals(approveCancelled.json.error.code, "INVALID_TRANSACTION_STATUS");
    await drain(gw, rejected);
    await drain(gw, cancelled);
    assertEquals(gw.simulators.momoPayout.transfersMade, 0);
    const releases = await gw.db.query(
      "SELECT reference FROM journals WHERE reference LIKE 'bulk:%:release'",
    );
    assertEquals(releases.length, 2);
  }));

Deno.test("bulk momo: a number in its cooldown is held; past it, the same number is paid directly", () =>
  run(async ({ gw, clock, key }) => {
    const dest = await registerNumber(gw, key, BILA, "OPERATOR_A_BF");
    clock.advance(DAY_MS - 1000);
    const early = await validatedBatch(gw, key, [[BILA, "200000"]]);
    const held = await execute(gw, key, early);
    assertEquals(held.json.data.status, "PENDING_REVIEW");
    assertMatch(held.json.data.reviewReason, /line 1 \+22666222222: fiat destination in its cooldown until/);
    await drain(gw, early);
    assertEquals(gw.simulators.momoPayout.transfersMade, 0);

    clock.advance(1000);
    const later = await validatedBatch(gw, key, [[BILA, "200000"]]);
    const paid = await execute(gw, key, later);
    assertEquals([paid.json.data.status, paid.json.data.reviewReason], ["PROCESSING", null]);
    assertEquals(await drain(gw, later), "COMPLETED");
    assertEquals(gw.simulators.momoPayout.transfersMade, 1);
    // A deleted destination no longer clears its number.
    const del = await gw.request("DELETE", `/v1/merchants/fiat-destinations/${dest.id}`, { key });
    assertEquals(del.status, 200, del.text);
    const afterDelete = await validatedBatch(gw, key, [[BILA, "1000"]]);
    assertEquals((await execute(gw, key, afterDelete)).json.data.status, "PENDING_REVIEW");
  }));

Deno.test("bulk momo: another merchant's (or the sandbox's) fiat destination does not clear a number", () =>
  run(async ({ gw, clock, m, key }) => {
    const other = await gw.createMerchant("Neighbour");
    await registerNumber(gw, other.keys.liveSecret, BILA, "OPERATOR_A_BF");
    await registerNumber(gw, m.keys.testSecret, AWA, "OPERATOR_B_BF"); // this merchant, sandbox mode
    clock.advance(2 * DAY_MS);
    const id = await validatedBatch(gw, key, [[BILA, "1000"], [AWA, "1000"]]);
    const exec = await execute(gw, key, id);
    assertEquals(exec.json.data.status, "PENDING_REVIEW");
    assertMatch(exec.json.data.reviewReason, /^2 recipient\(s\)/);
    assertMatch(exec.json.data.reviewReason, /line 1 \+22666222222: not a registered fiat destination/);
    assertMatch(exec.json.data.reviewReason, /line 2 \+22670111111: not a registered fiat destination/);
    assertEquals(await drain(gw, id), "PENDING_REVIEW");
    assertEquals(gw.simulators.momoPayout.transfersMade, 0);
  }));

Deno.test("bulk momo: the per-item maximum holds at import, validate and execute", () =>
  run(async ({ gw, clock, m, key }) => {
    await registerNumber(gw, key, AWA, "OPERATOR_B_BF");
    clock.advance(DAY_MS);
    const id = await createBatch(gw, key, "MOBILE_MONEY");
    const json = await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
      key,
      body: { items: [{ walletAddress: AWA, amount: "2000001" }] },
    });
    assertEquals([json.status, json.json.error.code], [400, "IMPORT_VALIDATION_FAILED"]);
    assertMatch(json.json.error.details[0].reason, /at most 2000000 XOF per item/);
    const file = await upload(
      gw,
      key,
      id,
      csvOf([["phoneNumber", "amount"], [AWA, "2000000"], [AWA, "2000001"]]),
      "big.csv",
      "text/csv",
    );
    assertEquals([file.status, file.json.error.code], [400, "IMPORT_VALIDATION_FAILED"]);
    assertEquals(file.json.error.details.map((d: { line: number }) => d.line), [3]);

    // The maximum (2,000,000 XOF) itself is fine; an item stored before a lower limit is caught later.
    await creditWallet(gw, m.merchantId, false, "MOMO", "9000000");
    const okId = await validatedBatch(gw, key, [[AWA, "2000000"], [AWA, "1000"]]);
    await gw.db.query("UPDATE bulk_items SET amount = 2500000 WHERE batch_id = $1 AND line = 2", [okId]);
    const exec = await execute(gw, key, okId);
    assertEquals([exec.status, exec.json.error.code], [400, "AMOUNT_TOO_LARGE"], exec.text);
    assertEquals(exec.json.error.details.map((d: { line: number }) => d.line), [2]);
    assertEquals(await momoWallet(gw, m.merchantId), "10000000");
    const revalidate = await gw.request("POST", `/v1/bulk-payments/${okId}/validate`, { key });
    assertEquals([revalidate.status, revalidate.json.error.code], [400, "AMOUNT_TOO_LARGE"]);
    assertEquals(gw.simulators.momoPayout.transfersMade, 0);
  }));

Deno.test("bulk momo: numbers of another country or no supported operator are refused at import", () =>
  run(async ({ gw, key }) => {
    const id = await createBatch(gw, key, "MOBILE_MONEY");
    const bad = [
      "+22507123456", // Côte d'Ivoire
      "+22370123456", // Mali
      "+22699123456", // Burkina Faso, a prefix no supported operator serves
      "+22600123456", // likewise
      "+226701234567", // 9 national digits
      "70123456", // no country code
      "0022670123456", // international prefix instead of +
      "+226 70 12 34 56", // spaces
      "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", // a TRON address
    ];
    const rows = [["phoneNumber", "amount"], [AWA, "1000"], ...bad.map((p) => [p, "1000"])];
    const file = await upload(gw, key, id, csvOf(rows), "agents.csv", "text/csv");
    assertEquals([file.status, file.json.error.code], [400, "IMPORT_VALIDATION_FAILED"], file.text);
    assertEquals(
      file.json.error.details.map((d: { line: number; field: string }) => [d.line, d.field]),
      bad.map((_, i) => [i + 3, "walletAddress"]),
    );
    const byJson = await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
      key,
      body: { items: bad.map((walletAddress) => ({ walletAddress, amount: "1000" })) },
    });
    assertEquals([byJson.status, byJson.json.error.code], [400, "IMPORT_VALIDATION_FAILED"], byJson.text);
    assertEquals(
      byJson.json.error.details.map((d: { field: string }) => d.field),
      bad.map((_, i) => `items.${i}.walletAddress`),
    );
    // What a file cannot carry (NUL, a lone surrogate) is refused before any check, never a 500.
    for (const walletAddress of ["+22670\u00001234", "+2267012345\ud800"]) {
      const hostile = await gw.request("POST", `/v1/bulk-payments/${id}/items`, {
        key,
        body: { items: [{ walletAddress, amount: "1000" }] },
      });
      assertEquals([hostile.status, hostile.json.error.code], [400, "VALIDATION_ERROR"]);
    }
    assertEquals((await batchOf(gw, key, id)).itemCount, 0);
  }));

Deno.test("bulk momo: 20 concurrent executes, then 20 concurrent decisions, move money once", () =>
  run(async ({ gw, clock, m, key }) => {
    await registerNumber(gw, key, AWA, "OPERATOR_B_BF");
    clock.advance(DAY_MS);
    const direct = await validatedBatch(gw, key, [[AWA, "10000"], [AWA, "20000"]]);
    const shared = { "idempotency-key": "5b0c9a52-3f7e-4a8e-8e8f-0d6a7f1b2c3d" };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => execute(gw, key, direct, i % 2 === 0 ? shared : {})),
    );
    assert(results.every((r) => r.status !== 500), JSON.stringify(results.map((r) => r.status)));
    const fresh = results.filter((r) => r.status === 202 && r.headers.get("idempotent-replayed") !== "true");
    assertEquals(fresh.length, 1);
    for (const r of results.filter((r) => r.status !== 202)) {
      assert(["INVALID_TRANSACTION_STATUS", "CONFLICT"].includes(r.json.error.code), r.text);
    }
    assertEquals(await momoWallet(gw, m.merchantId), String(1_000_000 - 30_600));
    assertEquals(await drain(gw, direct), "COMPLETED");
    assertEquals(gw.simulators.momoPayout.transfersMade, 2);

    // Held: 20 concurrent executes debit once; then approvals and rejections race, one decision wins.
    const held = await validatedBatch(gw, key, [[BILA, "10000"]]);
    const execs = await Promise.all(Array.from({ length: 20 }, () => execute(gw, key, held, {})));
    assertEquals(execs.filter((r) => r.status === 202).length, 1);
    assertEquals(await momoWallet(gw, m.merchantId), String(1_000_000 - 30_600 - 10_200));
    const decisions = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          gw.admin("POST", `/admin/api/bulk-review/${held}/${i % 2 === 0 ? "approve" : "reject"}`, {
            reviewer: `ops-${i}`,
            note: "race",
          }),
      ),
    );
    assert(decisions.every((r) => r.status !== 500), JSON.stringify(decisions.map((r) => r.status)));
    const won = decisions.filter((r) => r.status === 200);
    assertEquals(won.length, 1);
    const outcome = won[0].json.data.batch.status;
    await drain(gw, held);
    const final = await batchOf(gw, key, held);
    if (outcome === "PROCESSING") {
      assertEquals(final.status, "COMPLETED");
      assertEquals(gw.simulators.momoPayout.transfersMade, 3);
      assertEquals(await momoWallet(gw, m.merchantId), String(1_000_000 - 30_600 - 10_200));
    } else {
      assertEquals(final.status, "REJECTED");
      assertEquals(gw.simulators.momoPayout.transfersMade, 2);
      assertEquals(await momoWallet(gw, m.merchantId), String(1_000_000 - 30_600));
    }
    assertEquals(await momoInFlight(gw), "0");
  }));

Deno.test("bulk momo: above the four-eyes amount a held batch takes two different approvers", () =>
  run(async ({ gw, m, key }) => {
    const id = await validatedBatch(gw, key, [[AWA, "60000"], [BILA, "60000"]]);
    assertEquals((await execute(gw, key, id)).json.data.status, "PENDING_REVIEW");
    const awa = await operatorClient(gw, "reviewer");
    const moussa = await operatorClient(gw, "reviewer");
    const viewer = await operatorClient(gw, "viewer");
    const approve = (who: typeof awa) =>
      who.call("POST", `/admin/api/bulk-review/${id}/approve`, { note: "ok" });

    assertEquals((await approve(viewer)).status, 403, "a viewer may not approve");
    const first = await approve(awa);
    assertEquals(first.status, 200, first.text);
    assertEquals(
      [first.json.data.batch.status, first.json.data.approvalsNeeded, first.json.data.firstApproval.reviewer],
      ["PENDING_REVIEW", 2, awa.operator.email],
    );
    // Nothing sent, nothing queued after one approval.
    assertEquals(await drain(gw, id), "PENDING_REVIEW");
    assertEquals(gw.simulators.momoPayout.transfersMade, 0);
    const again = await approve(awa);
    assertEquals([again.status, again.json.error.code], [403, "FORBIDDEN"], "the same person twice");
    assertEquals(
      (await gw.admin("GET", `/admin/api/bulk-review/${id}`)).json.data.batch.status,
      "PENDING_REVIEW",
    );

    // The second, by someone else, and its concurrent twin: one moves the batch, the other finds it moved.
    const [second, twin] = await Promise.all([approve(moussa), approve(moussa)]);
    assertEquals([second.status, twin.status].sort(), [200, 400]);
    assertEquals(await drain(gw, id), "COMPLETED");
    assertEquals(gw.simulators.momoPayout.transfersMade, 2);
    const trail = (await gw.admin("GET", `/admin/api/audit?itemId=${id}`)).json.data.items as Array<
      { action: string; actor: { label: string } }
    >;
    assertEquals(trail.map((r) => [r.action, r.actor.label]), [
      ["bulk_payment.first_approval", awa.operator.email],
      ["bulk_payment.approve", moussa.operator.email],
    ]);
    assertEquals(await momoWallet(gw, m.merchantId), String(1_000_000 - 122_400));
  }, { ...OPERATOR_TEST_ENV, FOUR_EYES_ABOVE_XOF: "100000" }));

Deno.test("bulk momo: at or under the four-eyes amount one approval sends the batch (token as reviewer)", () =>
  run(async ({ gw, key }) => {
    const id = await validatedBatch(gw, key, [[AWA, "50000"], [BILA, "50000"]]);
    assertEquals((await execute(gw, key, id)).json.data.status, "PENDING_REVIEW");
    const one = await gw.admin("POST", `/admin/api/bulk-review/${id}/approve`, { reviewer: "ops" });
    assertEquals([one.json.data.batch.status, one.json.data.approvalsNeeded, one.json.data.firstApproval], [
      "PROCESSING",
      1,
      null,
    ]);
  }, { FOUR_EYES_ABOVE_XOF: "100000" }));
