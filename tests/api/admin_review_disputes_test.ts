// The console's disputes and held bulk batches screens without a browser (refunds and the shared refusals
// are in admin_review_screens_test.ts): the list linked from the queue, the story with the amount held,
// the shortfall, the deadline and the merchant's evidence (text escaped, files downloaded through the
// operator route), 20 identical decisions at once moving the money once, escalation, and four eyes on a
// held batch above the threshold.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import { operatorClient } from "../operator_helpers.ts";
import { batchOf, createBatch } from "../bulk_helpers.ts";
import { creditWallet, idem } from "../money_out_helpers.ts";
import { paidMomo, roomyMerchant, xofWallet } from "../refund_fixture.ts";
import {
  auditActions,
  journalsLike,
  pageSignIn,
  refusedForms,
  REVIEW_ENV,
  textOf,
} from "../admin_page_helpers.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

async function openDispute(gw: TestGateway, payinId: string): Promise<string> {
  const reviewer = await operatorClient(gw, "reviewer");
  const opened = await reviewer.call("POST", "/admin/api/disputes", {
    transactionId: payinId,
    reason: "NOT_RECEIVED",
    note: "Le client dit n'avoir rien reçu",
  });
  assertEquals(opened.status, 201, opened.text);
  return opened.json.data.id;
}

async function giveEvidence(gw: TestGateway, key: string, id: string, text: string) {
  const form = new FormData();
  form.append("text", text);
  form.append("file1", new File([PNG], "reçu.png", { type: "image/png" }));
  const res = await gw.app.request(`/v1/disputes/${id}/evidence`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
  assertEquals(res.status, 200, await res.clone().text());
  return (await res.json()).data;
}

Deno.test("review screens: a dispute's story with evidence, resolved once under 20 posts, escalation", async () => {
  await withGateway(async (gw) => {
    const m = await roomyMerchant(gw, "Maquis Tenkodogo");
    const key = m.keys.liveSecret;
    const payin = await paidMomo(gw, key, "5000");
    const id = await openDispute(gw, payin);
    const evidence = await giveEvidence(gw, key, id, "Livré le 3 novembre.\n<script>alert(1)</script>");
    const fileId = evidence.evidence.files[0].id as string;
    assertEquals(await xofWallet(gw, key, "MOMO"), 0, "the 4,900 credited is held");

    const viewer = await pageSignIn(gw, "viewer");
    const queue = await viewer.get("/admin/queue?lang=en");
    assertMatch(queue.text, /<b>1<\/b><a id="count-disputes" href="\/admin\/disputes\?lang=en">/);
    const list = await viewer.get("/admin/disputes?lang=en");
    assert(list.text.includes(id) && list.text.includes(m.merchantId), "listed with its merchant");
    const decided = await viewer.get("/admin/disputes?status=RESOLVED&lang=en");
    assert(!decided.text.includes(id), "not among the resolved");
    const hostile = await viewer.get("/admin/disputes?status=%00NOPE");
    assert([200, 400].includes(hostile.status), `${hostile.status}: a clear answer, never a 500`);
    assertEquals((await viewer.get("/admin/disputes?status=NOPE")).status, 200, "an unknown filter: all");

    const story = await viewer.get(`/admin/disputes/${id}?lang=en`);
    assertEquals(story.status, 200);
    const shown = textOf(story.text);
    for (const expected of [payin, "UNDER_REVIEW", "Amount held 4900 XOF", "Shortfall (not held) 100 XOF"]) {
      assert(shown.includes(expected), `the story shows ${expected}`);
    }
    assertMatch(shown, /Evidence due by \d{4}-\d\d-\d\dT/);
    // A form sends its line break as CRLF; the page keeps the lines and shows the markup as text.
    assertMatch(story.text, /class="evidence">Livré le 3 novembre\.\r?\n&lt;script>alert\(1\)&lt;\/script>/);
    assert(!/<script/i.test(story.text), "no script at all");
    const link = `/admin/api/disputes/${id}/files/${fileId}`;
    assert(story.text.includes(`href="${link}"`), "the file through the operator route");
    const file = await viewer.get(link);
    assertEquals(file.status, 200);
    assertMatch(file.headers.get("content-disposition")!, /^attachment;/);
    assertEquals((await gw.request("GET", link)).status, 401, "signed out: no file");
    assertMatch(/id="ledger">([\s\S]*?)<\/table>/.exec(story.text)![1], new RegExp(`dispute:${id}:step:1`));

    const reviewer = await pageSignIn(gw, "reviewer");
    await refusedForms(viewer, reviewer, `/admin/disputes/${id}`, "resolve");
    const bad = await reviewer.post(`/admin/disputes/${id}/decide`, {
      action: "approve",
      note: "x",
      _csrf: reviewer.csrf,
    });
    assertEquals(bad.status, 400, "a dispute is resolved, rejected or escalated");

    const racing = await Promise.all(
      Array.from({ length: 20 }, () =>
        reviewer.post(`/admin/disputes/${id}/decide?lang=en`, {
          action: "resolve",
          note: "Preuve de livraison suffisante",
          _csrf: reviewer.csrf,
        })),
    );
    assertEquals(racing.map((r) => r.status).sort(), [303, ...Array(19).fill(400)]);
    assertMatch(textOf(racing.find((r) => r.status === 400)!.text), /No longer possible: .*RESOLVED/);
    assertEquals(await journalsLike(gw, `dispute:${id}`), [`dispute:${id}:release`, `dispute:${id}:step:1`]);
    assertEquals(await xofWallet(gw, key, "MOMO"), 4900, "released once");
    assertEquals((await auditActions(gw, id)).filter((a) => a === "dispute.resolve").length, 1);
    const after = textOf((await viewer.get(`/admin/disputes/${id}?lang=en`)).text);
    assertMatch(after, /Outcome .*Preuve de livraison suffisante/);

    // Escalated: the hold stays, escalation is no longer offered; then decided for the customer.
    const other = await openDispute(gw, await paidMomo(gw, key, "3000", "+22670999999"));
    const escalate = await reviewer.post(`/admin/disputes/${other}/decide`, {
      action: "escalate",
      note: "Au niveau suivant",
      _csrf: reviewer.csrf,
    });
    assertEquals(escalate.status, 303);
    const escalated = await reviewer.get(`/admin/disputes/${other}`);
    assertMatch(escalated.text, /id="dispute-status">ESCALATED/);
    assert(!escalated.text.includes('value="escalate"') && escalated.text.includes('value="reject"'));
    const rejected = await reviewer.post(`/admin/disputes/${other}/decide`, {
      action: "reject",
      note: "Le fournisseur donne raison au client",
      _csrf: reviewer.csrf,
    });
    assertEquals(rejected.status, 303);
    assert((await journalsLike(gw, `dispute:${other}`)).includes(`dispute:${other}:debit`));
    assertEquals((await gw.admin("GET", "/admin/api/audit/verify")).json.data.ok, true);
  }, { env: REVIEW_ENV })();
});

/** A mobile money batch paying an unregistered number: held for review at execution, debited. */
async function heldBatch(gw: TestGateway, key: string, amount: string): Promise<string> {
  const id = await createBatch(gw, key, "MOBILE_MONEY");
  const items = [{ walletAddress: "+22666222222", amount, recipientName: "Bila <Koné>" }];
  assertEquals(
    (await gw.request("POST", `/v1/bulk-payments/${id}/items`, { key, body: { items } })).status,
    200,
  );
  assertEquals((await gw.request("POST", `/v1/bulk-payments/${id}/validate`, { key })).status, 200);
  const exec = await gw.request("POST", `/v1/bulk-payments/${id}/execute`, { key, headers: idem() });
  assertEquals([exec.status, exec.json.data.status], [202, "PENDING_REVIEW"], exec.text);
  return id;
}

Deno.test("review screens: held bulk batches, approved once under 20 posts, four eyes, rejection", async () => {
  await withGateway(async (gw) => {
    const m = await roomyMerchant(gw, "Paie Groupée");
    const key = m.keys.liveSecret;
    await creditWallet(gw, m.merchantId, false, "MOMO", "100000");
    const small = await heldBatch(gw, key, "1000");
    const large = await heldBatch(gw, key, "30000");
    const wallet = await xofWallet(gw, key, "MOMO");

    const viewer = await pageSignIn(gw, "viewer");
    const queue = await viewer.get("/admin/queue?lang=en");
    assertMatch(queue.text, /<b>2<\/b><a id="count-bulk" href="\/admin\/bulk\?lang=en">/);
    const list = await viewer.get("/admin/bulk?lang=en");
    assert(list.text.includes(small) && list.text.includes(large));
    assertMatch(textOf(list.text), /not a registered fiat destination/);
    const story = await viewer.get(`/admin/bulk/${small}?lang=en`);
    assertEquals(story.status, 200);
    assert(story.text.includes("Bila &lt;Koné>"), "the recipient, as text");
    assertMatch(story.text, /id="approvals">0\/1</);
    assertMatch(/id="ledger">([\s\S]*?)<\/table>/.exec(story.text)![1], new RegExp(`bulk:${small}:execute`));
    assertEquals((await viewer.get("/admin/bulk/blk_nope")).status, 404);

    const reviewer = await pageSignIn(gw, "reviewer");
    await refusedForms(viewer, reviewer, `/admin/bulk/${small}`, "approve");
    const racing = await Promise.all(
      Array.from({ length: 20 }, () =>
        reviewer.post(`/admin/bulk/${small}/decide?lang=en`, {
          action: "approve",
          note: "Agent connu",
          _csrf: reviewer.csrf,
        })),
    );
    assertEquals(racing.map((r) => r.status).sort(), [303, ...Array(19).fill(400)]);
    assertMatch(textOf(racing.find((r) => r.status === 400)!.text), /No longer possible/);
    assertEquals(gw.enqueued.filter((e) => e.message.type === "bulk.advance").length, 1, "released once");
    assertEquals(await journalsLike(gw, `bulk:${small}:`), [`bulk:${small}:execute`]);
    assertEquals((await auditActions(gw, small)).filter((a) => a === "bulk_payment.approve").length, 1);
    assertMatch((await viewer.get(`/admin/bulk/${small}`)).text, /id="batch-status">PROCESSING/);

    // 30,000 XOF is above the 20,000 four-eyes threshold: a first approval, never twice by one reviewer.
    const first = await reviewer.post(`/admin/bulk/${large}/decide?lang=en`, {
      action: "approve",
      note: "Premier regard",
      _csrf: reviewer.csrf,
    });
    assertEquals(first.headers.get("location"), `/admin/bulk/${large}?lang=en&done=first`);
    const same = await reviewer.post(`/admin/bulk/${large}/decide?lang=en`, {
      action: "approve",
      note: "encore",
      _csrf: reviewer.csrf,
    });
    assertEquals(same.status, 403);
    assertMatch(textOf(same.text), /SAME_APPROVER/);
    const debited = Number((await batchOf(gw, key, large)).totalDebited);
    const second = await pageSignIn(gw, "reviewer");
    const rejected = await second.post(`/admin/bulk/${large}/decide`, {
      action: "reject",
      note: "Numéro inconnu, montant élevé",
      _csrf: second.csrf,
    });
    assertEquals(rejected.status, 303);
    assertEquals(await journalsLike(gw, `bulk:${large}:`), [
      `bulk:${large}:execute`,
      `bulk:${large}:release`,
    ]);
    assertEquals(await xofWallet(gw, key, "MOMO"), wallet + debited, "the debit returned, once");
    assertMatch((await viewer.get(`/admin/bulk/${large}`)).text, /id="batch-status">REJECTED/);
    assertEquals((await gw.admin("GET", "/admin/api/audit/verify")).json.data.ok, true);
  }, { env: REVIEW_ENV })();
});
