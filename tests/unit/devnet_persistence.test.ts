import { assert, assertEquals } from "../assert.ts";
import { createDevnet } from "../../rails/tron/devnet/mod.ts";
import { callJson } from "../../rails/tron/devnet/testing.ts";
import { addressFromPrivateKey, privateKeyFromSeed } from "../../rails/tron/protocol/crypto.ts";

type Json = Record<string, unknown>;
const hot = addressFromPrivateKey(privateKeyFromSeed("devnet persistence hot wallet"));
const merchant = addressFromPrivateKey(privateKeyFromSeed("devnet persistence merchant"));

Deno.test("the chain survives a restart: blocks, receipts, balances, reorgs and funding", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "devnet-" });
  try {
    const first = await createDevnet({
      blockMs: 0,
      dataDir,
      fundedAccounts: [{ address: hot, trx: 10_000_000n }],
    });
    const kept = await callJson(first.app, "/devnet/control/transfer", { to: merchant, amount: "4.5" });
    first.mine(2);
    const dropped = await callJson(first.app, "/devnet/control/transfer", { to: merchant, amount: "100" });
    first.mine(1);
    first.reorg(1);
    await callJson(first.app, "/devnet/control/fund", { address: hot, usdt: "7" });
    const stateBefore = await callJson(first.app, "/devnet/control/state");
    const infoBefore = await callJson(first.app, "/devnet/wallet/gettransactioninfobyid", {
      value: kept.txID,
    });
    const headBefore = await callJson(first.app, "/devnet/wallet/getnowblock");
    const hotBefore = await callJson(first.app, "/devnet/wallet/getaccount", { address: hot });
    await first.stop();

    // Different options on reopen must not change the persisted chain.
    const second = await createDevnet({ blockMs: 0, dataDir, fundedAccounts: [] });
    assertEquals(await callJson(second.app, "/devnet/control/state"), stateBefore);
    assertEquals(
      await callJson(second.app, "/devnet/wallet/gettransactioninfobyid", { value: kept.txID }),
      infoBefore,
    );
    assertEquals(
      await callJson(second.app, "/devnet/wallet/gettransactioninfobyid", { value: dropped.txID }),
      {},
    );
    assertEquals(await callJson(second.app, "/devnet/wallet/getnowblock"), headBefore);
    assertEquals(await callJson(second.app, "/devnet/wallet/getaccount", { address: hot }), hotBefore);
    assertEquals(second.customerAddress, first.customerAddress);

    // It keeps going from where it was.
    const next = await callJson(second.app, "/devnet/control/transfer", { to: merchant, amount: "1" });
    assertEquals(second.mine(1), (stateBefore.head as number) + 1);
    const info = await callJson(second.app, "/devnet/wallet/gettransactioninfobyid", { value: next.txID });
    assertEquals((info.receipt as Json).result, "SUCCESS");
    await second.stop();

    // A torn last line (crash mid-append) is ignored on the next start.
    const file = `${dataDir}/devnet/chain.jsonl`;
    await Deno.writeTextFile(file, '{"kind":"block","blo', { append: true });
    const third = await createDevnet({ blockMs: 0, dataDir });
    assertEquals((await callJson(third.app, "/devnet/control/state")).head, (stateBefore.head as number) + 1);
    assert((await Deno.readTextFile(file)).endsWith("\n"));
    await third.stop();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test({
  name: "start() produces blocks on a timer and stop() halts it",
  fn: async () => {
    const devnet = await createDevnet({ blockMs: 20 });
    devnet.start();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await devnet.stop();
    const head = devnet.chain.head.number;
    assert(head >= 2, `expected blocks, head is ${head}`);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assertEquals(devnet.chain.head.number, head);
  },
});
