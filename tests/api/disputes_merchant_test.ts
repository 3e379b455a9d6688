// The merchant's side of a dispute: evidence (text and files judged by their bytes, before the deadline),
// accepting it, and everything a merchant may try that must be refused: another merchant's dispute, the
// other mode's key, a wrong state, hostile text and files, 50 identical requests at once.
import { assert, assertEquals } from "../assert.ts";
import { ADMIN_TOKEN, type TestGateway, withGateway } from "../helpers.ts";
import {
  assertLedgerConsistent,
  disputeEvents,
  disputeJournals,
  paidCardPayin,
  raiseChargeback,
  xofCardWallet,
} from "../dispute_fixture.ts";

const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

async function evidence(
  gw: TestGateway,
  key: string,
  id: string,
  parts: Record<string, string | { bytes: Uint8Array; name: string; type?: string }>,
) {
  const form = new FormData();
  for (const [name, v] of Object.entries(parts)) {
    if (typeof v === "string") form.append(name, v);
    else {form.append(
        name,
        new File([v.bytes as Uint8Array<ArrayBuffer>], v.name, {
          type: v.type ?? "application/octet-stream",
        }),
      );}
  }
  const res = await gw.app.request(`/v1/disputes/${id}/evidence`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

async function openOne(gw: TestGateway, key: string, amount = "10000") {
  const { providerRef } = await paidCardPayin(gw, key, amount);
  await raiseChargeback(gw, providerRef, { amount: "5000" });
  const list = (await gw.request("GET", "/v1/disputes?status=OPEN", { key })).json.data;
  return list.items[0].id as string;
}

Deno.test(
  "evidence: text and files judged by their bytes, stored, OPEN to UNDER_REVIEW; bad files refused",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Atelier Banfora");
    const key = m.keys.liveSecret;
    const id = await openOne(gw, key);
    // Refusals first: nothing is kept of them.
    const lying = await evidence(gw, key, id, {
      file1: { bytes: new TextEncoder().encode("<html>"), name: "x.pdf", type: "application/pdf" },
    });
    assertEquals([lying.status, lying.json.error.code], [400, "VALIDATION_ERROR"]);
    const big = new Uint8Array(600 * 1024);
    big.set(PDF);
    const tooBig = await evidence(gw, key, id, { file1: { bytes: big, name: "big.pdf" } });
    assertEquals(tooBig.json.error.code, "VALIDATION_ERROR");
    const empty = await evidence(gw, key, id, {});
    assertEquals(empty.json.error.code, "VALIDATION_ERROR");
    const nul = await evidence(gw, key, id, { text: "a\u0000b" });
    assertEquals(nul.json.error.code, "VALIDATION_ERROR");
    const huge = await evidence(gw, key, id, { text: "x".repeat(20_001) });
    assertEquals(huge.json.error.code, "VALIDATION_ERROR");
    assertEquals((await gw.request("GET", `/v1/disputes/${id}`, { key })).json.data.status, "OPEN");
    // The real answer.
    const sent = await evidence(gw, key, id, {
      text: "Livré le 3 mars, signé par le client.",
      file1: { bytes: PDF, name: "bon de livraison.pdf" },
      file2: { bytes: PNG, name: "photo<script>.png", type: "application/pdf" },
    });
    assertEquals(sent.status, 200, JSON.stringify(sent.json));
    const d = sent.json.data;
    assertEquals(d.status, "UNDER_REVIEW");
    assertEquals(d.evidence.text, "Livré le 3 mars, signé par le client.");
    assertEquals(d.evidence.files.map((f: { contentType: string }) => f.contentType), [
      "application/pdf",
      "image/png",
    ]);
    assertEquals(d.evidence.files[1].fileName, "photoscript.png");
    // The same bytes again are the same file; more text replaces the text.
    const more = await evidence(gw, key, id, {
      text: "Plus de détails.",
      file1: { bytes: PDF, name: "again.pdf" },
    });
    assertEquals(more.json.data.evidence.files.length, 2);
    assertEquals(more.json.data.evidence.text, "Plus de détails.");
    // Stored behind the storage seam, never served by the public image route.
    const objects = await gw.db.query<{ key: string }>("SELECT object_key AS key FROM dispute_files");
    assertEquals(objects.length, 2);
    for (const o of objects) {
      const served = await gw.app.request(`/v1/images/${o.key}`);
      await served.body?.cancel();
      assert([400, 404].includes(served.status), `${o.key} answered ${served.status}`);
    }
    // An operator downloads a file as an attachment, byte for byte; another dispute's file id is NOT_FOUND.
    const fileId = more.json.data.evidence.files[0].id;
    const file = await gw.app.request(`/admin/api/disputes/${id}/files/${fileId}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assertEquals(file.status, 200);
    assertEquals(file.headers.get("content-type"), "application/pdf");
    assertEquals(file.headers.get("content-disposition"), 'attachment; filename="bon de livraison.pdf"');
    assertEquals(new Uint8Array(await file.arrayBuffer()), PDF);
    const other = await gw.app.request(`/admin/api/disputes/dsp_01k0000000000000000000000/files/${fileId}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assertEquals(other.status, 404);
    await other.body?.cancel();
    const merchantTry = await gw.app.request(`/admin/api/disputes/${id}/files/${fileId}`, {
      headers: { "x-api-key": key },
    });
    assertEquals(merchantTry.status, 401);
    await merchantTry.body?.cancel();
    assertEquals(await disputeJournals(gw, id), ["DISPUTE_HOLD"]);
    await assertLedgerConsistent(gw);
  }),
);

Deno.test(
  "accept: REJECTED at once, the hold debited exactly once, even under 50 identical requests",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Garage Kaya");
    const key = m.keys.liveSecret;
    const id = await openOne(gw, key, "10000");
    assertEquals(await xofCardWallet(gw, key), "4650");
    await assertLedgerConsistent(gw);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => gw.request("POST", `/v1/disputes/${id}/accept`, { key })),
    );
    const statuses = answers.map((a) => a.status);
    assertEquals(statuses.filter((s) => s === 200).length, 1, JSON.stringify(statuses));
    for (const a of answers.filter((a) => a.status !== 200)) {
      assertEquals([a.status, a.json.error.code], [400, "INVALID_TRANSACTION_STATUS"]);
    }
    const d = (await gw.request("GET", `/v1/disputes/${id}`, { key })).json.data;
    assertEquals([d.status, d.outcome, d.heldAmount, d.shortfall], ["REJECTED", "ACCEPTED", "0", "0"]);
    assertEquals(await xofCardWallet(gw, key), "4650"); // the hold left; nothing more
    assertEquals(await disputeEvents(gw, id), ["dispute.opened", "dispute.rejected"]);
    assertEquals(await disputeJournals(gw, id), ["DISPUTE_HOLD", "DISPUTE_DEBIT"]);
    // Closed: no evidence, no second accept.
    const late = await evidence(gw, key, id, { text: "trop tard" });
    assertEquals(late.json.error.code, "INVALID_TRANSACTION_STATUS");
    await assertLedgerConsistent(gw);
  }),
);

Deno.test(
  "another merchant, the other mode, malformed ids: NOT_FOUND; 50 identical evidence requests: one file",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Tissage Dori");
    const key = m.keys.liveSecret;
    const id = await openOne(gw, key);
    const stranger = await gw.createMerchant("Stranger");
    for (const k of [stranger.keys.liveSecret, m.keys.testSecret]) {
      assertEquals((await gw.request("GET", `/v1/disputes/${id}`, { key: k })).status, 404);
      assertEquals((await gw.request("POST", `/v1/disputes/${id}/accept`, { key: k })).status, 404);
      assertEquals((await evidence(gw, k, id, { text: "pas à moi" })).status, 404);
      assertEquals((await gw.request("GET", "/v1/disputes", { key: k })).json.data.meta.total, 0);
    }
    for (const bad of ["dsp_x", "pay_01k0000000000000000000000", "%00", "x".repeat(5000)]) {
      const res = await gw.request("GET", `/v1/disputes/${encodeURIComponent(bad)}`, { key });
      assertEquals(res.status, 404);
    }
    assertEquals((await gw.request("GET", "/v1/disputes?status=NOPE", { key })).status, 400);
    assertEquals((await gw.request("GET", "/v1/disputes", { key: m.keys.livePublishable })).status, 403);
    const answers = await Promise.all(
      Array.from(
        { length: 50 },
        () => evidence(gw, key, id, { text: "même", file1: { bytes: PDF, name: "a.pdf" } }),
      ),
    );
    for (const a of answers) assert(a.status === 200 || a.status === 409, JSON.stringify(a.json));
    const d = (await gw.request("GET", `/v1/disputes/${id}`, { key })).json.data;
    assertEquals([d.status, d.evidence.files.length, d.heldAmount], ["UNDER_REVIEW", 1, "5000"]);
    assertEquals(await disputeJournals(gw, id), ["DISPUTE_HOLD"]);
    await assertLedgerConsistent(gw);
  }),
);
