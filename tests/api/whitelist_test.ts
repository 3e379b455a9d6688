// /v1/wallets/whitelist through the whole app: add and merge, bulk, contexts, list, no removal, scopes,
// modes, hostile input and a burst of identical adds; then the destination rules payouts and
// withdrawals will run (cooldown, contexts, primary address).
import { findEntry } from "../../db/whitelist.ts";
import { manualClock } from "../../domain/clock.ts";
import { AppError } from "../../domain/errors.ts";
import {
  resolvePayoutDestination,
  resolveWithdrawalDestination,
  WHITELIST_COOLDOWN_MS,
} from "../../domain/whitelist/mod.ts";
import { toBase58Address } from "../../rails/tron/address.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

function randomAddress(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return toBase58Address("41" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""));
}

/** A base58 address of the right shape whose checksum is wrong. */
function badChecksum(address: string): string {
  const last = address.at(-1)!;
  return address.slice(0, -1) + (last === "a" ? "b" : "a");
}

const isCode = (code: string) => (err: unknown) => err instanceof AppError && err.code === code;

Deno.test("address whitelist", async (t) => {
  const clock = manualClock(new Date("2026-03-01T10:00:00.000Z"));
  const gw = await startTestGateway({ clock });
  try {
    const merchant = await gw.createMerchant("Whitelist Shop");
    const other = await gw.createMerchant("Other Shop");
    const key = merchant.keys.liveSecret;
    const a1 = randomAddress();
    let firstId = "";

    await t.step("add one: 201, WITHDRAWAL by default, available 24 h later, primary", async () => {
      const res = await gw.request("POST", "/v1/wallets/whitelist", {
        key,
        body: { currency: "USDT_TRC20", chain: "TRON", address: a1, label: "Cold wallet" },
      });
      assertEquals(res.status, 201);
      const e = res.json.data;
      assertMatch(e.id, /^wla_/);
      assertEquals([e.address, e.label, e.currency, e.chain], [a1, "Cold wallet", "USDT_TRC20", "TRON"]);
      assertEquals(e.usageContexts, ["WITHDRAWAL"]);
      assertEquals(e.createdAt, "2026-03-01T10:00:00.000Z");
      assertEquals(e.availableAt, "2026-03-02T10:00:00.000Z");
      assertEquals(e.isPrimary, true);
      firstId = e.id;
    });

    await t.step("adding it again succeeds, merges contexts, keeps label and wait", async () => {
      clock.advance(60_000);
      const res = await gw.request("POST", "/v1/wallets/whitelist", {
        key,
        body: { address: a1, label: "Another label", usageContexts: ["PAYOUT"] },
      });
      assertEquals(res.status, 200);
      assertEquals(res.json.data.id, firstId);
      assertEquals(res.json.data.usageContexts, ["PAYOUT", "WITHDRAWAL"]);
      assertEquals(res.json.data.label, "Cold wallet");
      assertEquals(res.json.data.availableAt, "2026-03-02T10:00:00.000Z");
    });

    await t.step(
      "bad addresses are INVALID_ADDRESS; bad contexts INVALID_CONTEXT; nothing stored",
      async () => {
        for (const address of ["", "T123", badChecksum(randomAddress()), "0x" + "ab".repeat(20), a1 + "x"]) {
          const res = await gw.request("POST", "/v1/wallets/whitelist", { key, body: { address } });
          assertEquals(res.status, 400, address);
          assertEquals(res.json.error.code, "INVALID_ADDRESS", address);
        }
        for (const usageContexts of [[], ["DEPOSIT"], ["PAYOUT", "withdrawal"]]) {
          const res = await gw.request("POST", "/v1/wallets/whitelist", {
            key,
            body: { address: randomAddress(), usageContexts },
          });
          assertEquals(res.status, 400, JSON.stringify(usageContexts));
          assertEquals(res.json.error.code, "INVALID_CONTEXT");
        }
        for (
          const body of [
            { address: randomAddress(), currency: "XOF" },
            { address: randomAddress(), chain: "ETH" },
            { address: randomAddress(), extra: 1 },
            { address: 42 },
            { address: randomAddress(), usageContexts: "PAYOUT" },
            { address: randomAddress(), label: "x".repeat(101) },
          ]
        ) {
          const res = await gw.request("POST", "/v1/wallets/whitelist", { key, body });
          assertEquals(res.status, 400, JSON.stringify(body));
          assertEquals(res.json.error.code, "VALIDATION_ERROR", JSON.stringify(body));
        }
        const rows = await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM whitelist_entries");
        assertEquals(rows[0].n, 1);
      },
    );

    await t.step("bulk: added, alreadyExists (stored or named twice), invalid", async () => {
      clock.advance(60_000);
      const [b1, b2] = [randomAddress(), randomAddress()];
      const res = await gw.request("POST", "/v1/wallets/whitelist/bulk", {
        key,
        body: {
          addresses: [
            { address: b1, label: "Supplier 1" },
            { address: a1 },
            { address: "Tnotanaddress" },
            { address: b2 },
            { address: b1 },
          ],
          usageContexts: ["PAYOUT"],
        },
      });
      assertEquals(res.status, 200);
      const d = res.json.data;
      assertEquals(d.added.map((e: { address: string }) => e.address).sort(), [b1, b2].sort());
      assert(d.added.every((e: { usageContexts: string[] }) => e.usageContexts.join() === "PAYOUT"));
      assertEquals(d.alreadyExists.map((e: { address: string }) => e.address).sort(), [a1, b1].sort());
      assertEquals(d.invalid, [{ address: "Tnotanaddress", label: null, reason: "INVALID_ADDRESS" }]);
    });

    await t.step("bulk: empty or over 500 is WHITELIST_VALIDATION_FAILED; 500 pass", async () => {
      for (const n of [0, 501]) {
        const addresses = Array.from({ length: n }, () => ({ address: randomAddress() }));
        const res = await gw.request("POST", "/v1/wallets/whitelist/bulk", { key, body: { addresses } });
        assertEquals(res.status, 400, String(n));
        assertEquals(res.json.error.code, "WHITELIST_VALIDATION_FAILED");
      }
      const addresses = Array.from({ length: 500 }, () => ({ address: randomAddress() }));
      const res = await gw.request("POST", "/v1/wallets/whitelist/bulk", {
        key: other.keys.liveSecret,
        body: { addresses },
      });
      assertEquals(res.status, 200);
      assertEquals(res.json.data.added.length, 500);
    });

    await t.step("PATCH contexts replaces them and does not restart the wait", async () => {
      clock.advance(3 * 60 * 60 * 1000);
      const res = await gw.request("PATCH", `/v1/wallets/whitelist/${firstId}/contexts`, {
        key,
        body: { usageContexts: ["PAYOUT"] },
      });
      assertEquals(res.status, 200);
      assertEquals(res.json.data.usageContexts, ["PAYOUT"]);
      assertEquals(res.json.data.availableAt, "2026-03-02T10:00:00.000Z");
      for (const usageContexts of [[], ["NOPE"]]) {
        const bad = await gw.request("PATCH", `/v1/wallets/whitelist/${firstId}/contexts`, {
          key,
          body: { usageContexts },
        });
        assertEquals(bad.json.error.code, "INVALID_CONTEXT");
      }
      const missing = await gw.request("PATCH", `/v1/wallets/whitelist/${firstId}/contexts`, {
        key,
        body: {},
      });
      assertEquals(missing.json.error.code, "VALIDATION_ERROR");
    });

    await t.step("another merchant's entry, an unknown id, a malformed id: NOT_FOUND", async () => {
      for (const id of [firstId, "wla_00000000000000000000000000", "nope", "wla_%00"]) {
        const res = await gw.request("PATCH", `/v1/wallets/whitelist/${id}/contexts`, {
          key: other.keys.liveSecret,
          body: { usageContexts: ["PAYOUT"] },
        });
        assertEquals(res.status, 404, id);
        assertEquals(res.json.error.code, "NOT_FOUND");
      }
      assertEquals(
        (await findEntry(gw.db, { merchantId: merchant.merchantId, isSandbox: false }, firstId))!
          .usage_contexts,
        ["PAYOUT"],
      );
    });

    await t.step("list: newest first, filtered by usageContext, paged", async () => {
      const all = await gw.request("GET", "/v1/wallets/whitelist?limit=100", { key });
      assertEquals(all.status, 200);
      const items = all.json.data.items;
      assertEquals(items.length, 3);
      assertEquals(all.json.data.meta.total, 3);
      assertEquals(items.at(-1).id, firstId);
      const created = items.map((e: { createdAt: string }) => e.createdAt);
      assertEquals([...created].sort().reverse(), created);
      const withdrawal = await gw.request("GET", "/v1/wallets/whitelist?usageContext=WITHDRAWAL", { key });
      assertEquals(withdrawal.json.data.items.length, 0);
      const payout = await gw.request("GET", "/v1/wallets/whitelist?usageContext=PAYOUT&limit=2", { key });
      assertEquals(payout.json.data.items.length, 2);
      assertEquals(payout.json.data.meta.hasNext, true);
      const bad = await gw.request("GET", "/v1/wallets/whitelist?usageContext=EVERYTHING", { key });
      assertEquals(bad.json.error.code, "INVALID_CONTEXT");
    });

    await t.step("no removal: own entry 410 ADDRESS_REMOVAL_DISABLED, others' 404; entry stays", async () => {
      const res = await gw.request("DELETE", `/v1/wallets/whitelist/${firstId}`, { key });
      assertEquals(res.status, 410);
      assertEquals(res.json.error.code, "ADDRESS_REMOVAL_DISABLED");
      const foreign = await gw.request("DELETE", `/v1/wallets/whitelist/${firstId}`, {
        key: other.keys.liveSecret,
      });
      assertEquals(foreign.status, 404);
      assert(await findEntry(gw.db, { merchantId: merchant.merchantId, isSandbox: false }, firstId));
    });

    await t.step("scopes: wallets_read lists, wallets_write adds; publishable keys neither", async () => {
      const issue = async (scopes: string[]) =>
        (await gw.admin("POST", `/admin/api/merchants/${merchant.merchantId}/keys`, {
          kind: "restricted",
          scopes,
        }))
          .json.data.key;
      const reader = await issue(["wallets_read"]);
      assertEquals((await gw.request("GET", "/v1/wallets/whitelist", { key: reader })).status, 200);
      const denied = await gw.request("POST", "/v1/wallets/whitelist", {
        key: reader,
        body: { address: randomAddress() },
      });
      assertEquals([denied.status, denied.json.error.code, denied.json.error.cause], [
        403,
        "FORBIDDEN",
        "INSUFFICIENT_SCOPE",
      ]);
      const writer = await issue(["wallets_write"]);
      const added = await gw.request("POST", "/v1/wallets/whitelist", {
        key: writer,
        body: { address: randomAddress() },
      });
      assertEquals(added.status, 201);
      for (const pk of [merchant.keys.livePublishable, merchant.keys.testPublishable]) {
        assertEquals((await gw.request("GET", "/v1/wallets/whitelist", { key: pk })).status, 403);
      }
      assertEquals((await gw.request("GET", "/v1/wallets/whitelist")).status, 401);
    });

    await t.step("modes never mix: the sandbox key has its own whitelist", async () => {
      const sandbox = merchant.keys.testSecret;
      assertEquals(
        (await gw.request("GET", "/v1/wallets/whitelist", { key: sandbox })).json.data.items.length,
        0,
      );
      const res = await gw.request("POST", "/v1/wallets/whitelist", { key: sandbox, body: { address: a1 } });
      assertEquals(res.status, 201);
      assert(res.json.data.id !== firstId);
      const live = await gw.request("PATCH", `/v1/wallets/whitelist/${res.json.data.id}/contexts`, {
        key,
        body: { usageContexts: ["PAYOUT"] },
      });
      assertEquals(live.status, 404);
    });

    await t.step("50 concurrent identical adds: one entry, one 201, the rest 200", async () => {
      const address = randomAddress();
      const answers = await Promise.all(
        Array.from(
          { length: 50 },
          () =>
            gw.request("POST", "/v1/wallets/whitelist", {
              key,
              body: { address, usageContexts: ["PAYOUT"] },
            }),
        ),
      );
      assertEquals(answers.filter((a) => a.status === 201).length, 1);
      assertEquals(answers.filter((a) => a.status === 200).length, 49);
      assertEquals(new Set(answers.map((a) => a.json.data.id)).size, 1);
    });

    await t.step("destinations: context, 24 h cooldown for dashboard use, API keys exempt", async () => {
      const third = await gw.createMerchant("Third Shop");
      const scope = { merchantId: third.merchantId, isSandbox: false };
      const fresh = randomAddress();
      await gw.request("POST", "/v1/wallets/whitelist", {
        key: third.keys.liveSecret,
        body: { address: fresh, usageContexts: ["PAYOUT"] },
      });
      const viaKey = await resolvePayoutDestination(gw.deps, { ...scope, address: fresh, via: "API_KEY" });
      assertEquals(viaKey.address, fresh);
      await assertRejects(
        () => resolvePayoutDestination(gw.deps, { ...scope, address: fresh, via: "DASHBOARD" }),
        isCode("ADDRESS_COOLDOWN"),
      );
      await assertRejects(
        () => resolvePayoutDestination(gw.deps, { ...scope, address: randomAddress(), via: "API_KEY" }),
        isCode("ADDRESS_NOT_WHITELISTED"),
      );
      await assertRejects(
        () => resolvePayoutDestination(gw.deps, { ...scope, address: "Tbad", via: "API_KEY" }),
        isCode("INVALID_ADDRESS"),
      );
      // PAYOUT-only entries are no withdrawal destination: the merchant has none yet.
      await assertRejects(
        () => resolveWithdrawalDestination(gw.deps, { ...scope, via: "API_KEY" }),
        isCode("NO_WHITELISTED_ADDRESS"),
      );
      await assertRejects(
        () =>
          resolveWithdrawalDestination(gw.deps, {
            ...scope,
            whitelistAddressId: "wla_unknown",
            via: "API_KEY",
          }),
        isCode("ADDRESS_NOT_FOUND"),
      );
      const w = await gw.request("POST", "/v1/wallets/whitelist", {
        key: third.keys.liveSecret,
        body: { address: randomAddress(), usageContexts: ["WITHDRAWAL"] },
      });
      const primary = await resolveWithdrawalDestination(gw.deps, { ...scope, via: "API_KEY" });
      assertEquals(primary.id, w.json.data.id);
      clock.advance(WHITELIST_COOLDOWN_MS);
      const later = await resolveWithdrawalDestination(gw.deps, { ...scope, via: "DASHBOARD" });
      assertEquals(later.id, w.json.data.id);
    });
  } finally {
    await gw.close();
  }
});
