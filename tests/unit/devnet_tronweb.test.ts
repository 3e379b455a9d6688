// Drives the devnet over real HTTP with unmodified tronweb, as the gateway would a real node.
import { TronWeb } from "tronweb";
import { assert, assertEquals } from "../assert.ts";
import { createDevnet } from "../../rails/tron/devnet/mod.ts";
import {
  addressFromPrivateKey,
  privateKeyFromSeed,
  toBase58Address,
} from "../../rails/tron/protocol/crypto.ts";

Deno.test({
  name:
    "tronweb 6.5.1: triggerSmartContract + sign + sendRawTransaction, balanceOf, getTransactionInfo, sendTrx",
  fn: async () => {
    const devnet = await createDevnet({ blockMs: 0 });
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, devnet.app.fetch);
    try {
      const tronWeb = new TronWeb({ fullHost: `http://127.0.0.1:${server.addr.port}/devnet` });
      const to = toBase58Address(addressFromPrivateKey(privateKeyFromSeed("devnet tronweb receiver")));
      assert(await tronWeb.isConnected().then((s) => s.fullNode && s.solidityNode));

      const built = await tronWeb.transactionBuilder.triggerSmartContract(
        devnet.usdtContract,
        "transfer(address,uint256)",
        { feeLimit: 100_000_000 },
        [{ type: "address", value: to }, { type: "uint256", value: 2_500_000 }],
        devnet.customerAddress,
      );
      assertEquals(built.result.result, true);
      const signed = await tronWeb.trx.sign(built.transaction, devnet.customerPrivateKey);
      const sent = await tronWeb.trx.sendRawTransaction(signed);
      assertEquals(sent.result, true);
      assertEquals(sent.txid, signed.txID);

      // A second broadcast of the same transaction is a duplicate.
      const dup = await tronWeb.trx.sendRawTransaction(signed);
      assertEquals((dup as unknown as { code: string }).code, "DUP_TRANSACTION_ERROR");

      devnet.mine(1);
      const unconfirmed = await tronWeb.trx.getUnconfirmedTransactionInfo(signed.txID);
      assertEquals(unconfirmed.receipt.result, "SUCCESS");
      // getTransactionInfo reads the solidity node: nothing until 19 more blocks.
      assertEquals(await tronWeb.trx.getTransactionInfo(signed.txID), {});
      devnet.mine(19);
      const info = await tronWeb.trx.getTransactionInfo(signed.txID);
      assertEquals(info.blockNumber, 1);
      assertEquals(
        info.log?.[0].topics[0],
        "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
      );

      const usdt = await tronWeb.contract().at(devnet.usdtContract);
      assertEquals(BigInt(String(await usdt.methods.balanceOf(to).call())), 2_500_000n);
      assertEquals(Number(await usdt.methods.decimals().call()), 6);
      assertEquals(await usdt.methods.symbol().call(), "USDT");
      const constant = await tronWeb.transactionBuilder.triggerConstantContract(
        devnet.usdtContract,
        "balanceOf(address)",
        {},
        [{ type: "address", value: to }],
        devnet.customerAddress,
      );
      assertEquals(BigInt("0x" + constant.constant_result![0]), 2_500_000n);

      // A wrong key: tronweb refuses to sign for someone else, so forge the signature ourselves.
      const other = await tronWeb.transactionBuilder.triggerSmartContract(
        devnet.usdtContract,
        "transfer(address,uint256)",
        { feeLimit: 100_000_000 },
        [{ type: "address", value: to }, { type: "uint256", value: 1 }],
        devnet.customerAddress,
      );
      const forged = tronWeb.utils.crypto.signTransaction(
        privateKeyFromSeed("devnet tronweb thief"),
        other.transaction,
      );
      const rejected = await tronWeb.trx.sendRawTransaction(forged);
      assertEquals((rejected as unknown as { code: string }).code, "SIGERROR");

      // TRX through the locally built TransferContract (wallet/getblock for TAPOS params).
      tronWeb.setPrivateKey(devnet.customerPrivateKey);
      const trx = await tronWeb.trx.sendTransaction(to, 3_000_000);
      assertEquals(trx.result, true);
      devnet.mine(1);
      assertEquals(await tronWeb.trx.getUnconfirmedBalance(to), 3_000_000);
      const tx = await tronWeb.trx.getTransaction(trx.txid);
      assertEquals(tx.ret?.[0].contractRet, "SUCCESS");
      const block = await tronWeb.trx.getCurrentBlock();
      assertEquals(block.block_header.raw_data.number, 21);
      assertEquals((await tronWeb.trx.getConfirmedCurrentBlock()).block_header.raw_data.number, 2);
    } finally {
      await server.shutdown();
      await devnet.stop();
    }
  },
});

Deno.test("tronweb 6.5.1: getBlockRange reads wallet/getblockbylimitnext as from java-tron", async () => {
  const devnet = await createDevnet({ blockMs: 0 });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, devnet.app.fetch);
  try {
    const tronWeb = new TronWeb({ fullHost: `http://127.0.0.1:${server.addr.port}/devnet` });
    devnet.mine(5);
    // tronweb asks for [start, end + 1): blocks 2, 3 and 4, the same as getBlockByNumber answers one by one.
    const range = await tronWeb.trx.getBlockRange(2, 4);
    assertEquals(range.map((b) => b.block_header.raw_data.number), [2, 3, 4]);
    for (const b of range) {
      assertEquals(b.blockID, (await tronWeb.trx.getBlockByNumber(b.block_header.raw_data.number)).blockID);
    }
    // Past the head: what exists; wholly past it: nothing.
    assertEquals((await tronWeb.trx.getBlockRange(4, 9)).length, 2);
    assertEquals(await tronWeb.trx.getBlockRange(7, 9), []);
  } finally {
    await server.shutdown();
    await devnet.stop();
  }
});
