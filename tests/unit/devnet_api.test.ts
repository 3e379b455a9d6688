import { assert, assertEquals, assertNotEquals } from "../assert.ts";
import { createDevnet, type Devnet } from "../../rails/tron/devnet/mod.ts";
import { callJson, signTransactionJson } from "../../rails/tron/devnet/testing.ts";
import {
  addressFromPrivateKey,
  fromHex,
  privateKeyFromSeed,
  sha256,
  toBase58Address,
  toHex,
} from "../../rails/tron/protocol/crypto.ts";
import { encodeAddress, encodeUint, TRANSFER_TOPIC } from "../../rails/tron/devnet/abi.ts";

type Json = Record<string, unknown>;
const alice = privateKeyFromSeed("devnet test alice");
const aliceHex = addressFromPrivateKey(alice);
const bob = privateKeyFromSeed("devnet test bob");
const bobHex = addressFromPrivateKey(bob);
const text = (hex: unknown) => new TextDecoder().decode(fromHex(String(hex)));

function clock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

async function devnet(): Promise<{ d: Devnet; time: ReturnType<typeof clock> }> {
  const time = clock();
  const d = await createDevnet({ blockMs: 0, now: time.now });
  return { d, time };
}

async function buildTransfer(
  d: Devnet,
  fromHex: string,
  to: string,
  amount: bigint,
  feeLimit = 100_000_000,
): Promise<Json> {
  const built = await callJson(d.app, "/devnet/wallet/triggersmartcontract", {
    owner_address: fromHex,
    contract_address: d.usdtContractHex,
    function_selector: "transfer(address,uint256)",
    parameter: encodeAddress(to) + encodeUint(amount),
    fee_limit: feeLimit,
    call_value: 0,
  });
  assertEquals(built.result, { result: true });
  return built.transaction as Json;
}

async function usdtBalance(d: Devnet, address: string, path = "wallet"): Promise<bigint> {
  const res = await callJson(d.app, `/devnet/${path}/triggerconstantcontract`, {
    owner_address: address,
    contract_address: d.usdtContractHex,
    function_selector: "balanceOf(address)",
    parameter: encodeAddress(address),
  });
  return BigInt("0x" + (res.constant_result as string[])[0]);
}

Deno.test("blocks: ids are number + hash, parents chain, lookups agree", async () => {
  const { d, time } = await devnet();
  time.advance(3000);
  d.mine(2);
  const head = await callJson(d.app, "/devnet/wallet/getnowblock");
  const raw = (head.block_header as Json).raw_data as Json;
  assertEquals(raw.number, 2);
  assertEquals((head.blockID as string).slice(0, 16), "0000000000000002");
  assertEquals(head.transactions, undefined);
  const one = await callJson(d.app, "/devnet/wallet/getblockbynum", { num: 1 });
  assertEquals(raw.parentHash, one.blockID);
  assertEquals(await callJson(d.app, "/devnet/wallet/getblockbyid", { value: one.blockID }), one);
  assertEquals(await callJson(d.app, "/devnet/wallet/getblockbynum", { num: 99 }), {});
  const viaGet = await (await d.app.request("/devnet/wallet/getblockbynum?num=1")).json();
  assertEquals(viaGet, one);
  const visible = await callJson(d.app, "/devnet/wallet/getnowblock", { visible: true });
  assert(String(((visible.block_header as Json).raw_data as Json).witness_address).startsWith("T"));
});

Deno.test("USDT transfer: txID is sha256(raw_data_hex), Transfer log decodes, balances move, fee burned", async () => {
  const { d } = await devnet();
  const tx = await buildTransfer(d, d.customerHexAddress, bobHex, 12_500_000n);
  assertEquals(tx.visible, false);
  assertEquals(tx.txID, toHex(sha256(fromHex(tx.raw_data_hex as string))));
  const contract = ((tx.raw_data as Json).contract as Json[])[0];
  assertEquals((contract.parameter as Json).type_url, "type.googleapis.com/protocol.TriggerSmartContract");
  const signed = signTransactionJson(tx, d.customerPrivateKey);
  assertEquals(signed.txID, tx.txID);
  const sent = await callJson(d.app, "/devnet/wallet/broadcasttransaction", signed);
  assertEquals(sent, { result: true, txid: tx.txID });
  assertEquals((await callJson(d.app, "/devnet/control/state")).mempool, 1);
  assertEquals(await callJson(d.app, "/devnet/wallet/gettransactioninfobyid", { value: tx.txID }), {});

  const before = await callJson(d.app, "/devnet/wallet/getaccount", { address: d.customerHexAddress });
  d.mine(1);
  const info = await callJson(d.app, "/devnet/wallet/gettransactioninfobyid", { value: tx.txID });
  assertEquals(info.blockNumber, 1);
  assertEquals(info.contract_address, d.usdtContractHex);
  assertEquals(info.receipt, {
    energy_fee: 6_500_000,
    energy_usage_total: 65_000,
    net_usage: 345,
    result: "SUCCESS",
  });
  assertEquals(info.result, undefined);
  const [log] = info.log as { address: string; topics: string[]; data: string }[];
  assertEquals(log.address, d.usdtContractHex.slice(2));
  assertEquals(log.topics[0], "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");
  assertEquals(log.topics[0], TRANSFER_TOPIC);
  assertEquals("41" + log.topics[1].slice(24), d.customerHexAddress);
  assertEquals("41" + log.topics[2].slice(24), bobHex);
  assertEquals(BigInt("0x" + log.data), 12_500_000n);

  const byBlock = await callJson<Json[]>(d.app, "/devnet/wallet/gettransactioninfobyblocknum", { num: 1 });
  assertEquals(byBlock, [info]);
  const got = await callJson(d.app, "/devnet/wallet/gettransactionbyid", { value: tx.txID });
  assertEquals(got.ret, [{ contractRet: "SUCCESS" }]);
  assertEquals(got.raw_data_hex, tx.raw_data_hex);
  assertEquals(await usdtBalance(d, bobHex), 12_500_000n);
  const after = await callJson(d.app, "/devnet/wallet/getaccount", { address: d.customerHexAddress });
  assertEquals((before.balance as number) - (after.balance as number), 6_500_000);
});

Deno.test("broadcast rejects a signature by the wrong key with SIGERROR", async () => {
  const { d } = await devnet();
  const tx = await buildTransfer(d, d.customerHexAddress, bobHex, 1n);
  const res = await callJson(d.app, "/devnet/wallet/broadcasttransaction", signTransactionJson(tx, alice));
  assertEquals(res.result, false);
  assertEquals(res.code, "SIGERROR");
  assert(text(res.message).includes("Validate signature error"));
  const unsigned = await callJson(d.app, "/devnet/wallet/broadcasttransaction", tx);
  assertEquals(unsigned.code, "SIGERROR");
  // Editing raw_data after signing breaks the signature too: the node re-encodes raw_data.
  const signed = signTransactionJson(tx, d.customerPrivateKey);
  const tampered = structuredClone(signed) as Json;
  ((tampered.raw_data as Json) as { fee_limit: number }).fee_limit = 1;
  assertEquals((await callJson(d.app, "/devnet/wallet/broadcasttransaction", tampered)).code, "SIGERROR");
  assertEquals((await callJson(d.app, "/devnet/control/state")).mempool, 0);
});

Deno.test("expired transactions are rejected at broadcast and dropped at inclusion", async () => {
  const { d, time } = await devnet();
  const tx = await buildTransfer(d, d.customerHexAddress, bobHex, 1n);
  const stale = structuredClone(tx) as Json;
  (stale.raw_data as Json).expiration = time.now() - 1000;
  const res = await callJson(
    d.app,
    "/devnet/wallet/broadcasttransaction",
    signTransactionJson(stale, d.customerPrivateKey),
  );
  assertEquals(res.result, false);
  assertEquals(res.code, "TRANSACTION_EXPIRATION_ERROR");

  const ok = signTransactionJson(tx, d.customerPrivateKey);
  assertEquals((await callJson(d.app, "/devnet/wallet/broadcasttransaction", ok)).result, true);
  time.advance(61_000);
  d.mine(1);
  assertEquals(await callJson(d.app, "/devnet/wallet/gettransactioninfobyid", { value: ok.txID }), {});
  assertEquals(await usdtBalance(d, bobHex), 0n);
});

Deno.test("duplicates are rejected in the mempool and after inclusion", async () => {
  const { d } = await devnet();
  const signed = signTransactionJson(
    await buildTransfer(d, d.customerHexAddress, bobHex, 1n),
    d.customerPrivateKey,
  );
  assertEquals((await callJson(d.app, "/devnet/wallet/broadcasttransaction", signed)).result, true);
  const again = await callJson(d.app, "/devnet/wallet/broadcasttransaction", signed);
  assertEquals(again.code, "DUP_TRANSACTION_ERROR");
  d.mine(1);
  assertEquals(
    (await callJson(d.app, "/devnet/wallet/broadcasttransaction", signed)).code,
    "DUP_TRANSACTION_ERROR",
  );
});

Deno.test("OUT_OF_ENERGY: sender without TRX, and fee_limit too low", async () => {
  const { d } = await devnet();
  await callJson(d.app, "/devnet/control/fund", { address: toBase58Address(aliceHex), usdt: "50" });
  const sent = await callJson(d.app, "/devnet/control/transfer", { to: bobHex, amount: "10", from: alice });
  assert(typeof sent.txID === "string", JSON.stringify(sent));
  const low = signTransactionJson(
    await buildTransfer(d, d.customerHexAddress, bobHex, 1n, 1_000_000),
    d.customerPrivateKey,
  );
  assertEquals((await callJson(d.app, "/devnet/wallet/broadcasttransaction", low)).result, true);
  d.mine(1);

  const info = await callJson(d.app, "/devnet/wallet/gettransactioninfobyid", { value: sent.txID });
  assertEquals(info.result, "FAILED");
  assertEquals((info.receipt as Json).result, "OUT_OF_ENERGY");
  assertEquals(info.log, undefined);
  assertEquals(info.blockNumber, 1);
  const tx = await callJson(d.app, "/devnet/wallet/gettransactionbyid", { value: sent.txID });
  assertEquals(tx.ret, [{ contractRet: "OUT_OF_ENERGY" }]);

  const capped = await callJson(d.app, "/devnet/wallet/gettransactioninfobyid", { value: low.txID });
  assertEquals((capped.receipt as Json).result, "OUT_OF_ENERGY");
  assertEquals((capped.receipt as Json).energy_fee, 1_000_000);
  assertEquals(await usdtBalance(d, aliceHex), 50_000_000n);
  assertEquals(await usdtBalance(d, bobHex), 0n);
});

Deno.test("REVERT when the USDT balance is short; fee still burned, no log", async () => {
  const { d } = await devnet();
  await callJson(d.app, "/devnet/control/fund", { address: aliceHex, trx: "100", usdt: "1" });
  const sent = await callJson(d.app, "/devnet/control/transfer", { to: bobHex, amount: "2", from: alice });
  d.mine(1);
  const info = await callJson(d.app, "/devnet/wallet/gettransactioninfobyid", { value: sent.txID });
  assertEquals(info.result, "FAILED");
  assertEquals((info.receipt as Json).result, "REVERT");
  assertEquals(text(info.resMessage), "REVERT opcode executed");
  assertEquals(info.log, undefined);
  assert((info.fee as number) > 0);
  assertEquals(await usdtBalance(d, aliceHex), 1_000_000n);
  const account = await callJson(d.app, "/devnet/wallet/getaccount", { address: aliceHex });
  assertEquals(account.balance, 100_000_000 - (info.fee as number));
});

Deno.test("reorg drops the reorged blocks' transactions and restores balances", async () => {
  const { d, time } = await devnet();
  d.mine(3);
  const sent = await callJson(d.app, "/devnet/control/transfer", { to: bobHex, amount: "7" });
  time.advance(3000);
  const head = await callJson(d.app, "/devnet/control/mine", { blocks: 2 });
  assertEquals(head.head, 5);
  const oldBlock4 = await callJson(d.app, "/devnet/wallet/getblockbynum", { num: 4 });
  assertEquals(await usdtBalance(d, bobHex), 7_000_000n);

  const reorged = await callJson(d.app, "/devnet/control/reorg", { depth: 2 });
  assertEquals(reorged.head, 5);
  assertEquals(reorged.dropped, [sent.txID]);
  const newBlock4 = await callJson(d.app, "/devnet/wallet/getblockbynum", { num: 4 });
  assertNotEquals(newBlock4.blockID, oldBlock4.blockID);
  assertEquals(newBlock4.transactions, undefined);
  assertEquals(await callJson(d.app, "/devnet/wallet/gettransactioninfobyid", { value: sent.txID }), {});
  assertEquals(await usdtBalance(d, bobHex), 0n);
  const state = await callJson(d.app, "/devnet/control/state");
  assertEquals((state.customer as Json).usdt, "1000000000");
  assertEquals((state.customer as Json).trx, "1000000");
  // A transaction built on a block that was reorged away fails the TAPOS check.
  const stale = structuredClone(await buildTransfer(d, d.customerHexAddress, bobHex, 1n)) as Json;
  (stale.raw_data as Json).ref_block_bytes = "0004";
  (stale.raw_data as Json).ref_block_hash = (oldBlock4.blockID as string).slice(16, 32);
  const res = await callJson(
    d.app,
    "/devnet/wallet/broadcasttransaction",
    signTransactionJson(stale, d.customerPrivateKey),
  );
  assertEquals(res.code, "TAPOS_ERROR");
});

Deno.test("walletsolidity answers as of head - 19", async () => {
  const { d } = await devnet();
  const sent = await callJson(d.app, "/devnet/control/transfer", { to: bobHex, amount: "3" });
  d.mine(1);
  assertEquals(
    await callJson(d.app, "/devnet/walletsolidity/gettransactioninfobyid", { value: sent.txID }),
    {},
  );
  assertEquals(await usdtBalance(d, bobHex, "walletsolidity"), 0n);
  const solidHead = await callJson(d.app, "/devnet/walletsolidity/getnowblock");
  assertEquals(
    solidHead.blockID,
    (await callJson(d.app, "/devnet/wallet/getblockbynum", { num: 0 })).blockID,
  );
  d.mine(19);
  const info = await callJson(d.app, "/devnet/walletsolidity/gettransactioninfobyid", { value: sent.txID });
  assertEquals(info.blockNumber, 1);
  assertEquals(await usdtBalance(d, bobHex, "walletsolidity"), 3_000_000n);
  assertEquals((await callJson(d.app, "/devnet/control/state")).solidified, 1);
  const solidBlock = await callJson(d.app, "/devnet/walletsolidity/getnowblock");
  assertEquals(((solidBlock.block_header as Json).raw_data as Json).number, 1);
  assertEquals(await callJson(d.app, "/devnet/walletsolidity/getblockbynum", { num: 2 }), {});
});

Deno.test("TRX: createtransaction + broadcast activates the receiver; broadcasthex works", async () => {
  const { d } = await devnet();
  assertEquals(await callJson(d.app, "/devnet/wallet/getaccount", { address: aliceHex }), {});
  const tx = await callJson(d.app, "/devnet/wallet/createtransaction", {
    owner_address: d.customerAddress,
    to_address: toBase58Address(aliceHex),
    amount: 5_000_000,
    visible: true,
  });
  assertEquals(tx.visible, true);
  const value = (((tx.raw_data as Json).contract as Json[])[0].parameter as Json).value as Json;
  assertEquals(value.to_address, toBase58Address(aliceHex));
  const signed = signTransactionJson(tx, d.customerPrivateKey);
  assertEquals((await callJson(d.app, "/devnet/wallet/broadcasttransaction", signed)).result, true);
  d.mine(1);
  const account = await callJson(d.app, "/devnet/wallet/getaccount", { address: aliceHex });
  assertEquals(account.balance, 5_000_000);

  // alice -> bob through broadcasthex (a protobuf Transaction in hex).
  const built = await buildTransfer(d, aliceHex, bobHex, 0n);
  const hexSigned = signTransactionJson(built, alice);
  const raw = fromHex(hexSigned.raw_data_hex as string);
  const sig = fromHex((hexSigned.signature as string[])[0]);
  const txBytes = new Uint8Array([0x0a, ...varint(raw.length), ...raw, 0x12, 65, ...sig]);
  const res = await callJson(d.app, "/devnet/wallet/broadcasthex", { transaction: toHex(txBytes) });
  assertEquals(res.result, true);
  assertEquals(res.txid, built.txID);
  assertEquals(JSON.parse(res.transaction as string).txID, built.txID);
  const rejected = await callJson(d.app, "/devnet/wallet/createtransaction", {
    owner_address: aliceHex,
    to_address: bobHex,
    amount: 999_000_000,
  });
  assert(String(rejected.Error).includes("balance is not sufficient"));
});

function varint(n: number): number[] {
  const out = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

Deno.test("contract metadata, chain parameters and control errors", async () => {
  const { d } = await devnet();
  const contract = await callJson(d.app, "/devnet/wallet/getcontract", { value: d.usdtContractHex });
  assertEquals(contract.contract_address, d.usdtContractHex);
  const names = ((contract.abi as Json).entrys as Json[]).map((e) => e.name);
  assert(names.includes("transfer") && names.includes("balanceOf") && names.includes("Transfer"));
  assertEquals(await callJson(d.app, "/devnet/wallet/getcontract", { value: bobHex }), {});
  const params = (await callJson(d.app, "/devnet/wallet/getchainparameters")).chainParameter as Json[];
  assertEquals(params.find((p) => p.key === "getEnergyFee")?.value, 100);
  const decimals = await callJson(d.app, "/devnet/wallet/triggerconstantcontract", {
    owner_address: bobHex,
    contract_address: d.usdtContract,
    function_selector: "decimals()",
    visible: true,
  });
  assertEquals(BigInt("0x" + (decimals.constant_result as string[])[0]), 6n);
  const bad = await d.app.request("/devnet/control/transfer", {
    method: "POST",
    body: JSON.stringify({ to: "nope", amount: "1" }),
  });
  assertEquals(bad.status, 400);
  const tooPrecise = await d.app.request("/devnet/control/transfer", {
    method: "POST",
    body: JSON.stringify({ to: bobHex, amount: "1.0000001" }),
  });
  assertEquals(tooPrecise.status, 400);
  const funded = await callJson(d.app, "/devnet/control/fund", {
    address: bobHex,
    trx: "1.5",
    usdt: "12.25",
  });
  assertEquals(funded.trx, "1.5");
  assertEquals(funded.usdt, "12.25");
});

Deno.test("broadcast validates against the pending state: a TRX double spend is refused", async () => {
  const { d } = await devnet();
  await callJson(d.app, "/devnet/control/fund", { address: aliceHex, trx: "10" });
  const send = async (amount: number) => {
    const tx = await callJson(d.app, "/devnet/wallet/createtransaction", {
      owner_address: aliceHex,
      to_address: d.customerHexAddress,
      amount,
    });
    return await callJson(d.app, "/devnet/wallet/broadcasttransaction", signTransactionJson(tx, alice));
  };
  assertEquals((await send(6_000_000)).result, true);
  const second = await send(5_000_000);
  assertEquals(second.code, "CONTRACT_VALIDATE_ERROR");
  assert(text(second.message).includes("balance is not sufficient"));
  d.mine(1);
  assertEquals(
    (await callJson(d.app, "/devnet/wallet/getaccount", { address: aliceHex })).balance,
    4_000_000,
  );
});

Deno.test("constant calls: a reverting transfer reports FAILED; visible=true prints base58 in infos and logs", async () => {
  const { d } = await devnet();
  const simulated = await callJson(d.app, "/devnet/wallet/triggerconstantcontract", {
    owner_address: bobHex,
    contract_address: d.usdtContractHex,
    function_selector: "transfer(address,uint256)",
    parameter: encodeAddress(aliceHex) + encodeUint(1n),
  });
  assertEquals((simulated.result as Json).result, true);
  assertEquals(text((simulated.result as Json).message), "REVERT opcode executed");
  assertEquals(((simulated.transaction as Json).ret as Json[])[0], { ret: "FAILED" });
  const missing = await callJson(d.app, "/devnet/wallet/triggersmartcontract", {
    owner_address: bobHex,
    contract_address: aliceHex,
    function_selector: "transfer(address,uint256)",
    parameter: encodeAddress(aliceHex) + encodeUint(1n),
    fee_limit: 1,
    visible: false,
  });
  assertEquals((missing.result as Json).code, "CONTRACT_VALIDATE_ERROR");
  assertEquals(text((missing.result as Json).message), "No contract or not a valid smart contract");

  const sent = await callJson(d.app, "/devnet/control/transfer", { to: bobHex, amount: "1" });
  d.mine(1);
  const info = await callJson(d.app, "/devnet/wallet/gettransactioninfobyid", {
    value: sent.txID,
    visible: true,
  });
  assertEquals(info.contract_address, d.usdtContract);
  assertEquals((info.log as Json[])[0].address, d.usdtContract);
});
