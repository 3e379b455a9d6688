// Keys the merchant manages itself: list, create with scopes, rotate with an overlap, revoke, the cap.
import { manualClock } from "../../domain/clock.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

Deno.test("a merchant manages its own keys: scopes, rotation with overlap, revocation, the cap", async (t) => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock, env: { MAX_API_KEYS: "7" } });
  try {
    const m = await gw.createMerchant("Keys SARL");
    const other = await gw.createMerchant("Other SARL");
    const live = m.keys.liveSecret;
    const call = (method: string, path: string, key: string, body?: unknown, clientAddress?: string) =>
      gw.request(method, path, { key, body, clientAddress });

    await t.step(
      "the list shows the calling mode's keys, never a secret, with where they were last used",
      async () => {
        await call("GET", "/v1/wallets/balance", live, undefined, "203.0.113.7");
        const res = await call("GET", "/v1/api-keys", live);
        assertEquals(res.status, 200);
        const kinds = res.json.data.map((k: { kind: string; mode: string }) => `${k.mode}/${k.kind}`).sort();
        assertEquals(kinds, ["live/publishable", "live/secret"]);
        assert(!res.text.includes(live) && !res.text.includes(m.keys.livePublishable), "no key in the list");
        const secret = res.json.data.find((k: { kind: string }) => k.kind === "secret");
        assertEquals(secret.lastUsedFrom, "203.0.113.7");
        assertEquals(secret.status, "ACTIVE");
        const sandbox = await call("GET", "/v1/api-keys", m.keys.testSecret);
        assertEquals(sandbox.json.data.map((k: { mode: string }) => k.mode), ["sandbox", "sandbox"]);
        assertEquals((await call("GET", "/v1/api-keys", m.keys.livePublishable)).status, 403);
      },
    );

    let restricted = "";
    let restrictedId = "";
    await t.step("a restricted key holds exactly its scopes and cannot grant more", async () => {
      const res = await call("POST", "/v1/api-keys", live, {
        kind: "restricted",
        name: "shop server",
        scopes: ["payments_read", "api_keys_write"],
      });
      assertEquals(res.status, 201);
      assertMatch(res.json.data.key, /^svc_rk_/);
      assertEquals(res.json.data.mode, "live");
      restricted = res.json.data.key;
      restrictedId = res.json.data.id;
      const broader = await call("POST", "/v1/api-keys", restricted, {
        kind: "restricted",
        scopes: ["payouts_write"],
      });
      assertEquals(broader.status, 403);
      assertEquals(broader.json.error.cause, "INSUFFICIENT_SCOPE");
      assertEquals((await call("POST", "/v1/api-keys", restricted, { kind: "secret" })).status, 403);
      const narrower = await call("POST", "/v1/api-keys", restricted, {
        kind: "restricted",
        scopes: ["payments_read"],
      });
      assertEquals(narrower.status, 201);
      assertEquals(narrower.json.data.createdBy, restrictedId);
      // It lacks api_keys_read: listing is refused.
      assertEquals((await call("GET", "/v1/api-keys", restricted)).status, 403);
    });

    await t.step("rotation: both keys work during the overlap, then only the new one", async () => {
      const list = await call("GET", "/v1/api-keys", live);
      const liveId = list.json.data.find((k: { kind: string }) => k.kind === "secret").id;
      const res = await call("POST", `/v1/api-keys/${liveId}/rotate`, live, { overlapSeconds: 60 });
      assertEquals(res.status, 201);
      const successor = res.json.data.key;
      assertMatch(successor, /^svc_live_sk_/);
      assertEquals(res.json.data.replaces.id, liveId);
      assertEquals((await call("GET", "/v1/wallets/balance", live)).status, 200);
      assertEquals((await call("GET", "/v1/wallets/balance", successor)).status, 200);
      const again = await call("POST", `/v1/api-keys/${liveId}/rotate`, successor, {});
      assertEquals(again.json.error.code, "INVALID_STATE");
      assert(gw.logLines.some((l) => l.msg === "key.rotated" && l.keyId === liveId));
      clock.advance(61_000);
      const old = await call("GET", "/v1/wallets/balance", live);
      assertEquals(old.status, 401);
      assertEquals(old.json.error.code, "INVALID_API_KEY");
      assertEquals((await call("GET", "/v1/wallets/balance", successor)).status, 200);
      const shown = (await call("GET", "/v1/api-keys", successor)).json.data.find((k: { id: string }) =>
        k.id === liveId
      );
      assertEquals(shown.status, "EXPIRED");
      assertEquals(shown.rotatedTo, res.json.data.id);
    });

    await t.step(
      "revocation: at once; not the calling key; not another merchant's or mode's key",
      async () => {
        const sandboxKeys = (await call("GET", "/v1/api-keys", m.keys.testSecret)).json.data;
        const testSecretId = sandboxKeys.find((k: { kind: string }) => k.kind === "secret").id;
        const self = await call("DELETE", `/v1/api-keys/${testSecretId}`, m.keys.testSecret);
        assertEquals(self.json.error.code, "INVALID_STATE");
        // A live key id asked with a sandbox key, another merchant's, a malformed one: not found.
        assertEquals((await call("DELETE", `/v1/api-keys/${restrictedId}`, m.keys.testSecret)).status, 404);
        assertEquals(
          (await call("DELETE", `/v1/api-keys/${restrictedId}`, other.keys.liveSecret)).status,
          404,
        );
        assertEquals((await call("DELETE", "/v1/api-keys/key_nope", m.keys.testSecret)).status, 404);
        assertEquals(
          (await call("GET", "/v1/api-keys", restricted)).status,
          403,
        );
        // The restricted key revokes the narrower key it made; that key is refused from the next request.
        const narrowerKey = (await call("POST", "/v1/api-keys", restricted, {
          kind: "restricted",
          scopes: ["payments_read"],
        })).json.data;
        assertEquals((await call("GET", "/v1/payments", narrowerKey.key)).status, 200);
        const revoked = await call("DELETE", `/v1/api-keys/${narrowerKey.id}`, restricted);
        assertEquals(revoked.status, 200);
        assertEquals(revoked.json.data.status, "REVOKED");
        const after = await call("GET", "/v1/payments", narrowerKey.key);
        assertEquals(after.status, 401);
        assertEquals(after.json.error.code, "INVALID_API_KEY");
      },
    );

    await t.step("the cap: 50 concurrent creations at the last free place make exactly one key", async () => {
      // Working keys now: live publishable and successor, 2 restricted, 2 sandbox: 6 of 7.
      const results = await Promise.all(
        Array.from(
          { length: 50 },
          () => call("POST", "/v1/api-keys", m.keys.testSecret, { kind: "publishable" }),
        ),
      );
      assertEquals(results.filter((r) => r.status === 201).length, 1);
      const refused = results.filter((r) => r.status !== 201);
      assert(refused.every((r) => r.json.error.code === "LIMIT_EXCEEDED_API_KEYS"), "each refusal says why");
    });

    await t.step(
      "hostile bodies: unknown scopes, NUL bytes, huge names, wrong types, a day-long overlap",
      async () => {
        const bad = [
          { kind: "restricted", scopes: ["root"] },
          { kind: "restricted", scopes: [] },
          { kind: "restricted", name: "a\u0000b", scopes: ["payments_read"] },
          { kind: "restricted", name: "x".repeat(10_000), scopes: ["payments_read"] },
          { kind: 7 },
          { kind: "publishable", scopes: ["payments_read"] },
          { kind: "secret", extra: true },
        ];
        for (const body of bad) {
          const res = await call("POST", "/v1/api-keys", m.keys.testSecret, body);
          assertEquals(res.status, 400, JSON.stringify(body).slice(0, 80));
        }
        const keys = (await call("GET", "/v1/api-keys", m.keys.testSecret)).json.data;
        const publishable = keys.find((k: { kind: string; status: string }) => k.kind === "publishable");
        const tooLong = await call("POST", `/v1/api-keys/${publishable.id}/rotate`, m.keys.testSecret, {
          overlapSeconds: 86_401,
        });
        assertEquals(tooLong.status, 400);
      },
    );
  } finally {
    await gw.close();
  }
});
