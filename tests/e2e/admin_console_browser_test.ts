// The console's merchant and treasury screens in a real (headless) Chromium against the real server and
// its devnet: an admin at a laptop (1280 px, French) finds a merchant by name, reads its fees, keys and
// webhook health (one endpoint a live receiver, one a closed port), suspends it with a note (refused
// without one) and opens the treasury; a second admin on a phone (360 px, English) reactivates it and
// reads the treasury, with no horizontal scroll. No request leaves the gateway, no console error beyond the
// refusal shown on purpose. Screenshots: docs/admin-merchants.png, docs/admin-treasury.png (and phone ones).
import { totpCode } from "../../domain/operators/totp.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { hasChromium, launchBrowser, phoneContext, watchPage } from "./browser.ts";
import { jsonClient, signAgreement, startGateway, until } from "./process.ts";
import { startReceiver } from "./receiver.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";
const SHOTS = new URL("./screenshots/", import.meta.url).pathname;

Deno.test({
  name: "the console's merchant and treasury screens in Chromium, on a laptop and a phone",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-console-" });
    const gw = await startGateway({ DATA_DIR: dataDir, ADMIN_TOKEN, OPERATOR_SCRYPT_LOG_N: "12" });
    const { call, admin } = jsonClient(gw.url, ADMIN_TOKEN);
    const receiver = startReceiver();
    const browser = await launchBrowser();
    await Deno.mkdir(SHOTS, { recursive: true });
    try {
      const shop =
        (await admin("POST", "/admin/api/merchants", { name: "Boutique Ouaga", kybStatus: "APPROVED" }))
          .json.data;
      await admin("POST", "/admin/api/merchants", { name: "Kiosque Bobo", kybStatus: "PENDING" });
      const key: string = shop.keys.liveSecret;
      await signAgreement(gw.url, key);
      const api = (method: string, path: string, body?: unknown) =>
        call(method, path, { "x-api-key": key }, body);
      const live = await api("POST", "/v1/webhooks/endpoints", {
        url: receiver.url,
        events: ["payin.created"],
      });
      receiver.setSecret(live.json.data.secret);
      const closed = await api("POST", "/v1/webhooks/endpoints", {
        url: "http://127.0.0.1:9/hooks",
        events: ["payin.created"],
      });
      assertEquals([live.status, closed.status], [201, 201], JSON.stringify(closed.json));
      const payin = await api("POST", "/v1/payments", { amount: "25", externalRef: "order-1" });
      await receiver.waitFor((w) =>
        w.event === "payin.created" && w.data.transactionId === payin.json.data.transactionId
      );

      const makeOperator = async (email: string) =>
        (await admin("POST", "/admin/api/operators", { email, role: "admin" })).json.data;
      const awa = await makeOperator("awa@example.com");
      const fatou = await makeOperator("fatou@example.com");
      const origin = new URL(gw.url).origin;
      const noScroll = "document.documentElement.scrollWidth <= window.innerWidth";

      // An admin at a laptop, in French.
      const laptop = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "fr-FR" });
      const page = await laptop.newPage();
      const watched = watchPage(page, [origin]);
      await page.goto(`${gw.url}/admin`);
      await page.fill("#email", awa.email);
      await page.fill("#password", awa.password);
      await page.fill("#code", totpCode(awa.totpSecret, new Date()));
      await page.click("button[type=submit]");
      assertEquals(new URL(page.url()).pathname, "/admin/queue");
      await page.click("header >> text=Marchands");
      assertEquals(new URL(page.url()).pathname, "/admin/merchants");
      assertMatch(await page.textContent("#merchants") ?? "", /Kiosque Bobo[\s\S]*Boutique Ouaga/);
      await page.fill("input[name=q]", "ouaga");
      await page.click("form.search button");
      const found = await page.textContent("#merchants") ?? "";
      assert(found.includes("Boutique Ouaga") && !found.includes("Kiosque Bobo"), found);
      await page.click("#merchants >> text=Boutique Ouaga");
      assertEquals(new URL(page.url()).pathname, `/admin/merchants/${shop.merchantId}`);
      assertEquals(await page.textContent("#merchant-status"), "ACTIVE");
      assertEquals(await page.textContent("#merchant-kyb"), "APPROVED");
      assertEquals(await page.locator("#keys tr").count(), 4);
      await until("both deliveries counted", async () => {
        await page.reload();
        const health = await page.textContent("#webhook-health") ?? "";
        return health.includes(receiver.url) && health.includes("127.0.0.1:9") ? health : undefined;
      }, 30_000);
      const liveRow = await page.locator("#webhook-health tr", { hasText: receiver.url }).textContent() ?? "";
      assertMatch(liveRow, /ACTIVE[\s\S]*1\s*0\s*0/, "the receiver's delivery succeeded");

      await page.click("#status-button");
      assertMatch(await page.textContent(".err") ?? "", /note/);
      assertEquals(await page.textContent("#merchant-status"), "ACTIVE");
      await page.fill("#status-note", "Pièces d'identité à revoir");
      await page.click("#status-button");
      assertMatch(await page.textContent(".ok") ?? "", /Statut changé/);
      assertEquals(await page.textContent("#merchant-status"), "SUSPENDED");
      await page.screenshot({ path: `${SHOTS}admin-merchants.png`, fullPage: true });
      assertEquals((await api("GET", "/v1/merchants/wallets")).status, 403, "the suspended merchant's key");

      await page.click("header >> text=Trésorerie");
      assertEquals(new URL(page.url()).pathname, "/admin/treasury");
      assertMatch(await page.textContent("#hot-wallet") ?? "", /Portefeuille chaud[\s\S]*USDT/);
      assertMatch(await page.textContent("#owed") ?? "", /Dû aux marchands/);
      assertMatch(await page.textContent("#alarms") ?? "", /Aucune alarme/);
      await page.screenshot({ path: `${SHOTS}admin-treasury.png`, fullPage: true });

      // A second admin on a phone, in English, reactivates the merchant.
      const phone = await phoneContext(browser, { locale: "en-GB" });
      const small = await phone.newPage();
      const watchedPhone = watchPage(small, [origin]);
      await small.goto(`${gw.url}/admin`);
      await small.fill("#email", fatou.email);
      await small.fill("#password", fatou.password);
      await small.fill("#code", fatou.backupCodes[0]);
      await small.click("button[type=submit]");
      await small.click("header >> text=Merchants");
      assertEquals(await small.evaluate<boolean>(noScroll), true);
      await small.click("#merchants >> text=Boutique Ouaga");
      assertEquals(await small.textContent("#merchant-status"), "SUSPENDED");
      assertEquals(await small.evaluate<boolean>(noScroll), true, "no horizontal scroll at 360 px");
      await small.fill("#status-note", "Documents received");
      await small.click("#status-button");
      assertMatch(await small.textContent(".ok") ?? "", /Status changed/);
      assertEquals(await small.textContent("#merchant-status"), "ACTIVE");
      await small.screenshot({ path: `${SHOTS}admin-merchants-phone.png`, fullPage: true });
      await small.click("header >> text=Treasury");
      assertMatch(await small.textContent("#owed") ?? "", /Owed to merchants/);
      assertEquals(await small.evaluate<boolean>(noScroll), true);
      await small.screenshot({ path: `${SHOTS}admin-treasury-phone.png`, fullPage: true });
      assertEquals((await api("GET", "/v1/merchants/wallets")).status, 200, "reactivated");

      const trail = (await admin("GET", `/admin/api/audit?itemId=${shop.merchantId}`)).json.data
        .items as Array<
          { action: string; actor: { label: string }; note: string | null }
        >;
      assertEquals(
        trail.filter((r) => r.action !== "merchant.create").map((r) => [r.action, r.actor.label, r.note]),
        [
          ["merchant.suspend", "awa@example.com", "Pièces d'identité à revoir"],
          ["merchant.reactivate", "fatou@example.com", "Documents received"],
        ],
      );
      // The one refusal shown on purpose (a status change without a note) is a 400 in the console.
      const unexpected = watched.problems.filter((p) => !/status of 400 \(/.test(p));
      assertEquals([watched.foreign, unexpected], [[], []]);
      assertEquals([watchedPhone.foreign, watchedPhone.problems], [[], []]);
    } finally {
      await browser.close();
      await receiver.stop();
      await gw.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
