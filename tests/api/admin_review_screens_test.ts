// The console's review screens without a browser: refunds to approve, disputes to decide and held bulk
// batches. Each: the queue's count links to the list, the story shows what a reviewer needs, a viewer sees
// no button and is refused a POST, a forged or cross-site form is refused, a note is required, 20 identical
// decisions posted at once move the money once, a late decision reads as a wrong state, four eyes hold.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { withGateway } from "../helpers.ts";
import {
  auditActions,
  journalsLike,
  pageSignIn,
  refusedForms,
  REVIEW_ENV,
  textOf,
} from "../admin_page_helpers.ts";
import { askRefund, inFlight, paidCard, roomyMerchant, runRefundJobs, xofWallet } from "../refund_fixture.ts";

Deno.test("review screens: refunds listed, their story, approve once under 20 posts, four eyes", async () => {
  await withGateway(async (gw) => {
    const m = await roomyMerchant(gw);
    const key = m.keys.liveSecret;
    await paidCard(gw, key, "100000");
    const payin = await paidCard(gw, key, "40000");
    const small = (await askRefund(gw, key, payin, { amount: "5000", reason: "Colis <b>abîmé</b>" })).json
      .data.refundId as string;
    const big = (await askRefund(gw, key, payin, { amount: "30000" })).json.data.refundId as string;
    const wallet = await xofWallet(gw, key, "CARD");
    assertEquals(await inFlight(gw, "CARD"), 35000, "both reserved while they wait");

    const viewer = await pageSignIn(gw, "viewer");
    const queue = await viewer.get("/admin/queue?lang=en");
    assertMatch(queue.text, /<b>2<\/b><a id="count-refunds" href="\/admin\/refunds\?lang=en">/);
    const list = await viewer.get("/admin/refunds?lang=en");
    assertEquals(list.status, 200);
    assert(list.text.includes(small) && list.text.includes(big));
    assert(!/<script|\son[a-z]+=/i.test(list.text), "no script, no inline handler");

    const story = await viewer.get(`/admin/refunds/${small}?lang=en`);
    const shown = textOf(story.text);
    for (const expected of [m.merchantId, payin, "5000 XOF", "CARD", "PENDING_APPROVAL", "0/1"]) {
      assert(shown.includes(expected), `the story shows ${expected}`);
    }
    assert(story.text.includes("Colis &lt;b>abîmé&lt;/b>"), "the merchant's reason, as text");
    assert(!story.text.includes("<b>abîmé"), "never as markup");
    assertMatch(
      /id="ledger">([\s\S]*?)<\/table>/.exec(story.text)![1],
      new RegExp(`refund:${small}:reserve`),
    );
    assertEquals((await viewer.get("/admin/refunds/rfd_nope")).status, 404);
    // Another refund's well-formed id: the last character changed (to one it is not).
    const other = small.slice(0, -1) + (small.endsWith("x") ? "y" : "x");
    assertEquals((await viewer.get(`/admin/refunds/${other}`)).status, 404);

    const reviewer = await pageSignIn(gw, "reviewer");
    await refusedForms(viewer, reviewer, `/admin/refunds/${small}`, "approve");
    assertEquals(await inFlight(gw, "CARD"), 35000);

    // 20 approvals posted at once: one is the decision, the others read that it is no longer possible.
    const racing = await Promise.all(
      Array.from({ length: 20 }, () =>
        reviewer.post(`/admin/refunds/${small}/decide?lang=en`, {
          action: "approve",
          note: "Vérifié avec la boutique",
          _csrf: reviewer.csrf,
        })),
    );
    assertEquals(racing.map((r) => r.status).sort(), [303, ...Array(19).fill(400)]);
    const late = racing.find((r) => r.status === 400)!;
    assertMatch(textOf(late.text), /No longer possible: .*APPROVED.*INVALID_TRANSACTION_STATUS/);
    assertEquals(gw.enqueued.filter((e) => e.message.type === "refund.send").length, 1, "sent once");
    await runRefundJobs(gw);
    assertEquals(await journalsLike(gw, `refund:${small}`), [
      `refund:${small}:paid`,
      `refund:${small}:reserve`,
    ]);
    assertEquals(await inFlight(gw, "CARD"), 30000, "the small refund left IN_FLIGHT once");
    assertEquals(await xofWallet(gw, key, "CARD"), wallet, "the wallet paid at the request, not again");
    assertEquals((await auditActions(gw, small)).filter((a) => a === "refund.approve").length, 1);
    const after = await reviewer.get(`/admin/refunds/${small}?lang=en`);
    assert(!after.text.includes('id="decide"'), "a decided refund has no buttons");
    const trail = textOf(/id="trail">([\s\S]*?)<\/table>/.exec(after.text)![1]);
    assertMatch(trail, /refund\.approve .*reviewer-.*Vérifié avec la boutique/, "who and why, in the trail");

    // Four eyes above 20,000 XOF: the first approval waits; the same reviewer cannot give the second.
    const first = await reviewer.post(`/admin/refunds/${big}/decide?lang=en`, {
      action: "approve",
      note: "Premier regard",
      _csrf: reviewer.csrf,
    });
    assertEquals([first.status, first.headers.get("location")], [
      303,
      `/admin/refunds/${big}?lang=en&done=first`,
    ]);
    const waiting = await reviewer.get(first.headers.get("location")!);
    assertMatch(textOf(waiting.text), /First approval recorded/);
    assertMatch(waiting.text, /id="approvals">1\/2</);
    const same = await reviewer.post(`/admin/refunds/${big}/decide?lang=en`, {
      action: "approve",
      note: "encore moi",
      _csrf: reviewer.csrf,
    });
    assertEquals(same.status, 403);
    assertMatch(textOf(same.text), /a different reviewer must give the second\. \(SAME_APPROVER\)/);
    const second = await pageSignIn(gw, "reviewer");
    const reject = await second.post(`/admin/refunds/${big}/decide`, {
      action: "reject",
      note: "Montant trop élevé pour cette commande",
      _csrf: second.csrf,
    });
    assertEquals(reject.status, 303);
    assertMatch((await second.get(`/admin/refunds/${big}`)).text, /id="refund-status">REJECTED/);
    assertEquals(await inFlight(gw, "CARD"), 0, "the reservation returned");
    assertEquals(await xofWallet(gw, key, "CARD"), wallet + 30000);
    assertEquals((await gw.admin("GET", "/admin/api/audit/verify")).json.data.ok, true);
  }, { env: REVIEW_ENV })();
});
