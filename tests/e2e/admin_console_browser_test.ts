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
import { CINETPAY_CREDENTIALS, startCinetPaySimulator } from "../aggregators/cinetpay_simulator.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";
const SHOTS = new URL("./screenshots/", import.meta.url).pathname;
const PDF = new TextEncoder().encode(
  "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
);

Deno.test({
  name: "the console's merchant and treasury screens in Chromium, on a laptop and a phone",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-console-" });
    const gw = await startGateway({ DATA_DIR: dataDir, ADMIN_TOKEN, OPERATOR_SCRYPT_LOG_N: "12" }, 120_000);
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

// Issue 22's KYB and held-status screens in Chromium, against the real server with CinetPay's stand-in as
// the live aggregator: two merchants submit their KYB. A reviewer at a laptop (1280 px, French) opens the
// queue's KYB count, asks the first merchant a question, sees its reply, resolves the thread with a note
// and approves. That merchant goes live; CinetPay answers two of its mobile money pay-ins with a status the
// gateway does not know (held). The reviewer settles the first as succeeded; a second reviewer on a phone
// (360 px, English) approves the other merchant's KYB and settles the second pay-in as failed, with no
// horizontal scroll. Screenshots: docs/admin-kyb.png, docs/admin-held.png and their -phone twins.
Deno.test({
  name: "the console's KYB and held-status screens in Chromium, on a laptop and a phone",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-kyb-" });
    let gatewayUrl = "";
    // CinetPay's notifications reach the gateway at its real address (the notify URL names PUBLIC_URL).
    const sim = startCinetPaySimulator(async (url, body, headers) => {
      const u = new URL(url);
      const res = await fetch(`${gatewayUrl}${u.pathname}${u.search}`, { method: "POST", body, headers });
      await res.body?.cancel();
      return res.status;
    });
    const gw = await startGateway({
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      OPERATOR_SCRYPT_LOG_N: "12",
      FIAT_PROVIDER: "cinetpay",
      CINETPAY_API_KEY: CINETPAY_CREDENTIALS.apiKey,
      CINETPAY_SITE_ID: CINETPAY_CREDENTIALS.siteId,
      CINETPAY_SECRET_KEY: CINETPAY_CREDENTIALS.secretKey,
      CINETPAY_TRANSFER_PASSWORD: CINETPAY_CREDENTIALS.transferPassword,
      CINETPAY_API_URL: sim.url,
      CINETPAY_TRANSFER_URL: sim.url,
    }, 120_000); // a fresh embedded database migrates first: slow on a loaded machine
    gatewayUrl = gw.url;
    const { call, admin } = jsonClient(gw.url, ADMIN_TOKEN);
    const browser = await launchBrowser();
    await Deno.mkdir(SHOTS, { recursive: true });
    try {
      const submitKyb = async (name: string, legalName: string) => {
        const shop = (await admin("POST", "/admin/api/merchants", { name, kybStatus: "PENDING" })).json.data;
        const key: string = shop.keys.liveSecret;
        const saved = await call("PUT", "/v1/merchant/kyb", { "x-api-key": key }, {
          business: {
            legalName,
            registrationNumber: "BF-OUA-2024-B-1234",
            country: "BF",
            address: "Avenue Kwame Nkrumah, Ouagadougou",
            representativeName: "Awa Ouedraogo",
            contactEmail: "awa@boutique.example",
          },
        });
        assertEquals(saved.status, 200, JSON.stringify(saved.json));
        const form = new FormData();
        form.append("kind", "REGISTRATION_CERTIFICATE");
        form.append("file", new File([PDF], "registre-commerce.pdf", { type: "application/pdf" }));
        const up = await fetch(`${gw.url}/v1/merchant/kyb/documents`, {
          method: "POST",
          headers: { "x-api-key": key },
          body: form,
        });
        assertEquals(up.status, 201, await up.text());
        assertEquals((await call("POST", "/v1/merchant/kyb/submit", { "x-api-key": key })).status, 200);
        return { id: shop.merchantId as string, key };
      };
      const ouaga = await submitKyb("Boutique Ouaga", "Boutique Ouaga SARL");
      const bobo = await submitKyb("Kiosque Bobo", "Kiosque Bobo SARL");
      const makeOperator = async (email: string) =>
        (await admin("POST", "/admin/api/operators", { email, role: "reviewer" })).json.data;
      const awa = await makeOperator("awa.kyb@example.com");
      const fatou = await makeOperator("fatou.kyb@example.com");
      const origin = new URL(gw.url).origin;
      const noScroll = "document.documentElement.scrollWidth <= window.innerWidth";

      // A reviewer at a laptop, in French: the KYB count, the review, a question answered, the approval.
      const laptop = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "fr-FR" });
      const page = await laptop.newPage();
      const watched = watchPage(page, [origin]);
      await page.goto(`${gw.url}/admin`);
      await page.fill("#email", awa.email);
      await page.fill("#password", awa.password);
      await page.fill("#code", totpCode(awa.totpSecret, new Date()));
      await page.click("button[type=submit]");
      assertMatch(await page.textContent("#count-kyb") ?? "", /Dossiers KYB/);
      assertEquals(await page.locator(".count", { hasText: "Dossiers KYB" }).locator("b").textContent(), "2");
      await page.click("#count-kyb");
      assertEquals(new URL(page.url()).pathname, "/admin/kyb");
      await page.click("#kyb-reviews >> text=Boutique Ouaga");
      assertEquals(new URL(page.url()).pathname, `/admin/kyb/${ouaga.id}`);
      assertEquals(await page.textContent("#kyb-status"), "SUBMITTED");
      assertMatch(await page.textContent("#business") ?? "", /Boutique Ouaga SARL[\s\S]*BF-OUA-2024-B-1234/);
      const docLink = page.locator("#documents a");
      assertMatch(
        await docLink.getAttribute("href") ?? "",
        new RegExp(`^/admin/api/kyb/${ouaga.id}/documents/kyd_`),
      );
      const [download] = await Promise.all([page.waitForEvent("download"), docLink.click()]);
      assertMatch(
        download.suggestedFilename(),
        /^kyd_[0-9a-z]{26}\.pdf$/,
        "an attachment, never shown inline",
      );
      await page.fill("#question", "Merci d'envoyer les statuts signés.");
      await page.click("#ask button");
      assertMatch(await page.textContent(".ok") ?? "", /Question envoyée/);
      const threadId = (await page.locator(".thread").getAttribute("id"))!.replace("thread-", "");
      const replied = await call("POST", `/v1/merchant/kyb/threads/${threadId}/replies`, {
        "x-api-key": ouaga.key,
      }, { message: "Voici les statuts, signés le 3 novembre." });
      assertEquals(replied.status, 201);
      await page.reload();
      assertMatch(await page.textContent(".thread") ?? "", /Marchand[\s\S]*signés le 3 novembre/);
      await page.fill(`#message-${threadId}`, "Statuts reçus et conformes.");
      await page.click(".thread button[value=resolve]");
      assertMatch(await page.textContent(".ok") ?? "", /Question close/);
      assertEquals(await page.textContent(".thread-status"), "RESOLVED");
      await page.fill("#note", "Pièces vérifiées, registre conforme.");
      await page.click("#decide button[value=approve]");
      assertMatch(await page.textContent(".ok") ?? "", /Décision enregistrée/);
      assertEquals(await page.textContent("#kyb-status"), "APPROVED");
      await page.screenshot({ path: `${SHOTS}admin-kyb.png`, fullPage: true });

      // Approved and signed, the merchant takes two live mobile money pay-ins; CinetPay answers a status
      // nobody knows for both: held for an operator, nothing credited.
      await signAgreement(gw.url, ouaga.key);
      const held: string[] = [];
      for (const amount of ["5000", "7000"]) {
        const res = await call("POST", "/v1/payments", { "x-api-key": ouaga.key }, {
          amount,
          paymentMethod: "MOBILE_MONEY",
          customerPhone: "+22670123456",
        });
        assertEquals(res.status, 201, JSON.stringify(res.json));
        const id = res.json.data.transactionId as string;
        sim.planPayin(id, { outcome: "ODD", callbacks: "once" });
        await sim.pay(id);
        held.push(id);
      }
      await until("both pay-ins held", async () => {
        const items = (await admin("GET", "/admin/api/provider-statuses/held")).json.data.items;
        return items.length === 2 ? items : undefined;
      });

      await page.click("header >> text=À traiter");
      assertEquals(await page.locator(".count", { hasText: "agrégateur" }).locator("b").textContent(), "2");
      await page.click("#count-provider-statuses");
      await page.click(`#held >> text=${held[0]}`);
      assertMatch(await page.textContent("#held-status") ?? "", /SUSPENDED/);
      assertEquals(await page.textContent("#subject-status"), "AWAITING_PAYMENT");
      await page.fill("#note", "Back-office CinetPay : paiement accepté le 26/11 à 12:00.");
      await page.click("#decide button[value=SUCCEEDED]");
      assertMatch(await page.textContent(".ok") ?? "", new RegExp(`${held[0]} est maintenant CONFIRMED`));
      await page.screenshot({ path: `${SHOTS}admin-held.png`, fullPage: true });
      assertEquals(
        (await call("GET", `/v1/payments/${held[0]}`, { "x-api-key": ouaga.key })).json.data.status,
        "CONFIRMED",
      );

      // A second reviewer on a phone, in English: the other KYB review and the other held pay-in.
      const phone = await phoneContext(browser, { locale: "en-GB" });
      const small = await phone.newPage();
      const watchedPhone = watchPage(small, [origin]);
      await small.goto(`${gw.url}/admin`);
      await small.fill("#email", fatou.email);
      await small.fill("#password", fatou.password);
      await small.fill("#code", fatou.backupCodes[0]);
      await small.click("button[type=submit]");
      assertEquals(await small.evaluate<boolean>(noScroll), true, "the queue at 360 px");
      await small.click("#count-kyb");
      await small.click("#kyb-reviews >> text=Kiosque Bobo");
      assertEquals(await small.evaluate<boolean>(noScroll), true, "the review at 360 px");
      await small.fill("#note", "Documents checked against the register.");
      await small.click("#decide button[value=approve]");
      assertMatch(await small.textContent(".ok") ?? "", /Decision recorded/);
      assertEquals(await small.textContent("#kyb-status"), "APPROVED");
      await small.screenshot({ path: `${SHOTS}admin-kyb-phone.png`, fullPage: true });
      await small.click("header >> text=To do");
      await small.click("#count-provider-statuses");
      assertEquals(await small.locator("#held tbody tr").count(), 1, "the settled one is gone");
      await small.click(`#held >> text=${held[1]}`);
      assertEquals(await small.evaluate<boolean>(noScroll), true, "the held status at 360 px");
      await small.fill("#note", "CinetPay back office: payment refused by the operator.");
      await small.screenshot({ path: `${SHOTS}admin-held-phone.png`, fullPage: true });
      await small.click("#decide button[value=FAILED]");
      assertMatch(await small.textContent(".ok") ?? "", new RegExp(`${held[1]} is now FAILED`));
      assertEquals(await small.evaluate<boolean>(noScroll), true);

      assertEquals(
        (await call("GET", `/v1/payments/${held[1]}`, { "x-api-key": ouaga.key })).json.data.status,
        "FAILED",
      );
      const merchants = await admin("GET", "/admin/api/merchants?q=Bobo");
      assertEquals(merchants.json.data.items[0].kybStatus, "APPROVED");
      const trail = async (id: string) =>
        ((await admin("GET", `/admin/api/audit?itemId=${id}`)).json.data.items as Array<
          { action: string; actor: { label: string }; note: string | null }
        >).filter((r) => r.action !== "merchant.create").map((r) => [r.action, r.actor.label, r.note]);
      assertEquals(await trail(ouaga.id), [[
        "kyb.approve",
        awa.email,
        "Pièces vérifiées, registre conforme.",
      ]]);
      assertEquals(await trail(bobo.id), [[
        "kyb.approve",
        fatou.email,
        "Documents checked against the register.",
      ]]);
      assertEquals(await trail(held[0]), [[
        "provider_status.resolve",
        awa.email,
        "Back-office CinetPay : paiement accepté le 26/11 à 12:00.",
      ]]);
      assertEquals(await trail(held[1]), [[
        "provider_status.resolve",
        fatou.email,
        "CinetPay back office: payment refused by the operator.",
      ]]);
      assertEquals((await admin("GET", "/admin/api/audit/verify")).json.data.ok, true);
      assertEquals([watched.foreign, watched.problems], [[], []]);
      assertEquals([watchedPhone.foreign, watchedPhone.problems], [[], []]);
    } finally {
      await browser.close();
      await sim.close();
      await gw.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
