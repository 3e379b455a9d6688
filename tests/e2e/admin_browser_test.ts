// The operator page in a real (headless) Chromium against the real server and its devnet: an admin signs
// in with password and TOTP, finds a payout by its externalRef, approves a withdrawal that then confirms on
// the devnet, rejects one with a note, and gives a large payout its first approval, which a reviewer on a
// phone completes (four eyes). No request leaves the gateway, no console error (a CSP violation would be
// one), no horizontal scroll at 360 px. Screenshots in tests/e2e/screenshots/ (docs/admin-*.png are copies).
import { totpCode } from "../../domain/operators/totp.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { hasChromium, launchBrowser, phoneContext, watchPage } from "./browser.ts";
import { approvedMerchant, jsonClient, startGateway, until } from "./process.ts";

const ADMIN_TOKEN = "e2e-admin-token-0123456789";
const SHOTS = new URL("./screenshots/", import.meta.url).pathname;
const DEST = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";

Deno.test({
  name: "the operator page in Chromium: sign-in with TOTP, search, approve, reject, four eyes on a phone",
  ignore: !hasChromium(),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "gateway-e2e-admin-" });
    const gw = await startGateway({
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      DEVNET_BLOCK_MS: "300",
      OPERATOR_SCRYPT_LOG_N: "12",
    });
    const { call, admin } = jsonClient(gw.url, ADMIN_TOKEN);
    const browser = await launchBrowser();
    await Deno.mkdir(SHOTS, { recursive: true });
    try {
      // The merchant's side: 60,101.5 USDT paid in on the devnet, a whitelisted recipient.
      const { key } = await approvedMerchant(gw.url, ADMIN_TOKEN);
      const api = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
        call(method, path, { "x-api-key": key, ...extra }, body);
      const idem = () => ({ "idempotency-key": crypto.randomUUID() });
      const payin = await api("POST", "/v1/payments", { amount: "60100" });
      await fetch(`${gw.url}/devnet/control/transfer`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ to: payin.json.data.address, amount: "60101.5" }),
      });
      // Polled under the key's read limit (100 a minute); a refusal (429, no data) is "not yet".
      const pause = () => new Promise((r) => setTimeout(r, 600));
      await until("pay-in confirmed", async () => {
        const p = await api("GET", `/v1/payments/${payin.json.data.transactionId}`);
        if (p.json.data?.status === "CONFIRMED") return true;
        await pause();
      }, 90_000);
      assertEquals(
        (await api("POST", "/v1/wallets/whitelist", {
          address: DEST,
          label: "Supplier",
          usageContexts: ["PAYOUT", "WITHDRAWAL"],
        })).status,
        201,
      );
      // Spendable once solidified (19 blocks): the merchant asks the estimate once a second until then, as
      // a merchant would. Asking the payout itself every 100 ms spent its limit of 10 a minute in a second
      // and, when the window turned before the credit was spendable, the next minute's too (CI timed out).
      await until("payout affordable", async () => {
        const estimate = await api("POST", "/v1/payout/estimate", { amount: "10", destinationAddress: DEST });
        if (estimate.json.data?.sufficient) return true;
        await new Promise((r) => setTimeout(r, 1000));
      }, 60_000);
      const accepted = await api("POST", "/v1/payout", {
        amount: "10",
        destinationAddress: DEST,
        externalRef: "supplier-7",
      }, idem());
      assertEquals(accepted.status, 201, JSON.stringify(accepted.json));
      const payout = accepted.json.data.transactionId as string;
      const withdraw = async (amount: string) =>
        (await api("POST", "/v1/withdrawals", { amount }, idem())).json.data.id as string;
      const toApprove = await withdraw("25");
      const toReject = await withdraw("15");
      const large =
        (await api("POST", "/v1/payout", { amount: "50001", destinationAddress: DEST }, idem())).json.data;
      assertEquals(large.status, "PENDING");

      const makeOperator = async (email: string, role: string) =>
        (await admin("POST", "/admin/api/operators", { email, role })).json.data;
      const awa = await makeOperator("awa@example.com", "admin");
      const moussa = await makeOperator("moussa@example.com", "reviewer");
      const origin = new URL(gw.url).origin;

      // An admin at a laptop, in French.
      const laptop = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "fr-FR" });
      const page = await laptop.newPage();
      const watched = watchPage(page, [origin]);
      await page.goto(`${gw.url}/admin`);
      assertEquals(new URL(page.url()).pathname, "/admin/sign-in");
      await page.fill("#email", awa.email);
      await page.fill("#password", awa.password);
      await page.fill("#code", "000000");
      await page.click("button[type=submit]");
      assertMatch(await page.textContent(".err") ?? "", /Code incorrect/);
      await page.fill("#password", awa.password);
      await page.fill("#code", totpCode(awa.totpSecret, new Date()));
      await page.click("button[type=submit]");
      assertEquals(new URL(page.url()).pathname, "/admin/queue");
      const counts = await page.textContent(".counts") ?? "";
      assertMatch(counts, /2Retraits en revue/);
      assertMatch(counts, /1Paiements au-dessus du seuil/);
      await page.screenshot({ path: `${SHOTS}admin-queue.png`, fullPage: true });

      await page.fill("input[name=q]", "supplier-7");
      await page.click("form.search button");
      assertMatch(
        await page.textContent("main") ?? "",
        new RegExp(`${payout}[\\s\\S]*Trouvé par externalRef`),
      );

      await page.goto(`${gw.url}/admin/items/${toApprove}`);
      await page.fill("#note", "Fournisseur connu");
      await page.click("button[value=approve]");
      assertMatch(await page.textContent(".ok") ?? "", /Décision enregistrée/);
      await page.screenshot({ path: `${SHOTS}admin-item.png`, fullPage: true });
      await page.goto(`${gw.url}/admin/items/${toReject}`);
      await page.click("button[value=reject]");
      assertMatch(await page.textContent(".err") ?? "", /Un rejet demande une note/);
      await page.fill("#note", "Adresse non vérifiée");
      await page.click("button[value=reject]");
      assertMatch(await page.textContent("main") ?? "", /REJECTED[\s\S]*Adresse non vérifiée/);
      await page.goto(`${gw.url}/admin/items/${large.transactionId}`);
      await page.click("button[value=approve]");
      assertMatch(await page.textContent(".ok") ?? "", /second réviseur/);
      await page.click("button[value=approve]");
      assertMatch(await page.textContent(".err") ?? "", /second, different reviewer/);

      // A reviewer on a phone, in English, gives the second approval.
      const phone = await phoneContext(browser, { locale: "en-GB" });
      const small = await phone.newPage();
      const watchedPhone = watchPage(small, [origin]);
      await small.goto(`${gw.url}/admin`);
      await small.fill("#email", moussa.email);
      await small.fill("#password", moussa.password);
      await small.fill("#code", moussa.backupCodes[0]);
      await small.click("button[type=submit]");
      assertEquals(new URL(small.url()).pathname, "/admin/queue");
      assertEquals(
        await small.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth"),
        true,
      );
      await small.goto(`${gw.url}/admin/items/${large.transactionId}`);
      assertMatch(await small.textContent("main") ?? "", /1\/2 awa@example\.com/);
      await small.click("button[value=approve]");
      assertMatch(await small.textContent(".ok") ?? "", /Decision recorded/);
      assertEquals(
        await small.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth"),
        true,
      );
      await small.screenshot({ path: `${SHOTS}admin-item-phone.png`, fullPage: true });

      // The approved withdrawal confirms on the devnet; the trail holds every step and verifies.
      await until("withdrawal confirmed", async () => {
        const w = await api("GET", `/v1/withdrawals/${toApprove}`);
        if (w.json.data?.status === "CONFIRMED") return true;
        await pause();
      }, 120_000);
      // Its story now shows the signed transaction in a block with its confirmations, and the settle journal.
      const confirmedTx = (await api("GET", `/v1/withdrawals/${toApprove}`)).json.data.txHash as string;
      await page.goto(`${gw.url}/admin/items/${toApprove}`);
      const chain = await page.textContent("#chain") ?? "";
      assert(chain.includes(confirmedTx), chain);
      const cells = await page.locator("#chain tbody tr", { hasText: confirmedTx }).locator("td")
        .allTextContents();
      assert(Number(cells[1]) > 0 && Number(cells[2]) >= 1, `block and confirmations: ${cells.join(" | ")}`);
      assertMatch(await page.textContent("#ledger") ?? "", new RegExp(`outbound:${toApprove}:settle`));
      await page.screenshot({ path: `${SHOTS}admin-item-confirmed.png`, fullPage: true });
      const story = (await admin("GET", `/admin/api/review/${large.transactionId}`)).json.data;
      assertEquals(
        story.decisions.map((d: { decision: string; reviewer: string }) => [d.decision, d.reviewer]),
        [
          ["FIRST_APPROVAL", "awa@example.com"],
          ["APPROVE", "moussa@example.com"],
        ],
      );
      const check = (await admin("GET", "/admin/api/audit/verify")).json.data;
      assert(check.ok && check.records >= 8, JSON.stringify(check));
      // The refusals shown on purpose (a wrong code, a rejection without a note, the same approver twice)
      // are answered 4xx, which the console reports; anything else (a CSP violation) is a problem.
      const unexpected = watched.problems.filter((p) => !/status of 40[03] \(/.test(p));
      assertEquals([watched.foreign, unexpected, watched.problems.length], [[], [], 3]);
      assertEquals([watchedPhone.foreign, watchedPhone.problems], [[], []]);
    } finally {
      await browser.close();
      await gw.stop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
