// Going live through KYB over HTTP: a new merchant is refused live money (KYB_REQUIRED) while the sandbox
// works; it submits details and documents judged by their bytes; an operator asks a question in a thread,
// the merchant answers, the operator resolves it and approves; the agreement is signed; live money moves.
// Every step a merchant's receiver hears arrives as a signed webhook.
import { Image } from "imagescript";
import { deliverWebhook } from "../../domain/webhooks/delivery.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";

const MAX = 65_536;

function pdf(extra = ""): Uint8Array {
  return new TextEncoder().encode(
    `%PDF-1.4\n1 0 obj << /Type /Catalog ${extra} >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`,
  );
}

async function upload(
  gw: TestGateway,
  key: string,
  bytes: Uint8Array,
  name: string,
  type: string,
  kind = "OTHER",
) {
  const form = new FormData();
  form.append("kind", kind);
  form.append("file", new File([bytes as Uint8Array<ArrayBuffer>], name, { type }));
  const res = await gw.app.request("/v1/merchant/kyb/documents", {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const BUSINESS = {
  legalName: "Boutique Ouaga SARL",
  registrationNumber: "BF-OUA-2024-B-1234",
  country: "BF",
  address: "Avenue Kwame Nkrumah, Ouagadougou",
  representativeName: "Awa Ouedraogo",
  contactEmail: "awa@boutique.example",
};

function startReceiver() {
  const received: Array<{ signature: string | null; body: string }> = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    received.push({ signature: req.headers.get("service-signature"), body: await req.text() });
    return new Response("ok");
  });
  return { url: `http://127.0.0.1:${server.addr.port}/hooks`, received, close: () => server.shutdown() };
}

async function hmacHex(secret: string, message: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  return Array.from(
    new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(message))),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

Deno.test("KYB: documents by their bytes, threads, approval, agreement, then live money", async (t) => {
  const gw = await startTestGateway({ env: { KYB_MAX_DOCUMENT_BYTES: String(MAX) } });
  const receiver = startReceiver();
  try {
    const m = await gw.createMerchant("Boutique Ouaga", "PENDING");
    const other = await gw.createMerchant("Other Shop", "PENDING");
    const key = m.keys.liveSecret;
    const hook = await gw.request("POST", "/v1/webhooks/endpoints", {
      key,
      body: {
        url: receiver.url,
        events: [
          "kyb.approved",
          "kyb.rejected",
          "kyb.thread.created",
          "kyb.thread.replied",
          "kyb.thread.resolved",
          "kyb.thread.dismissed",
          "agreement.resigned",
        ],
      },
    });
    assertEquals(hook.status, 201);
    const secret: string = hook.json.data.secret;

    await t.step(
      "a new merchant: live pay-ins KYB_REQUIRED, the sandbox works from the first minute",
      async () => {
        const live = await gw.request("POST", "/v1/payments", { key, body: { amount: "10" } });
        assertEquals(live.status, 403);
        assertEquals([live.json.error.code, live.json.error.cause], ["KYB_REQUIRED", "KYB_NOT_APPROVED"]);
        const sandbox = await gw.request("POST", "/v1/payments?sandbox=true", {
          key: m.keys.testSecret,
          body: { amount: "10" },
        });
        assertEquals(sandbox.status, 201);
      },
    );

    await t.step("details saved; submitting without a document names what is missing", async () => {
      const empty = await gw.request("POST", "/v1/merchant/kyb/submit", { key: other.keys.liveSecret });
      assertEquals(empty.json.error.code, "INVALID_STATE");
      const saved = await gw.request("PUT", "/v1/merchant/kyb", { key, body: { business: BUSINESS } });
      assertEquals(saved.status, 200);
      assertEquals(saved.json.data.status, "DRAFT");
      const early = await gw.request("POST", "/v1/merchant/kyb/submit", { key });
      assertEquals(early.status, 400);
      assert(JSON.stringify(early.json.error.details).includes("documents"));
      const bad = await gw.request("PUT", "/v1/merchant/kyb", {
        key,
        body: { business: { ...BUSINESS, country: "Burkina" } },
      });
      assertEquals(bad.json.error.code, "VALIDATION_ERROR");
    });

    let pdfId = "";
    await t.step("documents are judged by their bytes, never by their name or Content-Type", async () => {
      const good = await upload(
        gw,
        key,
        pdf(),
        "registre.pdf",
        "application/pdf",
        "REGISTRATION_CERTIFICATE",
      );
      assertEquals(good.status, 201);
      assertEquals([good.json.data.contentType, good.json.data.kind], [
        "application/pdf",
        "REGISTRATION_CERTIFICATE",
      ]);
      pdfId = good.json.data.id;
      // A PNG named .pdf and sent as application/pdf is stored as the PNG it is.
      const img = new Image(4, 4);
      img.fill(0x336699ff);
      const png = await img.encode();
      const asPng = await upload(gw, key, png, "passport.pdf", "application/pdf", "REPRESENTATIVE_ID");
      assertEquals(asPng.status, 201);
      assertEquals(asPng.json.data.contentType, "image/png");
      // A Windows executable named .pdf: refused.
      const exe = new Uint8Array(512);
      exe.set(new TextEncoder().encode("MZ\x90\x00"));
      const refusedExe = await upload(gw, key, exe, "statuts.pdf", "application/pdf");
      assertEquals([refusedExe.status, refusedExe.json.error.code], [400, "VALIDATION_ERROR"]);
      // A PDF that runs JavaScript when opened, even with its name escaped: refused.
      for (
        const extra of ["/OpenAction << /S /JavaScript /JS (app.alert(1)) >>", "/AA << /S /J#61vaScript >>"]
      ) {
        const active = await upload(gw, key, pdf(extra), "a.pdf", "application/pdf");
        assertEquals(active.json.error.code, "VALIDATION_ERROR");
      }
      // Truncated PDF (no %%EOF), empty file, an HTML page, and one byte over the size limit.
      const truncated = pdf().subarray(0, 30);
      const oversized = new Uint8Array(MAX + 1);
      oversized.set(pdf());
      oversized.set(new TextEncoder().encode("%%EOF"), MAX - 10);
      for (
        const bytes of [truncated, new Uint8Array(0), new TextEncoder().encode("<html>hi</html>"), oversized]
      ) {
        const res = await upload(gw, key, bytes, "x.pdf", "application/pdf");
        assertEquals(res.status, 400);
        assert(["VALIDATION_ERROR", "BAD_REQUEST"].includes(res.json.error.code));
      }
      const list = await gw.request("GET", "/v1/merchant/kyb", { key });
      assertEquals(list.json.data.documents.length, 2);
    });

    await t.step("submitted: the operator queue counts it; edits wait for a decision", async () => {
      const sub = await gw.request("POST", "/v1/merchant/kyb/submit", { key });
      assertEquals(sub.json.data.status, "SUBMITTED");
      const again = await gw.request("POST", "/v1/merchant/kyb/submit", { key });
      assertEquals(again.json.error.code, "INVALID_STATE");
      const edit = await gw.request("PUT", "/v1/merchant/kyb", { key, body: { business: BUSINESS } });
      assertEquals(edit.json.error.code, "INVALID_STATE");
      const late = await upload(gw, key, pdf(), "late.pdf", "application/pdf");
      assertEquals(late.json.error.code, "INVALID_STATE");
      const queue = await gw.admin("GET", "/admin/api/queue");
      assertEquals(queue.json.data.counts.kybInReview, 1);
      const reviews = await gw.admin("GET", "/admin/api/kyb");
      assertEquals(reviews.json.data.map((r: { merchantId: string }) => r.merchantId), [m.merchantId]);
      const doc = await gw.app.request(`/admin/api/kyb/${m.merchantId}/documents/${pdfId}`, {
        headers: { authorization: `Bearer ${gw.deps.config.adminToken}` },
      });
      assertEquals(doc.status, 200);
      assertEquals(new Uint8Array(await doc.arrayBuffer()), pdf());
      assert(doc.headers.get("content-disposition")!.startsWith("attachment"));
      // The document under another merchant's id is not found.
      const foreign = await gw.admin("GET", `/admin/api/kyb/${other.merchantId}/documents/${pdfId}`);
      assertEquals(foreign.status, 404);
    });

    await t.step("a thread: the operator asks, the merchant answers, the operator resolves", async () => {
      const asked = await gw.admin("POST", `/admin/api/kyb/${m.merchantId}/threads`, {
        message: "Please send the 2025 tax certificate.",
      });
      assertEquals(asked.status, 201);
      const threadId = asked.json.data.id;
      const path = `/v1/merchant/kyb/threads/${threadId}/replies`;
      const foreign = await gw.request("POST", path, {
        key: other.keys.liveSecret,
        body: { message: "me?" },
      });
      assertEquals(foreign.status, 404);
      for (const message of ["", "x".repeat(5000), "a\u0000b", 42]) {
        const bad = await gw.request("POST", path, { key, body: { message } });
        assertEquals(bad.status, 400, JSON.stringify(message).slice(0, 20));
      }
      const answered = await gw.request("POST", path, { key, body: { message: "Attached tomorrow." } });
      assertEquals(answered.status, 201);
      assertEquals(answered.json.data.messages.map((x: { author: string }) => x.author), [
        "ADMIN",
        "MERCHANT",
      ]);
      const resolved = await gw.admin("POST", `/admin/api/kyb/threads/${threadId}/resolve`);
      assertEquals(resolved.json.data.status, "RESOLVED");
      const closed = await gw.request("POST", path, { key, body: { message: "one more" } });
      assertEquals(closed.json.error.code, "INVALID_STATE");
      const twice = await gw.admin("POST", `/admin/api/kyb/threads/${threadId}/dismiss`);
      assertEquals(twice.json.error.code, "INVALID_STATE");
      const second = await gw.admin("POST", `/admin/api/kyb/${m.merchantId}/threads`, { message: "Ignore." });
      const dismissed = await gw.admin("POST", `/admin/api/kyb/threads/${second.json.data.id}/dismiss`);
      assertEquals(dismissed.json.data.status, "DISMISSED");
    });

    await t.step("approved (a rejection needs a note); live money then waits for the agreement", async () => {
      const noNote = await gw.admin("POST", `/admin/api/kyb/${m.merchantId}/reject`, {});
      assertEquals(noNote.json.error.code, "REASON_NOTE_REQUIRED");
      const draft = await gw.admin("POST", `/admin/api/kyb/${other.merchantId}/approve`, {});
      assertEquals(draft.json.error.code, "INVALID_STATE");
      const approved = await gw.admin("POST", `/admin/api/kyb/${m.merchantId}/approve`, {
        note: "documents match",
      });
      assertEquals(approved.json.data.status, "APPROVED");
      const live = await gw.request("POST", "/v1/payments", { key, body: { amount: "10" } });
      assertEquals(live.json.error.code, "KYB_REQUIRED");
      assertEquals(live.json.error.cause, "AGREEMENT_NOT_SIGNED");
      const audit = await gw.db.query<{ action: string }>(
        "SELECT action FROM audit_records WHERE action LIKE 'kyb.%' ORDER BY seq",
      );
      assertEquals(audit.map((a) => a.action), [
        "kyb.thread.create",
        "kyb.thread.resolve",
        "kyb.thread.create",
        "kyb.thread.dismiss",
        "kyb.approve",
      ]);
    });

    await t.step("the agreement: a stale hash is CONFLICT; signed, live pay-ins are accepted", async () => {
      const shown = await gw.request("GET", "/v1/merchant/agreement", { key });
      assertEquals(shown.json.data.state, "NOT_SIGNED");
      const { version, sha256 } = shown.json.data.current;
      const wrong = await gw.request("POST", "/v1/merchant/agreement/sign", {
        key,
        body: { version, sha256: "0".repeat(64), signedBy: "Awa Ouedraogo, gérante" },
      });
      assertEquals(wrong.json.error.code, "CONFLICT");
      const signed = await gw.request("POST", "/v1/merchant/agreement/sign", {
        key,
        body: { version, sha256, signedBy: "Awa Ouedraogo, gérante" },
      });
      assertEquals(signed.json.data.state, "SIGNED");
      assertEquals(signed.json.data.signatures[0].sha256, sha256);
      assert(signed.json.data.signatures[0].signedFrom.length > 0);
      const live = await gw.request("POST", "/v1/payments", { key, body: { amount: "10" } });
      assertEquals(live.status, 201);
    });

    await t.step("the receiver got each step as a signed webhook, replies naming their author", async () => {
      const deliveries = await gw.db.query<{ id: string }>(
        "SELECT d.id FROM webhook_deliveries d ORDER BY d.id",
      );
      for (const d of deliveries) await deliverWebhook(gw.deps, d.id);
      const events = [];
      for (const r of receiver.received) {
        const [, ts, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(r.signature ?? "")!;
        assertEquals(await hmacHex(secret, `${ts}.${r.body}`), v1);
        events.push(JSON.parse(r.body));
      }
      assertEquals(events.map((e) => e.event), [
        "kyb.thread.created",
        "kyb.thread.replied",
        "kyb.thread.resolved",
        "kyb.thread.created",
        "kyb.thread.dismissed",
        "kyb.approved",
      ]);
      assertEquals(events[1].data.author, "MERCHANT");
      assertEquals(events[5].data.kybStatus, "APPROVED");
    });

    await t.step(
      "50 concurrent submissions: one SUBMITTED, the rest INVALID_STATE, never a 5xx",
      async () => {
        const third = await gw.createMerchant("Concurrent Shop", "PENDING");
        const k = third.keys.liveSecret;
        await gw.request("PUT", "/v1/merchant/kyb", { key: k, body: { business: BUSINESS } });
        assertEquals((await upload(gw, k, pdf(), "r.pdf", "application/pdf")).status, 201);
        const answers = await Promise.all(
          Array.from({ length: 50 }, () => gw.request("POST", "/v1/merchant/kyb/submit", { key: k })),
        );
        assertEquals(answers.filter((a) => a.status === 200).length, 1);
        assert(answers.filter((a) => a.status !== 200).every((a) => a.json.error.code === "INVALID_STATE"));
        const approvals = await Promise.all(
          Array.from(
            { length: 20 },
            () => gw.admin("POST", `/admin/api/kyb/${third.merchantId}/approve`, {}),
          ),
        );
        assertEquals(
          approvals.filter((a) => a.status === 200).length,
          1,
        );
        const approved = await gw.db.query(
          "SELECT id FROM events WHERE merchant_id = $1 AND type = 'kyb.approved'",
          [
            third.merchantId,
          ],
        );
        assertEquals(approved.length, 1, "approved once, told once");
      },
    );
  } finally {
    await receiver.close();
    await gw.close();
  }
  // Every webhook body sent was checked against the served document's `webhooks` section on close.
  assertEquals(gw.contractViolations, []);
});
