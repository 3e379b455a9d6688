// Pay-ins created at the same moment share one statement (domain/payins/create_batch.ts): each still gets
// its own answer, its own address, its own payin.created and deliveries, and a row the database refuses
// fails alone.
import { updateMerchantSettings } from "../../domain/merchants/mod.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";

/** Watches the creation statements the gateway runs: how many pay-ins each carried, and whether it failed. */
function watchCreationStatements(gw: TestGateway): Array<{ rows: number; failed: boolean }> {
  const seen: Array<{ rows: number; failed: boolean }> = [];
  const query = gw.db.query.bind(gw.db);
  gw.db.query = async <T>(text: string, params?: unknown[]) => {
    if (!text.includes("INSERT INTO deposit_addresses")) return await query<T>(text, params);
    const entry = { rows: (JSON.parse(String(params![0])) as unknown[]).length, failed: false };
    seen.push(entry);
    try {
      return await query<T>(text, params);
    } catch (err) {
      entry.failed = true;
      throw err;
    }
  };
  return seen;
}

async function merchantWithoutLimits(gw: TestGateway, name: string) {
  const m = await gw.createMerchant(name);
  await updateMerchantSettings(gw.deps, m.merchantId, {
    rateLimits: { "POST /v1/payments": 10_000, default: 10_000 },
  });
  return m;
}

Deno.test("50 pay-ins created at once share statements, each with its own event and delivery", async () => {
  const gw = await startTestGateway();
  try {
    const a = await merchantWithoutLimits(gw, "Shared A");
    const b = await merchantWithoutLimits(gw, "Shared B");
    // Only merchant A's live mode listens: B's and the sandbox pay-ins must get no delivery.
    const endpoint = await gw.request("POST", "/v1/webhooks/endpoints", {
      key: a.keys.liveSecret,
      body: { url: "https://merchant-a.example/hooks", events: ["payin.created"] },
    });
    assertEquals(endpoint.status, 201);
    const statements = watchCreationStatements(gw);
    const keys = [a.keys.liveSecret, a.keys.testSecret, b.keys.liveSecret];
    const answers = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) =>
          gw.request("POST", i % 3 === 1 ? "/v1/payments?sandbox=true" : "/v1/payments", {
            key: keys[i % 3],
            body: { amount: `${10 + i}`, externalRef: `order-${i}` },
          }),
      ),
    );
    assertEquals(answers.map((r) => r.status), answers.map(() => 201));
    assert(statements.length < 50, `${statements.length} statements for 50 pay-ins`);
    assertEquals(statements.reduce((n, s) => n + s.rows, 0), 50);
    assert(statements.every((s) => !s.failed));

    const ids = answers.map((r) => r.json.data.transactionId as string);
    assertEquals(new Set(ids).size, 50);
    assertEquals(new Set(answers.map((r) => r.json.data.address)).size, 50);
    const rows = await gw.db.query<
      { id: string; merchant_id: string; is_sandbox: boolean; amount: string; external_ref: string }
    >("SELECT id, merchant_id, is_sandbox, amount::text, external_ref FROM payins");
    const byId = new Map(rows.map((r) => [r.id, r]));
    const events = await gw.db.query<{ id: string; merchant_id: string; data: Record<string, string> }>(
      "SELECT id, merchant_id, data FROM events WHERE type = 'payin.created'",
    );
    const eventOf = new Map(events.map((e) => [e.data.transactionId, e]));
    const deliveries = await gw.db.query<{ id: string; event_id: string; body: string }>(
      "SELECT id, event_id, body FROM webhook_deliveries",
    );
    const queued = new Set(gw.enqueued.map((e) => e.message.deliveryId));
    answers.forEach((answer, i) => {
      const id = ids[i];
      const row = byId.get(id)!;
      const [merchant, sandbox] = [[a, false], [a, true], [b, false]][i % 3] as [typeof a, boolean];
      // Each pay-in is the one its request asked for, in its merchant and mode.
      assertEquals([row.merchant_id, row.is_sandbox, Number(row.amount), row.external_ref], [
        merchant.merchantId,
        sandbox,
        10 + i,
        `order-${i}`,
      ]);
      const event = eventOf.get(id)!;
      assertEquals([event.merchant_id, event.data.address], [merchant.merchantId, answer.json.data.address]);
      const mine = deliveries.filter((d) => d.event_id === event.id);
      const listens = merchant === a && !sandbox;
      assertEquals(mine.length, listens ? 1 : 0);
      for (const d of mine) {
        const body = JSON.parse(d.body);
        assertEquals([body.event, body.data.transactionId, body.livemode], ["payin.created", id, true]);
        assert(queued.has(d.id), `delivery ${d.id} was never queued`);
      }
    });
    assertEquals(deliveries.length, 17);
  } finally {
    await gw.close();
  }
});

Deno.test("in a shared statement a reused externalRef fails alone; the others are created", async () => {
  const gw = await startTestGateway();
  try {
    const m = await merchantWithoutLimits(gw, "Shared refusal");
    const statements = watchCreationStatements(gw);
    const refs = Array.from({ length: 30 }, (_, i) => i % 3 === 0 ? "same-order" : `order-${i}`);
    const answers = await Promise.all(
      refs.map((externalRef) =>
        gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body: { amount: "10", externalRef } })
      ),
    );
    const same = answers.filter((_, i) => refs[i] === "same-order");
    const others = answers.filter((_, i) => refs[i] !== "same-order");
    assertEquals(same.filter((r) => r.status === 201).length, 1);
    for (const r of same.filter((r) => r.status !== 201)) {
      assertEquals([r.status, r.json.error.code], [409, "DUPLICATE_EXTERNAL_REF"]);
    }
    assertEquals(others.map((r) => r.status), others.map(() => 201));
    // The refusal came from a statement shared with other pay-ins, which were then written one by one.
    assert(statements.some((s) => s.failed && s.rows > 1), JSON.stringify(statements));

    const [counts] = await gw.db.query<{ payins: number; claims: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM payins) AS payins,
              (SELECT count(*)::int FROM deposit_addresses) AS claims,
              (SELECT count(*)::int FROM events WHERE type = 'payin.created') AS events`,
    );
    assertEquals(counts, { payins: 21, claims: 21, events: 21 });
    // A refused pay-in's address went back to the pool: the next creation may get it, and nothing is lost.
    const next = await gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body: { amount: "10" } });
    assertEquals(next.status, 201);
  } finally {
    await gw.close();
  }
});
