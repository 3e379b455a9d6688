// A mobile money batch of 200 from a CSV file: bad rows listed and nothing stored, then executed with one
// XOF debit (held for an operator's review: none of the numbers is a registered fiat destination); each
// item is one disbursement through the fiat-out seam; recipients whose accounts are blocked fail and get
// their money back; the batch ends PARTIALLY_COMPLETED, a retry pays only them and the batch ends
// COMPLETED, the ledger exact to the franc and every number paid exactly once.
import { findSystemAccount, findWallet } from "../../db/ledger.ts";
import { advanceBatch } from "../../domain/bulk/run.ts";
import type { Deps } from "../../domain/deps.ts";
import { processDisbursement } from "../../domain/fiat_out/disburse.ts";
import { Decimal } from "../../domain/money.ts";
import type { MomoDisbursementProvider } from "../../rails/fiat/provider.ts";
import { assert, assertEquals } from "../assert.ts";
import { batchOf, createBatch, csvOf, upload } from "../bulk_helpers.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditWallet, idem } from "../money_out_helpers.ts";

const HEADER = ["phoneNumber", "amount", "recipientName", "reference"];

async function xof(gw: TestGateway, merchantId: string, kind: "wallet" | "inFlight"): Promise<string> {
  const account = kind === "wallet"
    ? (await findWallet(gw.db, merchantId, false, "XOF", "MOMO"))!
    : await findSystemAccount(gw.db, "IN_FLIGHT", false, "MOMO");
  const rows = await gw.db.query<{ s: string }>(
    "SELECT COALESCE(sum(amount), 0)::text AS s FROM entries WHERE account_id = $1",
    [account.id],
  );
  return new Decimal(rows[0].s).toFixed(0);
}

/** Runs every disbursement the run queued (what the fiat.disburse job does), then advances the batch. */
async function drain(gw: TestGateway, deps: Deps, id: string): Promise<string | undefined> {
  await advanceBatch(deps, id);
  const queued = gw.enqueued.splice(0).flatMap((e) =>
    e.message.type === "fiat.disburse" ? [e.message.disbursementId] : []
  );
  for (const disbursementId of queued) await processDisbursement(deps, disbursementId);
  return await advanceBatch(deps, id);
}

Deno.test("mobile money batch of 200 from CSV: blocked recipients fail, retry completes, ledger exact", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Momo Bulk Shop");
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 100_000 } });
    const key = m.keys.liveSecret;
    await creditWallet(gw, m.merchantId, false, "MOMO", "5000000");

    // 100 numbers of each operator (71... is B, 66... is A), amounts 1,000 to 2,990 XOF.
    const phones = Array.from(
      { length: 200 },
      (_, i) => i % 2 === 0 ? `+22671${String(i).padStart(6, "0")}` : `+22666${String(i).padStart(6, "0")}`,
    );
    const amounts = phones.map((_, i) => 1000 + i * 10);
    const rows = phones.map((p, i) => [p, String(amounts[i]), `Agent ${i + 1}`, `nov-${i + 1}`]);
    const id = await createBatch(gw, key, "MOBILE_MONEY");

    const bad = [...rows];
    bad[4] = ["+2267100", "1000", "x", ""]; // line 6: too short
    bad[40] = ["+22699000001", "1000", "x", ""]; // line 42: no operator
    bad[140] = [phones[140], "1500.5", "x", ""]; // line 142: XOF has no decimals
    const refused = await upload(gw, key, id, csvOf([HEADER, ...bad]), "agents.csv", "text/csv");
    assertEquals(refused.json.error.code, "IMPORT_VALIDATION_FAILED");
    assertEquals(
      refused.json.error.details.map((d: { line: number; field: string }) => [d.line, d.field]),
      [[6, "walletAddress"], [42, "walletAddress"], [142, "amount"]],
    );
    assertEquals((await batchOf(gw, key, id)).itemCount, 0);

    // Spreadsheets drop the "+": 226... is taken as +226...
    rows[7][0] = rows[7][0].slice(1);
    const imported = await upload(gw, key, id, csvOf([HEADER, ...rows]), "agents.csv", "text/csv");
    assertEquals([imported.status, imported.json.data.itemCount], [200, 200], imported.text);

    const total = amounts.reduce((s, a) => s + a, 0);
    const fees = amounts.map((a) => Math.ceil(a * 0.02));
    const totalFee = fees.reduce((s, f) => s + f, 0);
    const valid = await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key });
    assertEquals(valid.json.data.totalFee, String(totalFee));
    assertEquals(valid.json.data.balanceCheck, {
      sufficient: true,
      required: String(total + totalFee),
      available: "5000000",
    });
    const exec = await gw.request("POST", `/v1/bulk-payments/${id}/execute`, { key, headers: idem() });
    assertEquals(exec.status, 202, exec.text);
    assertEquals(await xof(gw, m.merchantId, "wallet"), String(5_000_000 - total - totalFee));
    // None of the 200 numbers is a registered fiat destination: the batch is debited but waits for an
    // operator, reserved in review, nothing sent; once approved it is reserved in flight until items finish.
    assertEquals(exec.json.data.status, "PENDING_REVIEW");
    const momoWallet = async () =>
      (await gw.request("GET", "/v1/wallets/balance", { key })).json.data.balances.find((
        b: { rail: string },
      ) => b.rail === "MOMO");
    const held = await momoWallet();
    assertEquals([held.reserved, held.reservedInFlight, held.reservedInReview], [
      String(total + totalFee),
      "0",
      String(total + totalFee),
    ]);
    const approved = await gw.admin("POST", `/admin/api/bulk-review/${id}/approve`, { reviewer: "ops-awa" });
    assertEquals([approved.status, approved.json.data.batch.status], [200, "PROCESSING"], approved.text);
    const during = await momoWallet();
    assertEquals([during.reserved, during.reservedInFlight, during.reservedInReview], [
      String(total + totalFee),
      String(total + totalFee),
      "0",
    ]);

    // Five recipients' accounts are blocked at the operator for now.
    const blocked = new Set([phones[0], phones[33], phones[99], phones[150], phones[199]]);
    const sim = gw.simulators.momoPayout;
    const blocking: MomoDisbursementProvider = {
      ...sim,
      send: (input) =>
        blocked.has(input.phone)
          ? Promise.resolve({
            status: "FAILED",
            providerRef: `blk_${input.reference}`,
            reason: "ACCOUNT_BLOCKED",
          })
          : sim.send(input),
    };
    const blockingDeps: Deps = {
      ...gw.deps,
      fiat: { ...gw.deps.fiat, live: { ...gw.deps.fiat.live!, momoPayout: blocking } },
    };
    assertEquals(await drain(gw, blockingDeps, id), "PARTIALLY_COMPLETED");
    const partial = await batchOf(gw, key, id);
    assertEquals([partial.counts.succeeded, partial.counts.failed], [195, 5]);
    const failed = partial.items.filter((i: { status: string }) => i.status === "FAILED");
    assertEquals(failed.map((i: { walletAddress: string }) => i.walletAddress).sort(), [...blocked].sort());
    assertEquals(failed[0].failureReason, "ACCOUNT_BLOCKED");
    const failedIdx = phones.flatMap((p, i) => blocked.has(p) ? [i] : []);
    const failedDebit = failedIdx.reduce((s, i) => s + amounts[i] + fees[i], 0);
    assertEquals(await xof(gw, m.merchantId, "wallet"), String(5_000_000 - total - totalFee + failedDebit));
    assertEquals(await xof(gw, m.merchantId, "inFlight"), "0");
    assertEquals((await momoWallet()).reserved, "0");

    const retry = await gw.request("POST", `/v1/bulk-payments/${id}/retry`, { key, headers: idem() });
    assertEquals([retry.status, retry.json.data.status], [202, "PROCESSING"], retry.text);
    assertEquals(await xof(gw, m.merchantId, "inFlight"), String(failedDebit));
    assertEquals(await drain(gw, gw.deps, id), "COMPLETED");

    const done = await batchOf(gw, key, id);
    assertEquals([done.status, done.counts.succeeded, done.attempt], ["COMPLETED", 200, 2]);
    assertEquals(await xof(gw, m.merchantId, "wallet"), String(5_000_000 - total - totalFee));
    assertEquals(await xof(gw, m.merchantId, "inFlight"), "0");
    // Every number was paid once, its own amount: the simulator moved money 200 times.
    assertEquals(sim.transfersMade, 200);
    for (const item of done.items) {
      const transfer = sim.get(`bulk:${item.id}:${item.attempt}`);
      assert(transfer, `item ${item.position}`);
      assertEquals([transfer.phone, transfer.amount, transfer.sendCalls], [
        item.walletAddress,
        item.amount,
        1,
      ]);
    }
    const fee = await findSystemAccount(gw.db, "FEES", false, "MOMO");
    const earned = await gw.db.query<{ s: string }>(
      "SELECT COALESCE(sum(amount), 0)::text AS s FROM entries WHERE account_id = $1",
      [fee.id],
    );
    assertEquals(new Decimal(earned[0].s).toFixed(0), String(totalFee));
  } finally {
    await gw.close();
  }
});
