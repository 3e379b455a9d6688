// USDT refunds: asked and reserved like the others; once approved the refund carries a signed, expiring
// link to the hosted page where the customer gives a TRON address (checked, set once however many tabs
// post it); the money-out sender pays it from the hot wallet once (`refund.completed`), and a transfer that
// reverts on chain fails the refund with the reservation back once (`refund.failed`).
import { systemClock } from "../../domain/clock.ts";
import { sendOutbound } from "../../domain/money_out/send.ts";
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { hotWallet } from "../../domain/treasury/hot_wallet.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { creditUsdt, inFlight, randomTronAddress, usdtBalance } from "../money_out_helpers.ts";
import { approve, askRefund, eventsOf, getRefund, paidUsdt, pathOf, postAddress } from "../refund_fixture.ts";

const TRX = 1_000_000n;
const USDT = 1_000_000n;

/** The address with its last character changed (a different one: never the address itself). */
function typo(address: string): string {
  return address.slice(0, 33) + (address.endsWith("1") ? "2" : "1");
}

async function transfersOf(gw: TestGateway, refundId: string): Promise<number> {
  const rows = await gw.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM outbound_transfers WHERE kind = 'REFUND' AND metadata->>'refundId' = $1",
    [refundId],
  );
  return rows[0].n;
}

/** Every journal sums to zero and no account holds money it should not (IN_FLIGHT never negative). */
async function assertLedgerBalanced(gw: TestGateway) {
  const unbalanced = await gw.db.query(
    "SELECT journal_id FROM entries GROUP BY journal_id HAVING sum(amount) <> 0",
  );
  assertEquals(unbalanced.length, 0);
  assert(Number(await inFlight(gw, false)) >= 0);
}

async function devnetUsdt(gw: TestGateway, address: string): Promise<bigint> {
  return await gw.deps.tron.getUsdtBalance(gw.deps.config.tron.usdtContract, address);
}

Deno.test("USDT refunds: signed page, address once, paid once by the sender, a revert fails it once", async (t) => {
  let offsetMs = 0;
  const clock = { now: () => new Date(systemClock.now().getTime() + offsetMs) };
  const gw = await startTestGateway({ clock });
  const m = await gw.createMerchant("Boutique Ouaga");
  const key = m.keys.liveSecret;
  const hot = hotWallet(gw.deps.config, false);
  try {
    gw.devnet.fund(hot.address, { trx: 1_000n * TRX, usdt: 100n * USDT });
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    const payinId = await paidUsdt(gw, key, "50");
    await creditUsdt(gw, m.merchantId, false, "10");
    let refundId = "";
    let pagePath = "";

    await t.step(
      "a USDT pay-in's refund is accepted and reserved; approval gives it a signed page link",
      async () => {
        const before = Number(await usdtBalance(gw, m.merchantId, false));
        const res = await askRefund(gw, key, payinId, { amount: "20" });
        assertEquals(res.status, 201, res.text);
        const r = res.json.data;
        assertEquals([r.status, r.paymentMethod, r.customerPageUrl], [
          "PENDING_APPROVAL",
          "USDT_TRC20",
          null,
        ]);
        refundId = r.refundId;
        assertEquals(Number(await usdtBalance(gw, m.merchantId, false)), before - 20);
        assertEquals(await inFlight(gw, false), "20.000000");
        // Before approval the page shows the amount and asks for nothing.
        assertEquals((await approve(gw, refundId)).status, 200);
        const approved = await getRefund(gw, key, refundId);
        assertEquals(approved.status, "APPROVED");
        assert(approved.customerPageUrl.startsWith(`${gw.deps.config.publicUrl}/refunds/${refundId}?exp=`));
        assert(new Date(approved.customerPageExpiresAt).getTime() > Date.now() + 29 * 86_400_000);
        pagePath = pathOf(approved.customerPageUrl);
        const page = await gw.request("GET", pagePath);
        assertEquals(page.status, 200);
        assert(page.text.includes("20.000000"), "the page shows the amount");
        assert(page.text.includes('name="address"'), "the page asks for the address");
        assert((await gw.request("GET", pagePath + "&lang=en")).text.includes("Receive the refund"));
        await assertLedgerBalanced(gw);
      },
    );

    await t.step("forged, altered, another refund's or expired links are refused", async () => {
      const u = new URL(`http://x${pagePath}`);
      const exp = u.searchParams.get("exp")!;
      const sig = u.searchParams.get("sig")!;
      const other = (await askRefund(gw, key, payinId, { amount: "1" })).json.data.refundId;
      const bad = [
        `/refunds/${refundId}?exp=${exp}&sig=${"0".repeat(48)}`,
        `/refunds/${refundId}?exp=${Number(exp) + 1}&sig=${sig}`,
        `/refunds/${other}?exp=${exp}&sig=${sig}`,
        `/refunds/${refundId}?exp=${exp}`,
        `/refunds/rfd_nope?exp=${exp}&sig=${sig}`,
      ];
      for (const path of bad) {
        assertEquals((await gw.request("GET", path)).status, 404, path);
        assertEquals((await postAddress(gw, path, randomTronAddress())).status, 404, path);
      }
      // A NUL byte in the link is refused before it is even looked at.
      const nul = `/refunds/${refundId}?exp=${exp}&sig=${sig}%00`;
      assertEquals((await gw.request("GET", nul)).status, 400);
      assertEquals((await postAddress(gw, nul, randomTronAddress())).status, 400);
      offsetMs = 31 * 86_400_000;
      try {
        assertEquals((await gw.request("GET", pagePath)).status, 410);
        assertEquals((await postAddress(gw, pagePath, randomTronAddress())).status, 410);
      } finally {
        offsetMs = 0;
      }
      assertEquals(await transfersOf(gw, refundId), 0);
      assertEquals((await getRefund(gw, key, refundId)).status, "APPROVED");
    });

    await t.step(
      "the address must be a customer's T-address, not the gateway's nor the contract",
      async () => {
        const [{ address: depositAddress }] = await gw.db.query<{ address: string }>(
          "SELECT address FROM payins WHERE id = $1",
          [payinId],
        );
        const refused = [
          "",
          "T123",
          "0x" + "ab".repeat(20),
          typo(randomTronAddress()), // the checksum fails
          "T\u0000" + "a".repeat(32),
          "\ud800".repeat(34),
          "T".repeat(5000),
          gw.deps.config.tron.usdtContract,
          hot.address,
          depositAddress,
        ];
        for (const address of refused) {
          const res = await postAddress(gw, pagePath, address);
          assertEquals(res.status, 400, `${address.slice(0, 40)}: ${res.text.slice(0, 200)}`);
        }
        assertEquals(await transfersOf(gw, refundId), 0);
        assertEquals((await getRefund(gw, key, refundId)).status, "APPROVED");
      },
    );

    const customer = randomTronAddress();
    // Whichever tab wins below is the address the refund is paid to.
    const customerAddress = { value: customer };
    await t.step("two tabs and double clicks set the address once", async () => {
      const intruder = randomTronAddress();
      const answers = await Promise.all([
        ...Array.from({ length: 10 }, () => postAddress(gw, pagePath, customer)),
        ...Array.from({ length: 10 }, () => postAddress(gw, pagePath, intruder)),
      ]);
      const r = await getRefund(gw, key, refundId);
      assertEquals(r.status, "PROCESSING");
      const winner = r.destinationAddress;
      assert(winner === customer || winner === intruder);
      const byAddress = (a: string) => answers.slice(a === customer ? 0 : 10, a === customer ? 10 : 20);
      const loser = winner === customer ? intruder : customer;
      assertEquals(byAddress(winner).map((a) => a.status), Array(10).fill(200));
      assertEquals(byAddress(loser).map((a) => a.status), Array(10).fill(409));
      assertEquals(await transfersOf(gw, refundId), 1);
      // The test pays whichever won: from here the customer's address is the winner.
      if (winner !== customer) customerAddress.value = winner;
      const again = await postAddress(gw, pagePath, winner);
      assertEquals(again.status, 200);
      assert(again.text.includes(winner));
      assertEquals(await inFlight(gw, false), "21.000000"); // 20 + the 1 still pending
      await assertLedgerBalanced(gw);
    });

    await t.step("paid once by the money-out sender, refund.completed after its confirmations", async () => {
      const [{ id: transfer }] = await gw.db.query<{ id: string }>(
        "SELECT outbound_id AS id FROM refunds WHERE id = $1",
        [refundId],
      );
      const walletBefore = await usdtBalance(gw, m.merchantId, false);
      assertEquals(await sendOutbound(gw.deps, transfer), "sent");
      assertEquals(await sendOutbound(gw.deps, transfer), "already-sent");
      gw.devnet.mine(1);
      await scanChain(gw.deps);
      assertEquals((await getRefund(gw, key, refundId)).status, "PROCESSING");
      gw.devnet.mine(gw.deps.config.tron.payoutConfirmations);
      await scanChain(gw.deps);
      await scanChain(gw.deps);
      const done = await getRefund(gw, key, refundId);
      assertEquals(done.status, "COMPLETED");
      assert(/^[0-9a-f]{64}$/.test(done.providerRef), "the chain transaction is the refund's reference");
      assertEquals(await devnetUsdt(gw, customerAddress.value), 20n * USDT);
      assertEquals(await eventsOf(gw, refundId), ["refund.created", "refund.approved", "refund.completed"]);
      assertEquals(await usdtBalance(gw, m.merchantId, false), walletBefore);
      assertEquals(await inFlight(gw, false), "1.000000");
      const payin = (await gw.request("GET", `/v1/payments/${payinId}`, { key })).json.data;
      assertEquals(payin.refundedAmount, "20.000000");
      // Nothing pays it again: the sender and the scanner find nothing to do.
      assertEquals(await sendOutbound(gw.deps, transfer), "nothing-to-do");
      gw.devnet.mine(3);
      await scanChain(gw.deps);
      assertEquals(await devnetUsdt(gw, customerAddress.value), 20n * USDT);
      assertEquals(await eventsOf(gw, refundId), ["refund.created", "refund.approved", "refund.completed"]);
      assert((await gw.request("GET", pagePath)).text.includes(customerAddress.value));
      await assertLedgerBalanced(gw);
    });

    await t.step("a transfer that reverts on chain fails the refund, its reservation back once", async () => {
      const r = (await askRefund(gw, key, payinId, { amount: "5" })).json.data;
      await approve(gw, r.refundId);
      const link = pathOf((await getRefund(gw, key, r.refundId)).customerPageUrl);
      const dest = randomTronAddress();
      assertEquals((await postAddress(gw, link, dest)).status, 200);
      const walletBefore = Number(await usdtBalance(gw, m.merchantId, false));
      const [{ id: transfer }] = await gw.db.query<{ id: string }>(
        "SELECT outbound_id AS id FROM refunds WHERE id = $1",
        [r.refundId],
      );
      assertEquals(await sendOutbound(gw.deps, transfer), "sent");
      gw.devnet.mine(1);
      await scanChain(gw.deps);
      // A reorg drops its block and the hot wallet is emptied first: the same bytes land with nothing to pay.
      assertEquals(gw.devnet.reorg(1).dropped.length, 1);
      gw.devnet.transferUsdt(randomTronAddress(), await devnetUsdt(gw, hot.address), hot.privateKeyHex);
      gw.devnet.mine(2);
      await scanChain(gw.deps);
      assertEquals(await sendOutbound(gw.deps, transfer), "already-sent");
      gw.devnet.mine(1);
      await scanChain(gw.deps);
      gw.devnet.mine(gw.deps.config.tron.payoutConfirmations + 1);
      await scanChain(gw.deps);
      await scanChain(gw.deps);
      const failed = await getRefund(gw, key, r.refundId);
      assertEquals([failed.status, failed.failureReason], ["FAILED", "CHAIN_REVERT"]);
      assertEquals(Number(await usdtBalance(gw, m.merchantId, false)), walletBefore + 5);
      assertEquals(await devnetUsdt(gw, dest), 0n);
      await scanChain(gw.deps);
      assertEquals(await sendOutbound(gw.deps, transfer), "nothing-to-do");
      assertEquals(Number(await usdtBalance(gw, m.merchantId, false)), walletBefore + 5);
      assertEquals(await eventsOf(gw, r.refundId), ["refund.created", "refund.approved", "refund.failed"]);
      assertEquals(await inFlight(gw, false), "1.000000");
      // Only the completed refund counts as refunded on the pay-in.
      const payin = (await gw.request("GET", `/v1/payments/${payinId}`, { key })).json.data;
      assertEquals(payin.refundedAmount, "20.000000");
      // A failed refund takes no address any more.
      assertEquals((await postAddress(gw, link, randomTronAddress())).status, 409);
      await assertLedgerBalanced(gw);
    });

    await t.step(
      "refunds are rows of the transaction history (type REFUND), their transfers are not",
      async () => {
        const res = await gw.request("GET", "/v1/transactions?type=REFUND&limit=50", { key });
        assertEquals(res.status, 200, res.text);
        const rows = res.json.data.items ?? res.json.data;
        const seen = (rows as { id: string; status: string; amount: string }[])
          .map((r) => `${r.status} ${r.amount}`).sort();
        assertEquals(seen, ["COMPLETED 20.000000", "FAILED 5.000000", "PENDING_APPROVAL 1.000000"]);
        const all = await gw.request("GET", "/v1/transactions?limit=100", { key });
        const ids = ((all.json.data.items ?? all.json.data) as { id: string }[]).map((r) => r.id);
        assert(!ids.some((id) => id.startsWith("rfo_")), "a refund's transfer is not a row of its own");
        const one = await gw.request("GET", `/v1/transactions/${refundId}`, { key });
        assertEquals([one.status, one.json.data.type, one.json.data.txHash?.length], [200, "REFUND", 64]);
      },
    );
  } finally {
    await gw.close();
  }
});
