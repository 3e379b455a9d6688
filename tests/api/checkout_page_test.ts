// The hosted checkout page and its live status, in-process: rendering in French and English, the status
// following a pay-in from AWAITING_PAYMENT through CONFIRMING to CONFIRMED, expiry, unknown ids, what
// must never leak to the customer, and the security headers.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { manualClock } from "../../domain/clock.ts";
import { pickLang } from "../../pages/i18n.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

const units = (usdt: string) => BigInt(Math.round(Number(usdt) * 1e6));
const SECRET_META = "vip-customer-secret-42";
const SECRET_REF = "order-secret-ref-7";

function assertSecurityHeaders(headers: Headers) {
  const csp = headers.get("content-security-policy") ?? "";
  assertMatch(csp, /default-src 'none'/);
  assertMatch(csp, /script-src 'nonce-[A-Za-z0-9+/=]{16,}'/);
  assertMatch(csp, /style-src 'nonce-[A-Za-z0-9+/=]{16,}'/);
  assertMatch(csp, /img-src data:/);
  assertMatch(csp, /connect-src 'self'/);
  assertMatch(csp, /frame-ancestors 'none'/);
  assert(!csp.includes("unsafe-inline"), "no unsafe-inline");
  assertEquals(headers.get("x-content-type-options"), "nosniff");
  assertEquals(headers.get("referrer-policy"), "no-referrer");
  assertEquals(headers.get("x-frame-options"), "DENY");
}

/** Every <script> and <style> carries the nonce of the CSP header, and nothing is loaded from outside. */
function assertSelfContained(html: string, headers: Headers) {
  const nonce = /'nonce-([^']+)'/.exec(headers.get("content-security-policy") ?? "")![1];
  const tags = [...html.matchAll(/<(script|style)\b([^>]*)>/g)];
  assert(tags.length >= 2);
  for (const [, , attrs] of tags) assert(attrs.includes(`nonce="${nonce}"`), `nonce on ${attrs}`);
  assert(!/\s(src|href)="(https?:)?\/\//.test(html.replace(/href="https:\/\/shop\.example\/[^"]*"/g, "")));
  assert(!/<link\b/.test(html), "no external stylesheet");
  assert(!/\sstyle="/.test(html), "no style attributes (CSP would block them)");
  const imgs = [...html.matchAll(/<img\b[^>]*src="([^"]*)"/g)].map((m) => m[1]);
  for (const src of imgs) assertMatch(src, /^data:image\/png;base64,/);
}

Deno.test("pickLang: ?lang wins, then Accept-Language by q, French by default", () => {
  assertEquals(pickLang(undefined, undefined), "fr");
  assertEquals(pickLang("en-US,en;q=0.9", undefined), "en");
  assertEquals(pickLang("en-US,en;q=0.9", "fr"), "fr");
  assertEquals(pickLang("fr-BF", "en"), "en");
  assertEquals(pickLang("de, en;q=0.5", null), "en");
  assertEquals(pickLang("de", null), "fr");
  assertEquals(pickLang("fr;q=0.4, en;q=0.8", null), "en");
  assertEquals(pickLang("en;q=0, fr", null), "fr");
  assertEquals(pickLang("en", "xx"), "en");
});

Deno.test("checkout page and live status", async (t) => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock });
  const m = await gw.createMerchant("Boutique Ouaga");
  const key = m.keys.liveSecret;
  const scan = () => {
    clock.advance(10);
    return scanChain(gw.deps);
  };
  const create = async (body: Record<string, unknown>) => {
    clock.advance(10);
    const res = await gw.request("POST", "/v1/payments", { key, body });
    assertEquals(res.status, 201, res.text);
    return res.json.data;
  };
  const page = (id: string, headers: Record<string, string> = {}, query = "") =>
    gw.request("GET", `/checkout/${id}${query}`, { headers });
  const status = (id: string) => gw.request("GET", `/checkout/${id}/status`);
  await scan(); // the scanner starts following at the head

  try {
    const p = await create({
      amount: "10",
      successUrl: "https://shop.example/merci?order=1",
      cancelUrl: "https://shop.example/panier",
      externalRef: SECRET_REF,
      metadata: { note: SECRET_META },
    });

    await t.step(
      "a fresh pay-in renders in French by default: amount, network, address, QR, countdown",
      async () => {
        const res = await page(p.transactionId);
        assertEquals(res.status, 200);
        assertMatch(res.headers.get("content-type")!, /^text\/html/);
        assertEquals(res.headers.get("content-language"), "fr");
        assertEquals(res.headers.get("cache-control"), "no-store");
        const html = res.text;
        assertMatch(html, /^<!doctype html><html lang="fr">/);
        assertMatch(html, /Envoyez exactement/);
        assertMatch(html, /<span id="amt">11.50<\/span> <small>USDT<\/small>/);
        assertMatch(html, /USDT TRC20 \(TRON\)/);
        assert(html.includes(`<p class="adr" id="adr">${p.address}</p>`));
        assert(html.includes(`src="${p.qrCodeUrl}"`), "the same QR PNG data URL as the creation answer");
        assertMatch(html, /<b data-cd>(29:59|30:00)<\/b>/);
        assertMatch(html, /data-copy="amt"/);
        assertMatch(html, /data-copy="adr"/);
        assertMatch(html, /En attente du paiement/);
        assertMatch(html, /<noscript><meta http-equiv="refresh" content="15"\/><\/noscript>/);
        assert(html.includes(`data-status="/checkout/${p.transactionId}/status"`));
        assertMatch(html, /<a href="\?lang=en" hreflang="en" lang="en">English<\/a>/);
        // Only the waiting view is visible; the others are rendered hidden for the script to show.
        assertMatch(html, /<div data-phase="waiting">/);
        assertMatch(html, /<div data-phase="paid" class="done" hidden>/);
        assertSecurityHeaders(res.headers);
        assertSelfContained(html, res.headers);
      },
    );

    await t.step(
      "English with Accept-Language: en-US or ?lang=en; ?lang=fr overrides the header",
      async () => {
        const byHeader = await page(p.transactionId, { "accept-language": "en-US,en;q=0.9" });
        assertEquals(byHeader.headers.get("content-language"), "en");
        assertMatch(byHeader.text, /<html lang="en">/);
        assertMatch(byHeader.text, /Send exactly/);
        assertMatch(byHeader.text, /Waiting for payment/);
        assertMatch(byHeader.text, /<a href="\?lang=fr" hreflang="fr" lang="fr">Français<\/a>/);
        const byQuery = await page(p.transactionId, {}, "?lang=en");
        assertMatch(byQuery.text, /Send exactly/);
        const forced = await page(p.transactionId, { "accept-language": "en-US" }, "?lang=fr");
        assertMatch(forced.text, /Envoyez exactement/);
      },
    );

    await t.step(
      "the status JSON follows the pay-in: waiting, confirming 1..4 / 5, then confirmed",
      async () => {
        let s = await status(p.transactionId);
        assertEquals(s.status, 200);
        assertEquals(s.headers.get("cache-control"), "no-store");
        assertEquals(s.json, {
          status: "AWAITING_PAYMENT",
          phase: "waiting",
          final: false,
          confirmations: 0,
          required: 5,
          amountReceived: "0.000000",
          secondsLeft: s.json.secondsLeft,
        });
        assert(s.json.secondsLeft > 1790 && s.json.secondsLeft <= 1800);

        gw.devnet.transferUsdt(p.address, units("11.5"));
        gw.devnet.mine(1);
        await scan();
        s = await status(p.transactionId);
        assertEquals([s.json.status, s.json.phase, s.json.confirmations, s.json.amountReceived], [
          "CONFIRMING",
          "confirming",
          1,
          "11.500000",
        ]);
        for (const expected of [2, 3, 4]) {
          gw.devnet.mine(1);
          await scan();
          s = await status(p.transactionId);
          assertEquals([s.json.status, s.json.confirmations], ["CONFIRMING", expected]);
        }
        const confirming = await page(p.transactionId);
        assertMatch(confirming.text, /<div data-phase="confirming" class="st good">/);
        assertMatch(confirming.text, /confirmation : <b data-conf>4<\/b> \/ <b data-req>5<\/b>/);
        assertMatch(confirming.text, /<progress data-conf max="5" value="4">/);

        gw.devnet.mine(1);
        await scan();
        s = await status(p.transactionId);
        assertEquals([s.json.status, s.json.phase, s.json.final, s.json.confirmations], [
          "CONFIRMED",
          "paid",
          true,
          5,
        ]);
      },
    );

    await t.step("the paid page links back to successUrl and stops refreshing itself", async () => {
      const res = await page(p.transactionId);
      const html = res.text;
      assertMatch(html, /<div data-phase="paid" class="done">/);
      assertMatch(html, /Paiement reçu/);
      assert(html.includes(`<a class="btn" id="succ" href="https://shop.example/merci?order=1">`));
      assert(html.includes(`content="10;url=https://shop.example/merci?order=1"`), "no-script redirect");
      assert(!html.includes(`content="15"`), "a final page does not reload");
      assertMatch(html, /data-final="1"/);
    });

    await t.step("nothing merchant-internal leaks into the page or the JSON", async () => {
      for (const lang of ["fr", "en"]) {
        const html = (await page(p.transactionId, {}, `?lang=${lang}`)).text;
        for (const secret of [SECRET_META, "serviceFee", "netAmount", "metadata", "externalRef"]) {
          assert(!html.includes(secret), `page leaks ${secret}`);
        }
        // Whom the customer pays and for what (issue 12, item 7): the merchant and the order's reference.
        assertMatch(html, /data-merchant>Boutique Ouaga</);
        assertMatch(html, new RegExp(`data-ref>${SECRET_REF}<`));
      }
      const json = (await status(p.transactionId)).text;
      for (const secret of [SECRET_META, SECRET_REF, "metadata", "externalRef", "Fee", "net"]) {
        assert(!json.includes(secret), `status leaks ${secret}`);
      }
      assertEquals(Object.keys(JSON.parse(json)).sort(), [
        "amountReceived",
        "confirmations",
        "final",
        "phase",
        "required",
        "secondsLeft",
        "status",
      ]);
    });

    await t.step("expiry: the page turns to the expired view with a link to cancelUrl", async () => {
      const e = await create({
        amount: "7",
        expiresInSeconds: 900,
        cancelUrl: "https://shop.example/panier",
      });
      clock.advance(901_000);
      // Before the sweep the status is still AWAITING_PAYMENT but the customer already sees "expired".
      let s = await status(e.transactionId);
      assertEquals([s.json.status, s.json.phase, s.json.secondsLeft, s.json.final], [
        "AWAITING_PAYMENT",
        "expired",
        0,
        false,
      ]);
      await scan();
      s = await status(e.transactionId);
      assertEquals([s.json.status, s.json.phase, s.json.final], ["EXPIRED", "expired", true]);
      const html = (await page(e.transactionId)).text;
      assertMatch(html, /<div data-phase="expired" class="done">/);
      assertMatch(html, /Délai dépassé/);
      assert(html.includes(`<a class="btn" href="https://shop.example/panier">Retour au marchand</a>`));
      assertMatch(html, /<b data-cd>00:00<\/b>/);
      const en = (await page(e.transactionId, { "accept-language": "en" })).text;
      assertMatch(en, /Time is up/);
      clock.advance(-901_000); // keep the gateway's clock beside the devnet's real-time blocks
    });

    await t.step("underpaid and overpaid get their own wording", async () => {
      const under = await create({ amount: "20", cancelUrl: "https://shop.example/panier" });
      const over = await create({ amount: "20", successUrl: "https://shop.example/merci" });
      gw.devnet.transferUsdt(under.address, units("15"));
      gw.devnet.transferUsdt(over.address, units("25"));
      gw.devnet.mine(5);
      await scan();
      const u = await page(under.transactionId);
      assertMatch(u.text, /<div data-phase="underpaid" class="done">/);
      assertMatch(u.text, /Montant insuffisant/);
      assertMatch(u.text, /Reçu : <b data-recv>15.00<\/b> \/ 21.50 USDT/);
      const o = await page(over.transactionId, { "accept-language": "en" });
      assertMatch(o.text, /<div data-phase="overpaid" class="done">/);
      assertMatch(o.text, /Amount too high/);
      assertEquals((await status(over.transactionId)).json.phase, "overpaid");
    });

    await t.step("a sandbox pay-in says so; a simulated confirmation shows the paid view", async () => {
      clock.advance(10);
      const res = await gw.request("POST", "/v1/payments?sandbox=true", {
        key: m.keys.testSecret,
        body: { amount: "10" },
      });
      const sbx = res.json.data;
      assertMatch((await page(sbx.transactionId)).text, /<p class="sbx">Mode test : aucun vrai fonds<\/p>/);
      assert(!(await page(p.transactionId)).text.includes(`class="sbx"`), "live pay-ins have no banner");
      await gw.request("POST", `/v1/sandbox/payments/${sbx.transactionId}/simulate`, {
        key: m.keys.testSecret,
      });
      const s = await status(sbx.transactionId);
      assertEquals([s.json.phase, s.json.final], ["paid", true]);
      const html = (await page(sbx.transactionId, { "accept-language": "en" })).text;
      assertMatch(html, /<div data-phase="paid" class="done">/);
      assert(!html.includes(`id="succ"`), "no successUrl, no button back");
    });

    await t.step("unknown ids: a friendly HTML 404 and a JSON 404", async () => {
      for (const id of ["pay_0000000000000000000000000z", "nope", "pay_<script>"]) {
        const res = await page(encodeURIComponent(id));
        assertEquals(res.status, 404);
        assertMatch(res.headers.get("content-type")!, /^text\/html/);
        assertMatch(res.text, /Paiement introuvable/);
        assert(!res.text.includes("<script>"));
        assertSecurityHeaders(res.headers);
        const s = await status(encodeURIComponent(id));
        assertEquals(s.status, 404);
        assertEquals(s.json.error.code, "NOT_FOUND");
      }
      const en = await page("pay_0000000000000000000000000z", { "accept-language": "en-GB" });
      assertMatch(en.text, /Payment not found/);
    });

    await t.step("the page stays small: under 12 KB without the QR code", async () => {
      const fresh = await create({ amount: "10", successUrl: "https://shop.example/ok" });
      const html = (await page(fresh.transactionId)).text;
      const withoutQr = html.replace(fresh.qrCodeUrl, "");
      const bytes = (s: string) => new TextEncoder().encode(s).length;
      assert(bytes(withoutQr) < 12_000, `${bytes(withoutQr)} bytes without QR`);
      assert(bytes(html) < 20_000, `${bytes(html)} bytes with QR`);
    });
  } finally {
    await gw.close();
  }
});
