// The console's review screens in a real (headless) Chromium against the real server: a reviewer on a
// phone (360 px, French) follows the queue's count to the refunds awaiting approval, reads one refund's
// story, is refused without a note, approves it with one and sees it sent; then follows the disputes count
// to a dispute with the merchant's evidence and its file, and decides it for the merchant. No horizontal
// scroll, no request leaving the gateway. Screenshots: docs/admin-refunds.png, docs/admin-disputes.png.
import { totpCode } from "../../domain/operators/totp.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { hasChromium, launchBrowser, phoneContext, watchPage } from "./browser.ts";
import { approvedMerchant, jsonClient, startGateway, until } from "./process.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";
const DOCS = new URL("../../docs/", import.meta.url).pathname;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

Deno.test({
  name: "the console's refunds and disputes screens in Chromium on a phone",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-review-" });
    const gw = await startGateway({
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      OPERATOR_SCRYPT_LOG_N: "12",
      SIMULATOR_DELAY_MS: "100",
    });
    const { call, admin } = jsonClient(gw.url, ADMIN_TOKEN);
    const browser = await launchBrowser();
    try {
      const { key } = await approvedMerchant(gw.url, ADMIN_TOKEN);
      const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
        call(method, path, { "x-api-key": key, ...headers }, body);
      // Mobile money pay-ins the simulated phone (OPERATOR_B_BF) approves by itself.
      const paid = async (amount: string, phone: string) => {
        const res = await api("POST", "/v1/payments", {
          amount,
          paymentMethod: "MOBILE_MONEY",
          customerPhone: phone,
        });
        assertEquals(res.status, 201, JSON.stringify(res.json));
        const id = res.json.data.transactionId as string;
        await until(`${id} confirmed`, async () => {
          const got = await api("GET", `/v1/payments/${id}`);
          return got.json.data.status === "CONFIRMED" ? true : undefined;
        });
        return id;
      };
      const forRefund = await paid("8000", "+22670123456");
      const forDispute = await paid("5000", "+22670654321");
      const asked = await api("POST", `/v1/payments/${forRefund}/refunds`, {
        amount: "3000",
        reason: "Commande annulée par la cliente",
      }, { "idempotency-key": crypto.randomUUID() });
      assertEquals([asked.status, asked.json.data.status], [201, "PENDING_APPROVAL"], JSON.stringify(asked));
      const refundId = asked.json.data.refundId as string;
      const opened = await admin("POST", "/admin/api/disputes", {
        transactionId: forDispute,
        reason: "NOT_RECEIVED",
        note: "Plainte reçue par téléphone",
        reviewer: "ops-issa",
      });
      assertEquals(opened.status, 201, JSON.stringify(opened.json));
      const disputeId = opened.json.data.id as string;
      const form = new FormData();
      form.append("text", "Livré le 3 novembre à la cliente, bon de livraison signé joint.");
      form.append("file1", new File([PNG], "bon-de-livraison.png", { type: "image/png" }));
      const evidence = await fetch(`${gw.url}/v1/disputes/${disputeId}/evidence`, {
        method: "POST",
        headers: { "x-api-key": key },
        body: form,
      });
      assertEquals(evidence.status, 200, await evidence.text());

      const awa =
        (await admin("POST", "/admin/api/operators", { email: "awa@example.com", role: "reviewer" }))
          .json.data;
      const origin = new URL(gw.url).origin;
      const noScroll = "document.documentElement.scrollWidth <= window.innerWidth";
      const phone = await phoneContext(browser, { locale: "fr-FR" });
      const page = await phone.newPage();
      const watched = watchPage(page, [origin]);
      await page.goto(`${gw.url}/admin`);
      await page.fill("#email", awa.email);
      await page.fill("#password", awa.password);
      await page.fill("#code", totpCode(awa.totpSecret, new Date()));
      await page.click("button[type=submit]");
      assertEquals(new URL(page.url()).pathname, "/admin/queue");

      await page.click("#count-refunds");
      assertEquals(new URL(page.url()).pathname, "/admin/refunds");
      await page.click(`#refunds >> text=${refundId}`);
      assertEquals(new URL(page.url()).pathname, `/admin/refunds/${refundId}`);
      const story = await page.textContent("main") ?? "";
      for (const expected of [forRefund, "3000 XOF", "MOBILE_MONEY", "Commande annulée par la cliente"]) {
        assert(story.includes(expected), `the story shows ${expected}`);
      }
      assertEquals(await page.evaluate<boolean>(noScroll), true, "no horizontal scroll at 360 px");
      // Without a note the browser's own check stops the form; emptied of `required`, the server refuses.
      await page.locator("#note").evaluate((el) => el.removeAttribute("required"));
      await page.click("#decide button[value=approve]");
      assertMatch(await page.textContent("#answer") ?? "", /REASON_NOTE_REQUIRED/);
      assertEquals(await page.textContent("#refund-status"), "PENDING_APPROVAL");
      await page.fill("#note", "Vérifié avec la boutique : commande annulée");
      await page.click("#decide button[value=approve]");
      assertMatch(await page.textContent("#answer") ?? "", /Décision enregistrée/);
      assertMatch(await page.textContent("#refund-status") ?? "", /APPROVED|PROCESSING|COMPLETED/);
      await until("the refund paid", async () => {
        const got = await api("GET", `/v1/refunds/${refundId}`);
        return got.json.data.status === "COMPLETED" ? true : undefined;
      });
      await page.reload();
      assertEquals(await page.textContent("#refund-status"), "COMPLETED");
      assertMatch(await page.textContent("#ledger") ?? "", new RegExp(`refund:${refundId}:paid`));
      assertMatch(await page.textContent("#trail") ?? "", /refund\.approve[\s\S]*awa@example\.com/);
      await page.screenshot({ path: `${DOCS}admin-refunds.png`, fullPage: true });

      await page.click("header >> text=À traiter");
      await page.click("#count-disputes");
      assertEquals(new URL(page.url()).pathname, "/admin/disputes");
      await page.click(`#disputes >> text=${disputeId}`);
      const dispute = await page.textContent("main") ?? "";
      const held = `${opened.json.data.heldAmount} XOF`;
      for (const expected of [forDispute, "UNDER_REVIEW", held, "Livré le 3 novembre"]) {
        assert(dispute.includes(expected), `the dispute shows ${expected}`);
      }
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.click("#evidence >> text=bon-de-livraison.png"),
      ]);
      assertEquals(download.suggestedFilename(), "bon-de-livraison.png");
      assertEquals(await page.evaluate<boolean>(noScroll), true);
      await page.screenshot({ path: `${DOCS}admin-disputes.png`, fullPage: true });
      await page.fill("#note", "Bon de livraison signé : le marchand a raison");
      await page.click("#decide button[value=resolve]");
      assertMatch(await page.textContent("#answer") ?? "", /Décision enregistrée/);
      assertEquals(await page.textContent("#dispute-status"), "RESOLVED");
      assertEquals((await admin("GET", "/admin/api/audit/verify")).json.data.ok, true);

      // The one refusal shown on purpose (an approval without a note) is a 400 in the console.
      const unexpected = watched.problems.filter((p) => !/status of 400 \(/.test(p));
      assertEquals([watched.foreign, unexpected], [[], []]);
    } finally {
      await browser.close();
      await gw.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
