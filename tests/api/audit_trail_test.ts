// The audit trail (issue 22): every operator action and every ADMIN_TOKEN call that changes something
// appends one record in its own transaction, hash-chained; the chain verifies after a story, breaks when a
// record is altered or removed in the database, stays one line under concurrent appends; an item's
// records are listed and a period exported as CSV.
import { parse } from "csv-parse/sync";
import { verifyAuditChain } from "../../domain/audit/trail.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { withGateway } from "../helpers.ts";
import { creditUsdt, idem, randomTronAddress, whitelist } from "../money_out_helpers.ts";
import { OPERATOR_TEST_ENV, operatorClient } from "../operator_helpers.ts";

type Rec = {
  seq: number;
  action: string;
  actor: { kind: string; label: string; role: string };
  note: string | null;
};

Deno.test("a morning's actions, each recorded once with who, what and before/after; the chain verifies", async () => {
  await withGateway(async (gw) => {
    const created = await gw.admin("POST", "/admin/api/merchants", { name: "Audited", kybStatus: "PENDING" });
    const id = created.json.data.merchantId as string;
    await gw.admin("PATCH", `/admin/api/merchants/${id}`, {
      status: "SUSPENDED",
      displayName: "Audited SARL",
    });
    await gw.admin("PATCH", `/admin/api/merchants/${id}`, { status: "ACTIVE" });
    await gw.admin("POST", `/admin/api/merchants/${id}/kyb`, { status: "APPROVED" });
    const key = await gw.admin("POST", `/admin/api/merchants/${id}/keys`, {
      kind: "restricted",
      scopes: ["balances_read"],
    });
    await gw.admin("DELETE", `/admin/api/keys/${key.json.data.id}`);
    await gw.admin("PUT", `/admin/api/merchants/${id}/paylink-limit`, { maxPaylinks: 7 });
    // Refused actions leave nothing behind.
    await gw.admin("POST", `/admin/api/merchants/${id}/kyb`, { status: "NOPE" });
    await gw.admin("PATCH", "/admin/api/merchants/mch_00000000000000000000000000", { status: "ACTIVE" });

    const records = (await gw.admin("GET", `/admin/api/audit?itemId=${id}`)).json.data.items as Rec[];
    assertEquals(records.map((r) => r.action), [
      "merchant.create",
      "merchant.update",
      "merchant.update",
      "merchant.kyb",
      "merchant.paylink_limit",
    ]);
    assert(
      records.every((r) => r.actor.kind === "token" && r.actor.label === "token" && r.actor.role === "admin"),
    );
    const suspended = (await gw.admin("GET", `/admin/api/audit?itemId=${id}`)).json.data.items[1];
    assertEquals([suspended.before.status, suspended.after.status, suspended.after.displayName], [
      "ACTIVE",
      "SUSPENDED",
      "Audited SARL",
    ]);
    const keyRecords = (await gw.admin("GET", `/admin/api/audit?itemId=${key.json.data.id}`)).json.data.items;
    assertEquals(keyRecords.map((r: Rec) => r.action), ["key.issue", "key.revoke"]);
    assert(!JSON.stringify(keyRecords).includes(key.json.data.key), "a key never enters the trail");

    // A withdrawal approved and one rejected by signed-in reviewers.
    const reviewer = await operatorClient(gw, "reviewer");
    const withdrawer = await gw.createMerchant("Withdrawer"); // test setup, outside the operator API
    const live = withdrawer.keys.liveSecret;
    const merchantId = withdrawer.merchantId;
    await creditUsdt(gw, merchantId, false, "500");
    await whitelist(gw, live, randomTronAddress(), ["WITHDRAWAL"]);
    const w1 =
      (await gw.request("POST", "/v1/withdrawals", { key: live, body: { amount: "50" }, headers: idem() }))
        .json.data.id as string;
    const w2 =
      (await gw.request("POST", "/v1/withdrawals", { key: live, body: { amount: "60" }, headers: idem() }))
        .json.data.id as string;
    const approved = await reviewer.call("POST", `/admin/api/review/${w1}/approve`, {
      note: "known supplier",
    });
    assertEquals(approved.status, 200, approved.text);
    const wrongName = await reviewer.call("POST", `/admin/api/review/${w2}/reject`, {
      reviewer: "someone else",
      note: "x",
    });
    assertEquals(wrongName.json.error.code, "VALIDATION_ERROR");
    const rejected = await reviewer.call("POST", `/admin/api/review/${w2}/reject`, {
      note: "unknown address",
    });
    assertEquals(rejected.status, 200, rejected.text);
    const story = (await gw.admin("GET", `/admin/api/review/${w1}`)).json.data;
    assertEquals(story.decisions.map((d: { reviewer: string }) => d.reviewer), [reviewer.operator.email]);
    const w1Records = (await reviewer.call("GET", `/admin/api/audit?itemId=${w1}`)).json.data.items;
    assertEquals(w1Records.length, 1);
    assertEquals(
      [w1Records[0].action, w1Records[0].actor.kind, w1Records[0].actor.label, w1Records[0].note],
      [
        "withdrawal.approve",
        "operator",
        reviewer.operator.email,
        "known supplier",
      ],
    );
    assertEquals([w1Records[0].before.status, w1Records[0].after.status], ["PENDING_REVIEW", "APPROVED"]);
    const signIns =
      (await gw.admin("GET", `/admin/api/audit?itemId=${reviewer.operator.id}`)).json.data.items;
    assertEquals(signIns.map((r: Rec) => r.action), ["operator.create", "operator.sign_in"]);

    const check = await gw.admin("GET", "/admin/api/audit/verify");
    assertEquals([check.json.data.ok, check.json.data.records], [true, 11]);
    const forbidden = await reviewer.call("GET", "/admin/api/audit/verify");
    assertEquals([forbidden.status, forbidden.json.error.cause], [403, "INSUFFICIENT_ROLE"]);

    // The CSV of the period holds every record with its hashes; another period, none.
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const csv = await gw.admin("GET", `/admin/api/audit/export?from=${from}&to=${to}`);
    assertEquals(csv.status, 200);
    assertMatch(csv.headers.get("content-type") ?? "", /^text\/csv/);
    const rows = parse(csv.text, { columns: true }) as Array<Record<string, string>>;
    assertEquals(rows.length, 11);
    assertEquals(rows[0].action, "merchant.create");
    assertEquals(rows[10].hash, check.json.data.head);
    const empty = await gw.admin(
      "GET",
      `/admin/api/audit/export?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z`,
    );
    assertEquals(empty.text.trim().split("\n").length, 1);
    const reversed = await gw.admin("GET", `/admin/api/audit/export?from=${to}&to=${from}`);
    assertEquals([reversed.status, reversed.text.trim().split("\n").length], [200, 1]);
    for (
      const q of [
        "from=x&to=y",
        "from=2026-01-01T00:00:00Z",
        "to=2026-01-01",
        "from=2026-01-01T00:00:00Z%00&to=2026-02-01T00:00:00Z",
      ]
    ) {
      const bad = await gw.admin("GET", `/admin/api/audit/export?${q}`);
      assertEquals([bad.status, bad.json.error.code], [400, "VALIDATION_ERROR"], q);
    }
  }, { env: OPERATOR_TEST_ENV })();
});

Deno.test("an altered or removed record breaks the chain; the table refuses updates and deletes", async () => {
  await withGateway(async (gw) => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await gw.admin("POST", "/admin/api/merchants", { name: `M${i}` })).json.data.merchantId);
    }
    assertEquals(await verifyAuditChain(gw.deps), {
      ok: true,
      records: 5,
      head: (await gw.db.query<{ hash: string }>("SELECT hash FROM audit_records WHERE seq = 5"))[0].hash,
    });
    let refused = false;
    try {
      await gw.db.query("UPDATE audit_records SET note = 'edited' WHERE seq = 3");
    } catch (err) {
      refused = /append-only/.test(String(err));
    }
    assert(refused, "the trigger refuses an update");
    // Someone with the database's keys goes around the trigger.
    await gw.db.exec("ALTER TABLE audit_records DISABLE TRIGGER audit_records_append_only");
    await gw.db.query(`UPDATE audit_records SET after = '{"name":"M9"}'::jsonb WHERE seq = 3`);
    const altered = await verifyAuditChain(gw.deps);
    assertEquals([altered.ok, !altered.ok && altered.brokenAt, altered.records], [false, 3, 2]);
    const api = await gw.admin("GET", "/admin/api/audit/verify");
    assertEquals([api.json.data.ok, api.json.data.brokenAt], [false, 3]);
    // Rewriting the hash too does not help: the next record names the old one.
    await gw.db.exec("ALTER TABLE audit_records ENABLE TRIGGER audit_records_append_only");
    await gw.db.exec("ALTER TABLE audit_records DISABLE TRIGGER audit_records_append_only");
    await gw.db.query(`UPDATE audit_records SET hash = repeat('a', 64) WHERE seq = 3`);
    const rehashed = await verifyAuditChain(gw.deps);
    assertEquals([rehashed.ok, !rehashed.ok && rehashed.brokenAt], [false, 3]);
    await gw.db.query("DELETE FROM audit_records WHERE seq = 3");
    const removed = await verifyAuditChain(gw.deps);
    assertEquals([removed.ok, !removed.ok && removed.reason], [false, "record 3 is missing"]);
  }, { env: OPERATOR_TEST_ENV })();
});

Deno.test("50 concurrent audited changes: 50 records, one line, the chain verifies", async () => {
  await withGateway(async (gw) => {
    const id = (await gw.admin("POST", "/admin/api/merchants", { name: "Busy" })).json.data.merchantId;
    const results = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => gw.admin("PUT", `/admin/api/merchants/${id}/paylink-limit`, { maxPaylinks: i + 1 }),
      ),
    );
    assert(results.every((r) => r.status === 200), results.map((r) => r.status).join());
    const check = await verifyAuditChain(gw.deps);
    assertEquals([check.ok, check.records], [true, 51]);
    const seqs = (await gw.db.query<{ seq: string }>(
      "SELECT seq::text AS seq FROM audit_records ORDER BY audit_records.seq",
    ))
      .map((r) => Number(r.seq));
    assertEquals(seqs, Array.from({ length: 51 }, (_, i) => i + 1));
  }, { env: OPERATOR_TEST_ENV })();
});
