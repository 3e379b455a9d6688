// The console's KYB and held-status screens without a browser (issue 22). KYB: the queue counts the
// SUBMITTED review and links to the list; a viewer reads the business details, the documents (downloads
// served as attachments) and the threads but gets no button and a 403 on every post; a reviewer asks a
// question, sees the merchant's reply, resolves it with a note, and approves once under 50 identical posts.
// Held statuses: counted and listed, settled once by a reviewer (note required) under 50 posts. Anonymous
// callers and merchant keys are sent to sign-in; forged and cross-site forms, NUL bytes and 100 KB notes
// are refused with a clear answer and nothing changes.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { withGateway } from "../helpers.ts";
import { auditActions, pageSignIn, refusedForms, REVIEW_ENV, textOf } from "../admin_page_helpers.ts";
import { holdUnknownStatus } from "../../domain/providers/polling.ts";
import { heldStatusesPage, readCursor } from "../../domain/operators/console_lists.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const PDF = new TextEncoder().encode(
  "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
);
const BUSINESS = {
  legalName: "Boutique Ouaga SARL",
  tradingName: "<b>Ouaga</b> Shop",
  registrationNumber: "BF-OUA-2024-B-1234",
  country: "BF",
  address: "Avenue Kwame Nkrumah, Ouagadougou",
  representativeName: "Awa Ouedraogo",
  contactEmail: "awa@boutique.example",
};

Deno.test("console KYB: list, review, documents, threads, approval once; every role gets what it should", async () => {
  await withGateway(async (gw) => {
    const m = await gw.createMerchant("Boutique Ouaga", "PENDING");
    const other = await gw.createMerchant("Autre Boutique", "PENDING");
    const key = m.keys.liveSecret;
    assertEquals(
      (await gw.request("PUT", "/v1/merchant/kyb", { key, body: { business: BUSINESS } })).status,
      200,
    );
    const form = new FormData();
    form.append("kind", "REGISTRATION_CERTIFICATE");
    form.append("file", new File([PDF], "registre.pdf", { type: "application/pdf" }));
    const up = await gw.app.request("/v1/merchant/kyb/documents", {
      method: "POST",
      headers: { "x-api-key": key },
      body: form,
    });
    assertEquals(up.status, 201);
    const docId = (await up.json()).data.id as string;
    assertEquals(
      (await gw.request("POST", "/v1/merchant/kyb/submit", { key })).json.data.status,
      "SUBMITTED",
    );
    const foreignThread = (await gw.admin("POST", `/admin/api/kyb/${other.merchantId}/threads`, {
      message: "Question pour l'autre boutique",
    })).json.data.id as string;
    const path = `/admin/kyb/${m.merchantId}`;

    // Anonymous, and a merchant's API key: the sign-in page, nothing shown, nothing changed.
    for (const headers of [{}, { "x-api-key": key }] as Array<Record<string, string>>) {
      for (const [method, p] of [["GET", "/admin/kyb"], ["GET", path], ["POST", `${path}/decide`]]) {
        const res = await gw.request(method, p, {
          headers: { ...FORM, ...headers },
          ...(method === "POST" ? { rawBody: "action=approve&note=x" } : {}),
        });
        assertEquals(
          [res.status, res.headers.get("location")],
          [303, "/admin/sign-in?lang=fr"],
          `${method} ${p}`,
        );
      }
    }

    const viewer = await pageSignIn(gw, "viewer");
    const queue = await viewer.get("/admin/queue?lang=en");
    assertMatch(queue.text, /<b>1<\/b><a id="count-kyb" href="\/admin\/kyb\?lang=en">KYB reviews to decide/);
    const list = await viewer.get("/admin/kyb?lang=en");
    assertEquals(list.status, 200);
    assert(list.text.includes(`/admin/kyb/${m.merchantId}?lang=en`) && list.text.includes("Boutique Ouaga"));
    assert(!list.text.includes(other.merchantId), "a DRAFT review does not wait for anyone");
    assert(!/<script|\son[a-z]+=/i.test(list.text), "no script, no inline handler");
    assertMatch(list.headers.get("content-security-policy") ?? "", /nonce-[^']+'.*frame-ancestors 'none'/);

    const story = await viewer.get(`${path}?lang=en`);
    const shown = textOf(story.text);
    for (
      const expected of [
        "SUBMITTED",
        "Boutique Ouaga SARL",
        "BF-OUA-2024-B-1234",
        "Awa Ouedraogo",
        "registre.pdf",
      ]
    ) {
      assert(shown.includes(expected), `the review shows ${expected}`);
    }
    assert(
      story.text.includes("&lt;b>Ouaga&lt;/b> Shop") && !story.text.includes("<b>Ouaga"),
      "text, not markup",
    );
    const link = `/admin/api/kyb/${m.merchantId}/documents/${docId}`;
    assert(story.text.includes(`href="${link}" download`), "a download link to the operator route");
    const doc = await viewer.get(link);
    assertEquals(doc.status, 200);
    assertMatch(doc.headers.get("content-disposition") ?? "", /^attachment/);
    assertMatch(doc.headers.get("content-security-policy") ?? "", /sandbox/);
    assert(!story.text.includes('id="ask"'), "a viewer is not offered a question form");
    const asAdmin = (await (await pageSignIn(gw, "admin")).get(`${path}?lang=en`)).text;
    assert(asAdmin.includes('id="decide"') && asAdmin.includes('id="ask"'), "an admin may decide and ask");
    await refusedForms(viewer, await pageSignIn(gw, "reviewer"), path, "approve");
    const reviewer = await pageSignIn(gw, "reviewer");
    const byViewer = await viewer.post(`${path}/threads`, { message: "Une question", _csrf: viewer.csrf });
    assertEquals(byViewer.status, 403);
    for (const note of ["x".repeat(100_000), "a\u0000b"]) {
      const res = await reviewer.post(`${path}/decide?lang=en`, {
        action: "approve",
        note,
        _csrf: reviewer.csrf,
      });
      assertEquals(res.status, 400);
      assertMatch(
        textOf(res.text),
        /note: at most 1000 characters, no NUL or lone surrogate \(VALIDATION_ERROR\)/,
      );
    }

    // A question, the merchant's reply, then the thread resolved with a note.
    const ask = await reviewer.post(`${path}/threads?lang=en`, {
      message: "Merci d'envoyer les statuts signés",
      _csrf: reviewer.csrf,
    });
    assertEquals([ask.status, ask.headers.get("location")], [303, `${path}?lang=en&done=asked`]);
    const asked = await reviewer.get(ask.headers.get("location")!);
    assertMatch(textOf(asked.text), /Question sent to the merchant/);
    const threadId = /id="thread-(kth_[0-9a-z]{26})"/.exec(asked.text)![1];
    const reply = await gw.request("POST", `/v1/merchant/kyb/threads/${threadId}/replies`, {
      key,
      body: { message: "Les voici, signés le 3 novembre" },
    });
    assertEquals(reply.status, 201, reply.text);
    const withReply = textOf((await reviewer.get(`${path}?lang=en`)).text);
    assertMatch(withReply, /Merchant · api key .* Les voici, signés le 3 novembre/);
    const threadPath = `${path}/threads/${threadId}`;
    assertEquals(
      (await reviewer.post(`${path}/threads/${foreignThread}`, {
        action: "resolve",
        message: "x",
        _csrf: reviewer.csrf,
      })).status,
      404,
      "another merchant's thread",
    );
    const blank = await reviewer.post(`${threadPath}?lang=en`, {
      action: "resolve",
      message: "  ",
      _csrf: reviewer.csrf,
    });
    assertEquals(blank.status, 400);
    assertMatch(textOf(blank.text), /REASON_NOTE_REQUIRED/);
    const close = await reviewer.post(`${threadPath}?lang=en`, {
      action: "resolve",
      message: "Statuts reçus et conformes",
      _csrf: reviewer.csrf,
    });
    assertEquals([close.status, close.headers.get("location")], [303, `${path}?lang=en&done=closed`]);
    const closed = await reviewer.get(`${path}?lang=en`);
    assertMatch(closed.text, /class="thread-status">RESOLVED</);
    const late = await reviewer.post(`${threadPath}?lang=en`, {
      action: "reply",
      message: "encore",
      _csrf: reviewer.csrf,
    });
    assertEquals(late.status, 400);
    assertMatch(textOf(late.text), /No longer possible: .*RESOLVED.*INVALID_STATE/);
    const closing = (await gw.admin("GET", `/admin/api/audit?itemId=${threadId}`)).json.data.items
      .find((r: { action: string }) => r.action === "kyb.thread.resolve");
    assertEquals(closing.note, "Statuts reçus et conformes", "the note is in the trail");

    // 50 approvals at once: one decision, the others read that it is no longer possible.
    const racing = await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          reviewer.post(`${path}/decide?lang=en`, {
            action: "approve",
            note: "Pièces conformes",
            _csrf: reviewer.csrf,
          }),
      ),
    );
    assertEquals(racing.map((r) => r.status).sort(), [303, ...Array(49).fill(400)]);
    assertMatch(
      textOf(racing.find((r) => r.status === 400)!.text),
      /No longer possible: .*APPROVED.*INVALID_STATE/,
    );
    assertEquals((await auditActions(gw, m.merchantId)).filter((a) => a === "kyb.approve").length, 1);
    const approved = await reviewer.get(`${path}?lang=en&done=decided`);
    assertMatch(approved.text, /id="kyb-status">APPROVED</);
    assertMatch(textOf(approved.text), /Decision recorded\..*Pièces conformes/);
    assert(!approved.text.includes('id="decide"'), "a decided review has no buttons");
    const [{ kyb_status }] = await gw.db.query<{ kyb_status: string }>(
      "SELECT kyb_status FROM merchants WHERE id = $1",
      [m.merchantId],
    );
    assertEquals(kyb_status, "APPROVED");
    assertMatch((await viewer.get("/admin/queue?lang=en")).text, /<b>0<\/b><a id="count-kyb"/);
    assertEquals((await viewer.get("/admin/kyb/mch_nope")).status, 404);
    assertEquals((await viewer.get(`/admin/kyb/mch_${"0".repeat(26)}`)).status, 404);
    assertEquals((await viewer.get("/admin/kyb?after=garbage%00")).status, 400);
    assertEquals((await gw.admin("GET", "/admin/api/audit/verify")).json.data.ok, true);
  }, { env: REVIEW_ENV })();
});

Deno.test("console held statuses: counted, listed a page at a time, settled once with a note", async () => {
  await withGateway(async (gw) => {
    const m = await gw.createMerchant("Boutique Ouaga", "APPROVED");
    const payin = async (amount: string) => {
      const res = await gw.request("POST", "/v1/payments?sandbox=true", {
        key: m.keys.testSecret,
        body: { amount, paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" },
      });
      assertEquals(res.status, 201, res.text);
      const id = res.json.data.transactionId as string;
      await holdUnknownStatus(gw.deps, { kind: "PAYIN", id }, { name: "cinetpay" }, "SUSPENDED <i>?</i>");
      return id;
    };
    const first = await payin("5000");
    const second = await payin("7000");

    // Keyset paging, one row a page: each page starts after the last one shown, none twice, none missed.
    const page1 = await heldStatusesPage(gw.deps, null, 1);
    const page2 = await heldStatusesPage(gw.deps, readCursor(page1.next!), 1);
    assertEquals([page1.rows[0].id, page2.rows[0].id, page2.next], [first, second, null]);

    const viewer = await pageSignIn(gw, "viewer");
    assertMatch(
      (await viewer.get("/admin/queue?lang=en")).text,
      /<b>2<\/b><a id="count-provider-statuses" href="\/admin\/provider-statuses\?lang=en">/,
    );
    const list = await viewer.get("/admin/provider-statuses?lang=en");
    assert(list.text.includes(first) && list.text.includes(second));
    assert(list.text.includes("SUSPENDED &lt;i>?&lt;/i>"), "what the aggregator said, as text");
    const path = `/admin/provider-statuses/${first}`;
    const story = await viewer.get(`${path}?lang=en`);
    assertMatch(textOf(story.text), /PAYIN · sandbox .* cinetpay .* AWAITING_PAYMENT .* 5000 XOF/);
    assert(!story.text.includes('id="decide"'), "a viewer sees no button");
    const admin = await pageSignIn(gw, "admin");
    const asAdmin = await admin.get(`${path}?lang=en`);
    assert(
      asAdmin.text.includes('id="decide"') && asAdmin.text.includes('value="FAILED"'),
      "an admin decides",
    );
    const reviewer = await pageSignIn(gw, "reviewer");
    const post = (who: typeof reviewer, body: Record<string, string>, headers: Record<string, string> = {}) =>
      who.post(`${path}/resolve?lang=en`, body, headers);
    assertEquals((await post(viewer, { outcome: "SUCCEEDED", note: "vu", _csrf: viewer.csrf })).status, 403);
    assertEquals((await post(reviewer, { outcome: "SUCCEEDED", note: "vu" })).status, 403, "no CSRF token");
    assertEquals((await post(reviewer, { outcome: "SUCCEEDED", note: "vu", _csrf: "forged" })).status, 403);
    const crossSite = await post(reviewer, { outcome: "SUCCEEDED", note: "vu", _csrf: reviewer.csrf }, {
      origin: "https://evil.example",
    });
    assertEquals(crossSite.status, 403);
    const noNote = await post(reviewer, { outcome: "SUCCEEDED", _csrf: reviewer.csrf });
    assertEquals(noNote.status, 400);
    assertMatch(textOf(noNote.text), /REASON_NOTE_REQUIRED/);
    for (const note of ["x".repeat(100_000), "a\u0000b"]) {
      const res = await post(reviewer, { outcome: "SUCCEEDED", note, _csrf: reviewer.csrf });
      assertEquals(res.status, 400);
      assertMatch(textOf(res.text), /VALIDATION_ERROR/);
    }
    const odd = await post(reviewer, { outcome: "MAYBE", note: "vu", _csrf: reviewer.csrf });
    assertMatch(textOf(odd.text), /outcome: SUCCEEDED or FAILED/);
    assertEquals((await viewer.get("/admin/provider-statuses/pay_nope")).status, 404);
    assertEquals((await viewer.get(`/admin/provider-statuses/pay_${"0".repeat(26)}`)).status, 404);
    assertEquals(
      (await post(reviewer, { outcome: "SUCCEEDED", note: "Payé dans le back-office", _csrf: reviewer.csrf }))
        .status,
      303,
    );
    assertEquals(await statusOf(first), "CONFIRMED");

    // 50 decisions at once on the second: settled once, the others told it is no longer possible.
    const racing = await Promise.all(
      Array.from({ length: 50 }, () =>
        reviewer.post(`/admin/provider-statuses/${second}/resolve?lang=en`, {
          outcome: "FAILED",
          note: "Échec dans le back-office CinetPay",
          _csrf: reviewer.csrf,
        })),
    );
    assertEquals(racing.map((r) => r.status).sort(), [303, ...Array(49).fill(400)]);
    const done = racing.find((r) => r.status === 303)!.headers.get("location")!;
    assertEquals(done, `/admin/provider-statuses?lang=en&settled=${second}&status=FAILED`);
    assertMatch(
      textOf((await reviewer.get(done)).text),
      new RegExp(`Decision recorded: ${second} is now FAILED\\.`),
    );
    assertMatch(textOf(racing.find((r) => r.status === 400)!.text), /No longer possible: .*INVALID_STATE/);
    assertEquals(await statusOf(second), "FAILED");
    assertEquals((await auditActions(gw, second)).filter((a) => a === "provider_status.resolve").length, 1);
    const journals = await gw.db.query("SELECT reference FROM journals WHERE reference LIKE $1", [
      `payin:${first}%`,
    ]);
    assertEquals(journals.length, 1, "credited once");
    assertMatch((await viewer.get("/admin/queue?lang=en")).text, /<b>0<\/b><a id="count-provider-statuses"/);
    assertEquals((await viewer.get(path)).status, 404, "settled: no longer held");

    async function statusOf(id: string) {
      return (await gw.db.query<{ status: string }>("SELECT status FROM payins WHERE id = $1", [id]))[0]
        .status;
    }
  }, { env: REVIEW_ENV })();
});
