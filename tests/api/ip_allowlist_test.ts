// IP allowlists: the merchant's and a key's own, IPv4 and IPv6, self-lockout, proxies and a spoofed
// X-Forwarded-For.
import { assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

Deno.test("IP allowlists hold for every key, per key, behind trusted proxies only", async (t) => {
  const gw = await startTestGateway({ env: { TRUSTED_PROXIES: "10.0.0.0/8" } });
  try {
    const m = await gw.createMerchant("Allowlist SA");
    const key = m.keys.liveSecret;
    const from = (address: string, method = "GET", path = "/v1/wallets/balance", body?: unknown, k = key) =>
      gw.request(method, path, { key: k, body, clientAddress: address });
    const viaProxy = (peer: string, forwardedFor: string, k = key) =>
      gw.request("GET", "/v1/wallets/balance", {
        key: k,
        clientAddress: peer,
        headers: { "x-forwarded-for": forwardedFor },
      });

    await t.step("empty at first: every address is served; the answer says which address asked", async () => {
      const res = await from("198.51.100.4", "GET", "/v1/merchant/ip-allowlist");
      assertEquals(res.json.data, { cidrs: [], yourAddress: "198.51.100.4" });
    });

    await t.step(
      "a list that would shut out the address setting it is IP_ALLOWLIST_SELF_LOCKOUT",
      async () => {
        const res = await from("198.51.100.4", "PUT", "/v1/merchant/ip-allowlist", {
          cidrs: ["203.0.113.0/24"],
        });
        assertEquals(res.status, 400);
        assertEquals(res.json.error.code, "IP_ALLOWLIST_SELF_LOCKOUT");
        assertEquals((await from("198.51.100.4")).status, 200, "nothing changed");
      },
    );

    await t.step("IPv4 and IPv6 ranges: inside served, outside 403 IP_NOT_ALLOWED", async () => {
      const set = await from("203.0.113.9", "PUT", "/v1/merchant/ip-allowlist", {
        cidrs: ["203.0.113.0/24", "2001:db8::/32"],
      });
      assertEquals(set.status, 200);
      assertEquals((await from("203.0.113.200")).status, 200);
      assertEquals((await from("2001:db8:1::5")).status, 200);
      assertEquals((await from("::ffff:203.0.113.7")).status, 200, "IPv4-mapped IPv6 is the same address");
      for (const outside of ["198.51.100.4", "2001:db9::1", "unknown"]) {
        const res = await from(outside);
        assertEquals(res.status, 403, outside);
        assertEquals(res.json.error.cause, "IP_NOT_ALLOWED");
      }
    });

    await t.step(
      "X-Forwarded-For counts only from a trusted proxy, right-most untrusted entry first",
      async () => {
        assertEquals((await viaProxy("10.1.2.3", "203.0.113.9")).status, 200);
        // The client wrote the left entry itself; the proxy appended the real one.
        assertEquals((await viaProxy("10.1.2.3", "203.0.113.9, 198.51.100.4")).status, 403);
        assertEquals((await viaProxy("10.1.2.3", "198.51.100.4, 203.0.113.9")).status, 200);
        // From an untrusted peer the header is ignored: a spoof from outside the list stays outside.
        assertEquals((await viaProxy("198.51.100.4", "203.0.113.9")).status, 403);
      },
    );

    await t.step("a key's own list narrows it further; only a secret key sets the merchant's", async () => {
      const made = await from("203.0.113.9", "POST", "/v1/api-keys", {
        kind: "restricted",
        scopes: ["balances_read", "api_keys_write", "api_keys_read"],
      });
      assertEquals(made.status, 201);
      const restricted = made.json.data.key;
      const lockout = await from("203.0.113.9", "PUT", `/v1/api-keys/${made.json.data.id}/ip-allowlist`, {
        cidrs: ["203.0.113.50"],
      }, restricted);
      assertEquals(lockout.json.error.code, "IP_ALLOWLIST_SELF_LOCKOUT");
      const narrowed = await from("203.0.113.9", "PUT", `/v1/api-keys/${made.json.data.id}/ip-allowlist`, {
        cidrs: ["203.0.113.50"],
      });
      assertEquals(narrowed.status, 200);
      assertEquals(narrowed.json.data.ipAllowlist, ["203.0.113.50"]);
      assertEquals(
        (await from("203.0.113.50", "GET", "/v1/wallets/balance", undefined, restricted)).status,
        200,
      );
      assertEquals(
        (await from("203.0.113.9", "GET", "/v1/wallets/balance", undefined, restricted)).status,
        403,
      );
      assertEquals((await from("203.0.113.9")).status, 200, "the secret key keeps the merchant's list only");
      const notSecret = await from(
        "203.0.113.50",
        "PUT",
        "/v1/merchant/ip-allowlist",
        { cidrs: [] },
        restricted,
      );
      assertEquals(notSecret.status, 403);
    });

    await t.step(
      "allow-all ranges, malformed ranges and hostile text are refused, nothing stored",
      async () => {
        for (
          const cidrs of [
            ["0.0.0.0/0"],
            ["::/0"],
            ["300.1.1.1/8"],
            ["1.2.3.4/33"],
            ["2001:db8::/129"],
            ["1.2.3.4\u0000"],
            ["x".repeat(5000)],
            Array.from({ length: 101 }, (_, i) => `192.0.2.${i}`),
          ]
        ) {
          const res = await from("203.0.113.9", "PUT", "/v1/merchant/ip-allowlist", { cidrs });
          assertEquals(res.status, 400, String(cidrs[0]).slice(0, 40));
        }
        const other = await gw.createMerchant("Other");
        const [anyKey] = await gw.db.query<{ id: string }>("SELECT id FROM api_keys WHERE merchant_id = $1", [
          other.merchantId,
        ]);
        const foreign = await from("203.0.113.9", "PUT", `/v1/api-keys/${anyKey.id}/ip-allowlist`, {
          cidrs: [],
        });
        assertEquals(foreign.status, 404);
        const still = await from("203.0.113.9", "GET", "/v1/merchant/ip-allowlist");
        assertEquals(still.json.data.cidrs, ["203.0.113.0/24", "2001:db8::/32"]);
        assertEquals(
          (await from("203.0.113.9", "PUT", "/v1/merchant/ip-allowlist", { cidrs: [] })).status,
          200,
        );
        assertEquals((await from("198.51.100.4")).status, 200, "an empty list allows every address again");
      },
    );
  } finally {
    await gw.close();
  }
});
