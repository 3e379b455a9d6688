// The console's search opens refunds, disputes and bulk batches and items on their screens (found by id,
// by their pay-in's id, a provider's case reference or an item's reference), and its long lists page by
// keyset: a "next page" link carries the last row's cursor, no row is shown twice or skipped, and a forged
// cursor is a clear 400.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { withGateway } from "../helpers.ts";
import { pageSignIn, REVIEW_ENV, textOf } from "../admin_page_helpers.ts";
import { askRefund, paidCard, roomyMerchant } from "../refund_fixture.ts";
import { paidCardPayin, raiseChargeback } from "../dispute_fixture.ts";
import { randomTronAddress, whitelist } from "../money_out_helpers.ts";

Deno.test("console search: refunds, disputes, bulk batches and items open on their screens", async () => {
  await withGateway(async (gw) => {
    const m = await roomyMerchant(gw);
    const key = m.keys.liveSecret;
    const refunded = await paidCard(gw, key, "20000");
    const refund = (await askRefund(gw, key, refunded, { amount: "5000" })).json.data.refundId as string;
    const disputed = await paidCardPayin(gw, key, "10000");
    assertEquals((await raiseChargeback(gw, disputed.providerRef, { amount: "4000" })).status, 200);
    const [dispute] = await gw.db.query<{ id: string; case_ref: string }>(
      "SELECT id, case_ref FROM disputes WHERE payin_id = $1",
      [disputed.id],
    );
    const batch = (await gw.request("POST", "/v1/bulk-payments", { key, body: { label: "salaires" } })).json
      .data.id as string;
    const recipient = randomTronAddress();
    await whitelist(gw, key, recipient, ["PAYOUT"]);
    const items = await gw.request("POST", `/v1/bulk-payments/${batch}/items`, {
      key,
      body: { items: [{ walletAddress: recipient, amount: "5", reference: "salaire-awa" }] },
    });
    assertEquals(items.status, 200, items.text);

    const viewer = await pageSignIn(gw, "viewer");
    const links = async (q: string) => {
      const res = await viewer.get(`/admin/search?lang=en&q=${encodeURIComponent(q)}`);
      assertEquals(res.status, 200, q);
      const table = /id="found">([\s\S]*?)<\/table>/.exec(res.text)?.[1] ?? "";
      return [...table.matchAll(/<a class="mono" href="([^"?]+)\?lang=en">/g)].map((x) => x[1]);
    };
    assertEquals(await links(refund), [`/admin/refunds/${refund}`]);
    const byPayin = await links(refunded);
    assert(byPayin.includes(`/admin/refunds/${refund}`), "a pay-in's id finds its refunds too");
    assertEquals(await links(dispute.id), [`/admin/disputes/${dispute.id}`]);
    assert(
      (await links(dispute.case_ref)).includes(`/admin/disputes/${dispute.id}`),
      "by the acquirer's case",
    );
    assert((await links(disputed.id)).includes(`/admin/disputes/${dispute.id}`), "by the disputed pay-in");
    assertEquals(await links(batch), [`/admin/bulk/${batch}`]);
    assertEquals(await links("salaire-awa"), [`/admin/bulk/${batch}`], "an item opens on its batch");
    const found = textOf((await viewer.get(`/admin/search?lang=en&q=${refund}`)).text);
    assertMatch(found, /REFUND · PENDING_APPROVAL/);
    const api = await gw.admin("GET", `/admin/api/search?q=salaire-awa`);
    assertEquals(api.json.data.items[0].batchId, batch, "the API says the item's batch too");
    assertEquals((await gw.admin("GET", `/admin/api/search?q=${refund}`)).json.data.items[0].type, "REFUND");
  }, { env: REVIEW_ENV })();
});

Deno.test("console merchants list: a page at a time by keyset, next-page links, forged cursors refused", async () => {
  await withGateway(async (gw) => {
    for (let i = 0; i < 52; i++) await gw.createMerchant(`Boutique ${String(i).padStart(2, "0")}`);
    const viewer = await pageSignIn(gw, "viewer");
    const seen: string[] = [];
    let url: string | undefined = "/admin/merchants?lang=en&q=Boutique";
    let pages = 0;
    while (url) {
      const res = await viewer.get(url);
      assertEquals(res.status, 200, url);
      assertMatch(res.text, /Merchants \(52\)/);
      seen.push(
        ...[...res.text.matchAll(/<div class="mono muted">(mch_[0-9a-z]{26})<\/div>/g)].map((x) => x[1]),
      );
      url = /id="next-page" rel="next" href="([^"]+)"/.exec(res.text)?.[1]?.replaceAll("&amp;", "&");
      if (url) assertMatch(url, /^\/admin\/merchants\?q=Boutique&lang=en&after=\d{4}-/, "the filter is kept");
      pages++;
    }
    assertEquals(
      [pages, seen.length, new Set(seen).size],
      [2, 52, 52],
      "every merchant once, over two pages",
    );
    const newestFirst = (await gw.db.query<{ id: string }>(
      "SELECT id FROM merchants WHERE name LIKE 'Boutique %' ORDER BY created_at DESC, id DESC",
    )).map((r) => r.id);
    assertEquals(seen, newestFirst);
    for (const bad of ["garbage", "2026-11-26T08:00:00.000000Z~mch_x", "%00", "x".repeat(500)]) {
      const res = await viewer.get(`/admin/merchants?lang=en&after=${encodeURIComponent(bad)}`);
      assertEquals(res.status, 400, bad);
      assertMatch(textOf(res.text), /after: not a page cursor from this console/);
    }
    for (
      const path of [
        "/admin/queue",
        "/admin/refunds",
        "/admin/bulk",
        "/admin/kyb",
        "/admin/provider-statuses",
      ]
    ) {
      assertEquals((await viewer.get(`${path}?after=nope`)).status, 400, path);
      assertEquals((await viewer.get(path)).status, 200, path);
    }
  }, { env: REVIEW_ENV })();
});
