// Merchants, keys, authentication and the /v1 conventions, through the whole app in-process.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

Deno.test("merchants, keys and /v1 conventions", async (t) => {
  const gw = await startTestGateway();
  try {
    await t.step("GET /health answers with database and KV status and the GIT_REV header", async () => {
      const res = await gw.request("GET", "/health");
      assertEquals(res.status, 200);
      assertEquals(res.json.status, "ok");
      assertEquals(res.json.database, "ok");
      assertEquals(res.json.kv, "ok");
      assertEquals(res.headers.get("GIT_REV"), "test-rev");
    });

    await t.step("an unknown route is NOT_FOUND in the error envelope", async () => {
      const res = await gw.request("GET", "/v1/nothing-here");
      assertEquals(res.status, 404);
      assertEquals(res.json.success, false);
      assertEquals(res.json.error.code, "NOT_FOUND");
      assertEquals(res.json.statusCode, 404);
      assertEquals(res.headers.get("GIT_REV"), "test-rev");
    });

    let merchant: { merchantId: string; keys: Record<string, string> };
    await t.step("POST /admin/api/merchants creates a merchant with four keys shown once", async () => {
      const res = await gw.admin("POST", "/admin/api/merchants", {
        name: "Boutique Ouaga",
        kybStatus: "APPROVED",
      });
      assertEquals(res.status, 201);
      assertEquals(res.json.success, true);
      merchant = res.json.data;
      assertMatch(merchant.merchantId, /^mch_[0-9a-z]{26}$/);
      assertMatch(merchant.keys.liveSecret, /^svc_live_sk_/);
      assertMatch(merchant.keys.livePublishable, /^svc_live_pk_/);
      assertMatch(merchant.keys.testSecret, /^svc_test_sk_/);
      assertMatch(merchant.keys.testPublishable, /^svc_test_pk_/);
      const stored = await gw.db.query<{ key_hash: string }>(
        "SELECT key_hash FROM api_keys WHERE merchant_id = $1",
        [
          merchant.merchantId,
        ],
      );
      assertEquals(stored.length, 4);
      for (const row of stored) {
        assert(!Object.values(merchant.keys).includes(row.key_hash), "keys are stored hashed");
      }
    });

    await t.step("admin routes refuse a missing or wrong token", async () => {
      const none = await gw.request("POST", "/admin/api/merchants", { body: { name: "x" } });
      assertEquals(none.status, 401);
      assertEquals(none.json.error.code, "UNAUTHORIZED");
      const wrong = await gw.request("POST", "/admin/api/merchants", {
        body: { name: "x" },
        headers: { authorization: "Bearer not-the-admin-token-at-all" },
      });
      assertEquals(wrong.status, 401);
    });

    await t.step(
      "admin create rejects bad bodies with VALIDATION_ERROR details and unknown properties",
      async () => {
        const res = await gw.admin("POST", "/admin/api/merchants", {
          name: "",
          kybStatus: "MAYBE",
          extra: 1,
        });
        assertEquals(res.status, 400);
        assertEquals(res.json.error.code, "VALIDATION_ERROR");
        const fields = res.json.error.details.map((d: { field: string }) => d.field).sort();
        assertEquals(fields, ["extra", "kybStatus", "name"]);
      },
    );

    await t.step("malformed JSON is BAD_REQUEST", async () => {
      const res = await gw.request("POST", "/admin/api/merchants", {
        rawBody: "{not json",
        headers: { authorization: "Bearer test-admin-token-0123456789", "content-type": "application/json" },
      });
      assertEquals(res.status, 400);
      assertEquals(res.json.error.code, "BAD_REQUEST");
    });

    await t.step("a key in X-Api-Key or Authorization: Bearer reaches the wallets", async () => {
      const viaHeader = await gw.request("GET", "/v1/merchants/wallets", { key: merchant.keys.liveSecret });
      assertEquals(viaHeader.status, 200);
      const pairs = viaHeader.json.data.map((w: { currency: string; rail: string }) =>
        `${w.currency}/${w.rail}`
      ).sort();
      assertEquals(pairs, ["USDT_TRC20/TRC20", "XOF/CARD", "XOF/MOMO"]);
      const viaBearer = await gw.request("GET", "/v1/merchants/wallets", {
        headers: { authorization: `Bearer ${merchant.keys.liveSecret}` },
      });
      assertEquals(viaBearer.status, 200);
      assertEquals(viaBearer.json.data, viaHeader.json.data);
    });

    await t.step("sandbox and live wallets are different wallets", async () => {
      const live = await gw.request("GET", "/v1/merchants/wallets", { key: merchant.keys.liveSecret });
      const test = await gw.request("GET", "/v1/merchants/wallets", { key: merchant.keys.testSecret });
      const liveIds = new Set(live.json.data.map((w: { id: string }) => w.id));
      for (const w of test.json.data) assert(!liveIds.has(w.id));
    });

    await t.step("no key, unknown key, malformed key: UNAUTHORIZED", async () => {
      for (const key of [undefined, "svc_live_sk_thisisnotarealkeybutlookslikeone", "garbage"]) {
        const res = await gw.request("GET", "/v1/merchants/wallets", { key });
        assertEquals(res.status, 401, String(key));
        assertEquals(res.json.error.code, "UNAUTHORIZED");
      }
    });

    await t.step("a revoked key is INVALID_API_KEY", async () => {
      const issued = await gw.admin("POST", `/admin/api/merchants/${merchant.merchantId}/keys`, {
        kind: "live_secret",
      });
      assertEquals(issued.status, 201);
      assertEquals(
        (await gw.request("GET", "/v1/wallets/balance", { key: issued.json.data.key })).status,
        200,
      );
      const revoked = await gw.admin("DELETE", `/admin/api/keys/${issued.json.data.id}`);
      assertEquals(revoked.status, 200);
      const res = await gw.request("GET", "/v1/wallets/balance", { key: issued.json.data.key });
      assertEquals(res.status, 401);
      assertEquals(res.json.error.code, "INVALID_API_KEY");
    });

    await t.step(
      "a publishable key cannot read balances: FORBIDDEN with cause INSUFFICIENT_SCOPE",
      async () => {
        const res = await gw.request("GET", "/v1/wallets/balance", { key: merchant.keys.livePublishable });
        assertEquals(res.status, 403);
        assertEquals(res.json.error.code, "FORBIDDEN");
        assertEquals(res.json.error.cause, "INSUFFICIENT_SCOPE");
      },
    );

    await t.step("a restricted key works within its scopes only", async () => {
      const issued = await gw.admin("POST", `/admin/api/merchants/${merchant.merchantId}/keys`, {
        kind: "restricted",
        scopes: ["balances_read"],
      });
      assertEquals(issued.status, 201);
      assertMatch(issued.json.data.key, /^svc_rk_/);
      assertEquals(
        (await gw.request("GET", "/v1/wallets/balance", { key: issued.json.data.key })).status,
        200,
      );
      const missingScopes = await gw.admin("POST", `/admin/api/merchants/${merchant.merchantId}/keys`, {
        kind: "restricted",
      });
      assertEquals(missingScopes.status, 400);
      assertEquals(missingScopes.json.error.code, "VALIDATION_ERROR");
    });

    await t.step("GET /v1/merchant/balances/:currency, unknown currency is VALIDATION_ERROR", async () => {
      const ok = await gw.request("GET", "/v1/merchant/balances/XOF", { key: merchant.keys.liveSecret });
      assertEquals(ok.status, 200);
      assertEquals(ok.json.data.currency, "XOF");
      assertEquals(ok.json.data.total, "0");
      assertEquals(ok.json.data.wallets.length, 2);
      const bad = await gw.request("GET", "/v1/merchant/balances/EUR", { key: merchant.keys.liveSecret });
      assertEquals(bad.status, 400);
      assertEquals(bad.json.error.code, "VALIDATION_ERROR");
    });

    await t.step("KYB, status and rails are set through the admin API", async () => {
      const kyb = await gw.admin("POST", `/admin/api/merchants/${merchant.merchantId}/kyb`, {
        status: "REJECTED",
      });
      assertEquals(kyb.json.data.kybStatus, "REJECTED");
      const patched = await gw.admin("PATCH", `/admin/api/merchants/${merchant.merchantId}`, {
        enabledRails: ["USDT_TRC20"],
        feeSchedule: { cardPercent: "2.9" },
        rateLimits: { default: 500 },
      });
      assertEquals(patched.status, 200);
      assertEquals(patched.json.data.enabledRails, ["USDT_TRC20"]);
      assertEquals(patched.json.data.feeSchedule.cardPercent, "2.9");
      assertEquals(patched.json.data.feeSchedule.mobileMoneyPercent, "2");
      assertEquals(patched.json.data.rateLimits.default, 500);
      const unknownMerchant = await gw.admin("POST", "/admin/api/merchants/mch_nope/kyb", {
        status: "APPROVED",
      });
      assertEquals(unknownMerchant.status, 404);
      assertEquals(unknownMerchant.json.error.code, "MERCHANT_NOT_FOUND");
    });

    await t.step("a closed merchant's keys answer ACCOUNT_CLOSED", async () => {
      const other = await gw.createMerchant("Closing Shop");
      await gw.admin("PATCH", `/admin/api/merchants/${other.merchantId}`, { status: "CLOSED" });
      const res = await gw.request("GET", "/v1/wallets/balance", { key: other.keys.liveSecret });
      assertEquals(res.status, 403);
      assertEquals(res.json.error.code, "ACCOUNT_CLOSED");
    });

    await t.step("OpenAPI 3.1 and the docs page are served", async () => {
      const spec = await gw.request("GET", "/v1/openapi.json");
      assertEquals(spec.status, 200);
      assertEquals(spec.json.openapi, "3.1.0");
      assert(spec.json.paths["/v1/merchants/wallets"]);
      const docs = await gw.request("GET", "/docs");
      assertEquals(docs.status, 200);
      assert(docs.text.includes("/v1/merchants/wallets"));
    });
  } finally {
    await gw.close();
  }
});
