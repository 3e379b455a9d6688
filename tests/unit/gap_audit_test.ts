// The gap audit: a block the scanner's cursor moved over without processing it (a hole in the followed
// blocks) is found by comparing the record with the chain and rescanned; its pay-in is credited once,
// however late: confirmed if the transfer came before expiry, as a deposit if the pay-in had expired.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { expireDuePayins } from "../../domain/payins/chain_events.ts";
import { auditChainGaps } from "../../domain/payins/gap_audit.ts";
import { putBlock } from "../../db/chain_audit.ts";
import { manualClock } from "../../domain/clock.ts";
import { assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";

type Gw = Awaited<ReturnType<typeof startTestGateway>>;

/**
 * Pays `address` in a block the scanner then skips: the block after it is recorded by hand (its real hash
 * and parent), as a scanner whose cursor jumped would have, so the next scan continues past the hole.
 */
async function payInAHole(gw: Gw, address: string): Promise<{ hole: number; txId: string }> {
  await scanChain(gw.deps);
  const txId = gw.devnet.transferUsdt(address, 11_500_000n);
  gw.devnet.mine(2);
  const head = await gw.deps.tron.getNowBlock();
  const hole = head.number - 1;
  const after = head;
  await putBlock(gw.db, {
    number: after.number,
    hash: after.hash,
    parentHash: after.parentHash,
    time: new Date(after.timestamp),
  });
  return { hole, txId };
}

async function credits(gw: Gw, references: string[]): Promise<number> {
  const rows = await gw.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM journals WHERE reference = ANY($1)",
    [references],
  );
  return rows[0].n;
}

Deno.test("a hole in the followed blocks is rescanned by the audit; the pay-in in it is confirmed once", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Audit SARL");
    gw.devnet.mine(3);
    const p = (await gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body: { amount: "10" } }))
      .json.data;
    const { hole } = await payInAHole(gw, p.address);
    gw.devnet.mine(8);
    for (let i = 0; i < 3; i++) await scanChain(gw.deps);
    const missed = await gw.request("GET", `/v1/payments/${p.transactionId}`, { key: m.keys.liveSecret });
    assertEquals(missed.json.data.status, "AWAITING_PAYMENT", "the scanner alone never sees the hole");

    // Two audits at once (two hosts): the hole is mended once.
    const reports = await Promise.all([auditChainGaps(gw.deps), auditChainGaps(gw.deps)]);
    assertEquals(reports.some((r) => r !== null && r.holes === 1), true);
    const again = await auditChainGaps(gw.deps);
    assertEquals(again?.holes ?? 0, 0, "an audited block is not audited again");
    const rows = await gw.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM chain_blocks WHERE number = $1",
      [
        hole,
      ],
    );
    assertEquals(rows[0].n, 1);

    gw.devnet.mine(6);
    for (let i = 0; i < 3; i++) await scanChain(gw.deps);
    const rec = await gw.request("GET", `/v1/payments/${p.transactionId}`, { key: m.keys.liveSecret });
    assertEquals([rec.json.data.status, rec.json.data.amountReceived], ["CONFIRMED", "11.500000"]);
    assertEquals(await credits(gw, [`payin:${p.transactionId}`]), 1);
  } finally {
    await gw.close();
  }
});

Deno.test("a pay-in that expired while its transfer sat in a hole is credited late, as a deposit, once", async () => {
  const clock = manualClock(new Date());
  const gw = await startTestGateway({ clock });
  try {
    const m = await gw.createMerchant("Late SARL");
    gw.devnet.mine(3);
    const p = (await gw.request("POST", "/v1/payments", { key: m.keys.liveSecret, body: { amount: "10" } }))
      .json.data;
    const { txId } = await payInAHole(gw, p.address);
    clock.advance(24 * 3600_000);
    await expireDuePayins(gw.deps);
    const expired = await gw.request("GET", `/v1/payments/${p.transactionId}`, { key: m.keys.liveSecret });
    assertEquals(expired.json.data.status, "EXPIRED");

    gw.devnet.mine(gw.deps.config.tron.payinConfirmations + 1);
    await scanChain(gw.deps);
    assertEquals((await auditChainGaps(gw.deps))?.holes, 1);
    gw.devnet.mine(gw.deps.config.tron.depositConfirmations + 1);
    for (let i = 0; i < 3; i++) await scanChain(gw.deps);
    const refs = [`chain:${txId}:0`, `payin:${p.transactionId}`];
    assertEquals(await credits(gw, refs), 1, "credited once, as late funds");
    const kinds = await gw.db.query<{ kind: string; status: string }>(
      "SELECT kind, status FROM chain_transfers WHERE payin_id = $1",
      [p.transactionId],
    );
    assertEquals([...kinds], [{ kind: "DEPOSIT", status: "CREDITED" }]);
  } finally {
    await gw.close();
  }
});
