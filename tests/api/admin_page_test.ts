// The operator page (/admin) without a browser: sign-in with password and code, strict CSP with a nonce and
// no script or inline handler, the queue's counts, an item's story, approve and reject through forms with
// the session's CSRF token (a forged form, another origin, a viewer, NUL bytes: refused, nothing decided),
// French by default and English on request, under 100 KB.
import { totpCode } from "../../domain/operators/totp.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import { creditUsdt, idem, randomTronAddress, whitelist } from "../money_out_helpers.ts";
import { cookieOf, newOperator, OPERATOR_TEST_ENV, PASSWORD } from "../operator_helpers.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

async function pageSignIn(gw: TestGateway, role: "viewer" | "reviewer") {
  const op = await newOperator(gw, role);
  const res = await gw.request("POST", "/admin/sign-in", {
    headers: FORM,
    rawBody: new URLSearchParams({
      email: op.email,
      password: PASSWORD,
      code: totpCode(op.totpSecret, gw.deps.clock.now()),
    }).toString(),
  });
  assertEquals([res.status, res.headers.get("location")], [303, "/admin/queue?lang=fr"], res.text);
  const cookie = cookieOf(res.headers.get("set-cookie"));
  const queue = await gw.request("GET", "/admin/queue", { headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(queue.text)![1];
  return { op, cookie, csrf, queue };
}

Deno.test("the operator page: sign-in, CSP, queue, item story, decisions by form, refusals", async () => {
  await withGateway(async (gw) => {
    const home = await gw.request("GET", "/admin");
    assertEquals([home.status, home.headers.get("location")], [303, "/admin/sign-in?lang=fr"]);
    const signInPage = await gw.request("GET", "/admin/sign-in");
    const csp = signInPage.headers.get("content-security-policy") ?? "";
    assertMatch(csp, /default-src 'none'/);
    assertMatch(csp, /frame-ancestors 'none'/);
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)![1];
    assert(signInPage.text.includes(`nonce="${nonce}"`));
    assert(!/<script|\son[a-z]+=/i.test(signInPage.text), "no script, no inline handler");
    assertMatch(signInPage.text, /<html lang="fr">/);
    assertMatch(
      (await gw.request("GET", "/admin/sign-in", { headers: { "accept-language": "en-GB" } })).text,
      /Sign in/,
    );

    const op = await newOperator(gw, "reviewer");
    const wrong = await gw.request("POST", "/admin/sign-in", {
      headers: FORM,
      rawBody: new URLSearchParams({ email: op.email, password: PASSWORD, code: "000000" }).toString(),
    });
    assertEquals(wrong.status, 400);
    assertMatch(wrong.text, /Code incorrect/);
    const crossSite = await gw.request("POST", "/admin/sign-in", {
      headers: { ...FORM, origin: "https://evil.example" },
      rawBody: "email=a%40b.c&password=x&code=123456",
    });
    assertEquals(crossSite.status, 403);
    const nul = await gw.request("POST", "/admin/sign-in", {
      headers: FORM,
      rawBody: "email=a%00b&password=x&code=1",
    });
    assertEquals(nul.status, 400);

    // An item waiting, then its story and decisions.
    const m = await gw.createMerchant("Page Shop");
    await creditUsdt(gw, m.merchantId, false, "500");
    await whitelist(gw, m.keys.liveSecret, randomTronAddress(), ["WITHDRAWAL"]);
    const withdraw = async () =>
      (await gw.request("POST", "/v1/withdrawals", {
        key: m.keys.liveSecret,
        body: { amount: "40" },
        headers: idem(),
      }))
        .json.data.id as string;
    const first = await withdraw();
    const second = await withdraw();

    const api = (await gw.admin("GET", "/admin/api/queue")).json.data;
    assertEquals(
      [api.counts.withdrawalsInReview, api.items.map((i: { item: { id: string } }) => i.item.id)],
      [2, [
        first,
        second,
      ]],
    );
    const reviewer = await pageSignIn(gw, "reviewer");
    assertMatch(reviewer.queue.text, /<b>2<\/b>Retraits en revue/);
    assert(reviewer.queue.text.includes(first));
    assert(new TextEncoder().encode(reviewer.queue.text).length < 100_000);
    const story = await gw.request("GET", `/admin/items/${first}`, { headers: { cookie: reviewer.cookie } });
    assertEquals(story.status, 200);
    assertMatch(story.text, /Page Shop/);
    assertMatch(story.text, /value="approve"/);
    const decide = (id: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
      gw.request("POST", `/admin/items/${id}/decide`, {
        headers: { ...FORM, cookie: reviewer.cookie, ...headers },
        rawBody: new URLSearchParams(body).toString(),
      });
    assertEquals((await decide(first, { action: "approve" })).status, 403, "no CSRF token");
    assertEquals((await decide(first, { action: "approve", _csrf: "forged" })).status, 403);
    const otherSite = await decide(first, { action: "approve", _csrf: reviewer.csrf }, {
      origin: "https://evil.example",
    });
    assertEquals(otherSite.status, 403);
    const nulNote = await decide(first, { action: "reject", _csrf: reviewer.csrf, note: "bad\u0000" });
    assertEquals(nulNote.status, 400);
    const hugeNote = await decide(first, {
      action: "reject",
      _csrf: reviewer.csrf,
      note: "x".repeat(100_000),
    });
    assertEquals(hugeNote.status, 400);
    const noNote = await decide(first, { action: "reject", _csrf: reviewer.csrf });
    assertEquals(noNote.status, 400);
    assertMatch(noNote.text, /Un rejet demande une note/);
    const still = await gw.admin("GET", `/admin/api/review/${first}`);
    assertEquals([still.json.data.item.status, still.json.data.decisions], ["PENDING_REVIEW", []]);

    const approved = await decide(first, { action: "approve", _csrf: reviewer.csrf, note: "ok" });
    assertEquals([approved.status, approved.headers.get("location")], [
      303,
      `/admin/items/${first}?lang=fr&done=decided`,
    ]);
    const rejected = await decide(second, {
      action: "reject",
      _csrf: reviewer.csrf,
      note: "adresse inconnue",
    });
    assertEquals(rejected.status, 303);
    const after = await gw.request("GET", `/admin/items/${second}`, { headers: { cookie: reviewer.cookie } });
    assertMatch(after.text, /REJECTED/);
    assertMatch(after.text, /withdrawal\.reject/);
    assertMatch(after.text, /adresse inconnue/);
    assertEquals((await gw.admin("GET", `/admin/api/review/${first}`)).json.data.item.status, "APPROVED");

    // A viewer reads and never sees the buttons; a form posted anyway is refused.
    const third = await withdraw();
    const viewer = await pageSignIn(gw, "viewer");
    const viewed = await gw.request("GET", `/admin/items/${third}`, { headers: { cookie: viewer.cookie } });
    assert(!viewed.text.includes('value="approve"'));
    const byViewer = await gw.request("POST", `/admin/items/${third}/decide`, {
      headers: { ...FORM, cookie: viewer.cookie },
      rawBody: new URLSearchParams({ action: "approve", _csrf: viewer.csrf }).toString(),
    });
    assertEquals(byViewer.status, 403);
    const found = await gw.request("GET", `/admin/search?q=${third}&lang=en`, {
      headers: { cookie: viewer.cookie },
    });
    assertMatch(found.text, /Found by id/);
    const signedOut = await gw.request("POST", "/admin/sign-out", {
      headers: { ...FORM, cookie: viewer.cookie },
      rawBody: `_csrf=${viewer.csrf}`,
    });
    assertEquals(signedOut.status, 303);
    const gone = await gw.request("GET", "/admin/queue", { headers: { cookie: viewer.cookie } });
    assertEquals(gone.status, 303);
  }, { env: OPERATOR_TEST_ENV })();
});
