// The console's merchant and treasury screens and an item's deeper story, without a browser: list and
// search merchants, one merchant's fees, limits, keys and webhook health; suspend and reactivate with a
// required note (a viewer, a forged form, another site, a NUL note, a wrong state: refused, nothing
// changed), key revocation (another merchant's key refused), each in the audit trail; the treasury; an
// item's ledger entries and webhook deliveries.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import { creditUsdt, idem, randomTronAddress, whitelist } from "../money_out_helpers.ts";
import { cookieOf, newOperator, OPERATOR_TEST_ENV, PASSWORD } from "../operator_helpers.ts";
import { totpCode } from "../../domain/operators/totp.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

async function pageSignIn(gw: TestGateway, role: "viewer" | "reviewer" | "admin") {
  const op = await newOperator(gw, role);
  const res = await gw.request("POST", "/admin/sign-in", {
    headers: FORM,
    rawBody: new URLSearchParams({
      email: op.email,
      password: PASSWORD,
      code: totpCode(op.totpSecret, gw.deps.clock.now()),
    }).toString(),
  });
  assertEquals(res.status, 303, res.text);
  const cookie = cookieOf(res.headers.get("set-cookie"));
  const queue = await gw.request("GET", "/admin/queue", { headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(queue.text)![1];
  const get = (path: string) => gw.request("GET", path, { headers: { cookie } });
  const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    gw.request("POST", path, {
      headers: { ...FORM, cookie, ...headers },
      rawBody: new URLSearchParams(body).toString(),
    });
  return { op, cookie, csrf, get, post };
}

const statusOf = async (gw: TestGateway, id: string) =>
  (await gw.admin("GET", `/admin/api/merchants/${id}`)).json.data.status as string;

Deno.test("console merchants: list, search, settings, keys, webhook health, status with a note, revoke", async () => {
  await withGateway(async (gw) => {
    const shop = await gw.createMerchant("Boutique Sahel");
    const other = await gw.createMerchant("Autre Marchand");
    const endpoint = await gw.request("POST", "/v1/webhooks/endpoints", {
      key: shop.keys.liveSecret,
      body: { url: "https://sahel.example/hooks", events: ["payin.created"] },
    });
    assertEquals(endpoint.status, 201, endpoint.text);
    assertEquals(
      (await gw.request("POST", "/v1/payments", { key: shop.keys.liveSecret, body: { amount: "12" } }))
        .status,
      201,
    );

    const admin = await pageSignIn(gw, "admin");
    const list = await admin.get("/admin/merchants");
    assertEquals(list.status, 200);
    assert(list.text.includes("Boutique Sahel") && list.text.includes("Autre Marchand"));
    assert(!/<script|\son[a-z]+=/i.test(list.text), "no script, no inline handler");
    const searched = await admin.get("/admin/merchants?q=sahel&lang=en");
    assert(searched.text.includes(shop.merchantId) && !searched.text.includes(other.merchantId));
    assertMatch(searched.text, /<html lang="en">/);
    const hostile = await admin.get("/admin/merchants?q=%00%ED%A0%80&status=NOPE");
    assert([200, 400].includes(hostile.status), `${hostile.status}: a clear answer, never a 500`);
    assertEquals((await admin.get("/admin/merchants/mch_nope")).status, 404);

    const detail = await admin.get(`/admin/merchants/${shop.merchantId}`);
    assertEquals(detail.status, 200);
    assertMatch(detail.text, /id="merchant-status">ACTIVE/);
    assertMatch(detail.text, /id="merchant-kyb">APPROVED/);
    assertMatch(detail.text, /Frais/);
    assertMatch(detail.text, /https:\/\/sahel\.example\/hooks/);
    const health = /id="webhook-health">([\s\S]*?)<\/table>/.exec(detail.text)![1];
    // The pay-in's one event is the endpoint's one delivery: pending or done, counted once.
    assertMatch(
      health.replace(/<[^>]+>/g, " "),
      /sahel\.example\/hooks[\s\S]*\b[01]\b[\s\S]*\b0\b[\s\S]*\b[01]\b/,
    );
    assert(new TextEncoder().encode(detail.text).length < 100_000);

    const status = (
      body: Record<string, string>,
      headers: Record<string, string> = {},
      id = shop.merchantId,
    ) => admin.post(`/admin/merchants/${id}/status`, body, headers);
    assertEquals((await status({ status: "SUSPENDED", note: "x" })).status, 403, "no CSRF token");
    assertEquals((await status({ status: "SUSPENDED", note: "x", _csrf: "forged" })).status, 403);
    assertEquals(
      (await status({ status: "SUSPENDED", note: "x", _csrf: admin.csrf }, {
        origin: "https://evil.example",
      }))
        .status,
      403,
    );
    const noNote = await status({ status: "SUSPENDED", _csrf: admin.csrf });
    assertEquals(noNote.status, 400);
    const nulNote = await status({ status: "SUSPENDED", _csrf: admin.csrf, note: "a\u0000b" });
    assertEquals(nulNote.status, 400);
    const hugeNote = await status({ status: "SUSPENDED", _csrf: admin.csrf, note: "x".repeat(100_000) });
    assertEquals(hugeNote.status, 400);
    assertEquals(await statusOf(gw, shop.merchantId), "ACTIVE");

    const viewer = await pageSignIn(gw, "viewer");
    const seen = await viewer.get(`/admin/merchants/${shop.merchantId}`);
    assert(!seen.text.includes('id="status-button"') && !seen.text.includes("/revoke"), "no buttons");
    const byViewer = await viewer.post(`/admin/merchants/${shop.merchantId}/status`, {
      status: "SUSPENDED",
      note: "x",
      _csrf: viewer.csrf,
    });
    assertEquals(byViewer.status, 403);
    assertEquals(await statusOf(gw, shop.merchantId), "ACTIVE");

    const suspended = await status({ status: "SUSPENDED", _csrf: admin.csrf, note: "Fraude signalée" });
    assertEquals([suspended.status, suspended.headers.get("location")], [
      303,
      `/admin/merchants/${shop.merchantId}?lang=fr&done=status`,
    ]);
    assertEquals(await statusOf(gw, shop.merchantId), "SUSPENDED");
    const twice = await status({ status: "SUSPENDED", _csrf: admin.csrf, note: "encore" });
    assertEquals(twice.status, 400);
    assertMatch(twice.text, /Pas possible dans cet état/);
    assertEquals(
      (await gw.request("POST", "/v1/payments", { key: shop.keys.liveSecret, body: { amount: "12" } }))
        .status,
      403,
      "a suspended merchant's key is refused",
    );
    const reactivated = await status({ status: "ACTIVE", _csrf: admin.csrf, note: "Vérifié par téléphone" });
    assertEquals(reactivated.status, 303);
    // 20 concurrent suspensions of another merchant: one happens, the others find it done; one record.
    const racing = await Promise.all(
      Array.from(
        { length: 20 },
        () => status({ status: "SUSPENDED", _csrf: admin.csrf, note: "course" }, {}, other.merchantId),
      ),
    );
    assertEquals(racing.map((r) => r.status).sort(), [303, ...Array(19).fill(400)]);
    const otherTrail = (await gw.admin("GET", `/admin/api/audit?itemId=${other.merchantId}`)).json.data.items;
    assertEquals(otherTrail.filter((r: { action: string }) => r.action === "merchant.suspend").length, 1);
    assertEquals(
      (await status({ status: "ACTIVE", _csrf: admin.csrf, note: "fin de course" }, {}, other.merchantId))
        .status,
      303,
    );
    assertEquals(await statusOf(gw, shop.merchantId), "ACTIVE");

    // Keys: another merchant's key named under this merchant is refused; this merchant's is revoked once.
    const keysOf = async (id: string) =>
      [...(await admin.get(`/admin/merchants/${id}`)).text.matchAll(
        /\/admin\/keys\/(key_[0-9a-z]+)\/revoke/g,
      )]
        .map((m) => m[1]);
    const otherKey = (await keysOf(other.merchantId))[0];
    const crossed = await admin.post(`/admin/keys/${otherKey}/revoke`, {
      merchant: shop.merchantId,
      _csrf: admin.csrf,
    });
    assertEquals(crossed.status, 404);
    assertEquals((await keysOf(other.merchantId)).length, 4);
    const [mine] = await keysOf(shop.merchantId);
    const revoked = await admin.post(`/admin/keys/${mine}/revoke`, {
      merchant: shop.merchantId,
      _csrf: admin.csrf,
    });
    assertEquals(revoked.status, 303);
    assertEquals((await keysOf(shop.merchantId)).length, 3);
    assertMatch((await admin.get(`/admin/merchants/${shop.merchantId}`)).text, /Révoquée/);

    // The same screen for automation: GET /admin/api/merchants/{id}/overview, a viewer and up.
    const overview = await gw.admin("GET", `/admin/api/merchants/${shop.merchantId}/overview`);
    assertEquals(overview.status, 200, overview.text);
    assertEquals(
      [
        overview.json.data.merchant.status,
        overview.json.data.keys.length,
        overview.json.data.webhooks[0].url,
      ],
      ["ACTIVE", 4, "https://sahel.example/hooks"],
    );
    assertEquals(overview.json.data.keys.filter((k: { status: string }) => k.status === "REVOKED").length, 1);
    const asMerchant = await gw.request("GET", `/admin/api/merchants/${shop.merchantId}/overview`, {
      key: shop.keys.liveSecret,
    });
    assert(asMerchant.status === 401 || asMerchant.status === 403, `${asMerchant.status}`);
    assertEquals((await gw.admin("GET", "/admin/api/merchants/mch_nope/overview")).status, 404);
    const trail = (await gw.admin("GET", `/admin/api/audit?itemId=${shop.merchantId}`)).json.data;
    const records = (trail.items ?? trail) as Array<{ action: string; note: string | null }>;
    assertEquals(
      records.filter((r) => r.action.startsWith("merchant.")).map((r) => [r.action, r.note]).slice(-2).sort(),
      [["merchant.reactivate", "Vérifié par téléphone"], ["merchant.suspend", "Fraude signalée"]],
    );
    assertEquals((await gw.admin("GET", "/admin/api/audit/verify")).json.data.ok, true);
  }, { env: OPERATOR_TEST_ENV })();
});

Deno.test("console treasury and an item's story: ledger entries, webhook deliveries, waiting alarms", async () => {
  await withGateway(async (gw) => {
    const m = await gw.createMerchant("Story Shop");
    const endpoint = await gw.request("POST", "/v1/webhooks/endpoints", {
      key: m.keys.liveSecret,
      body: { url: "https://story.example/hooks", events: ["withdrawal.requested"] },
    });
    assertEquals(endpoint.status, 201, endpoint.text);
    await creditUsdt(gw, m.merchantId, false, "500");
    await whitelist(gw, m.keys.liveSecret, randomTronAddress(), ["WITHDRAWAL"]);
    const wd = await gw.request("POST", "/v1/withdrawals", {
      key: m.keys.liveSecret,
      body: { amount: "40" },
      headers: idem(),
    });
    const id = wd.json.data.id as string;
    const viewer = await pageSignIn(gw, "viewer");
    const story = await viewer.get(`/admin/items/${id}?lang=en`);
    assertEquals(story.status, 200);
    const ledger = /id="ledger">([\s\S]*?)id="deliveries"/.exec(story.text)![1];
    assert(ledger.includes(`outbound:${id}:reserve`), "the reserve journal");
    assertMatch(ledger, /-40/);
    const deliveries = /id="deliveries">([\s\S]*?)<\/table>/.exec(story.text)![1];
    assertMatch(deliveries, /withdrawal\.requested/);
    assertMatch(deliveries, /story\.example\/hooks/);

    const treasury = await viewer.get("/admin/treasury?lang=en");
    assertEquals(treasury.status, 200, treasury.text);
    assertMatch(treasury.text, /Hot wallet/);
    assertMatch(treasury.text, /Owed against held/);
    assert(!/<script|\son[a-z]+=/i.test(treasury.text));
    assertEquals((await gw.request("GET", "/admin/treasury")).status, 303, "signed out: to sign-in");
  }, { env: OPERATOR_TEST_ENV })();
});
