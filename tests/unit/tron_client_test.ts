// The TRON node client against the in-process devnet, and against fake nodes that answer badly.
import { TronWeb } from "tronweb";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { createDevnet, type Devnet } from "../../rails/tron/devnet/mod.ts";
import { signTransactionJson } from "../../rails/tron/devnet/testing.ts";
import { addressFromPrivateKey, privateKeyFromSeed } from "../../rails/tron/protocol/crypto.ts";
import { createTronClient, type TronClient, TronNodeError } from "../../rails/tron/client.ts";
import { isTronAddress, toBase58Address, toHexAddress } from "../../rails/tron/address.ts";
import { extractUsdtTransfers } from "../../rails/tron/transfers.ts";

const bobHex = addressFromPrivateKey(privateKeyFromSeed("tron client test bob"));
const bob = toBase58Address(bobHex);

/** A client whose fetch goes straight into the devnet's Hono app, recording each request. */
async function setup(
  apiKey?: string,
): Promise<{ d: Devnet; client: TronClient; requests: Request[] }> {
  const d = await createDevnet({ blockMs: 0 });
  const requests: Request[] = [];
  const client = createTronClient({
    apiUrl: "http://devnet.test/devnet/",
    apiKey,
    fetch: (input, init) => {
      const req = new Request(input, init);
      requests.push(req.clone());
      return Promise.resolve(d.app.request(req));
    },
  });
  return { d, client, requests };
}

function isKind(kind: TronNodeError["kind"]) {
  return (err: unknown) => {
    assert(err instanceof TronNodeError, `expected TronNodeError, got ${err}`);
    assertEquals(err.kind, kind, err.message);
    return true;
  };
}

Deno.test("client: blocks from the devnet; a block not produced yet is null", async () => {
  const { d, client, requests } = await setup();
  const genesis = await client.getNowBlock();
  assertEquals(genesis.number, 0);
  d.mine(3);
  const head = await client.getNowBlock();
  assertEquals(head.number, 3);
  assertEquals(head.hash, d.chain.head.blockID);
  assert(/^[0-9a-f]{64}$/.test(head.hash) && head.hash.startsWith("0000000000000003"));
  assertEquals(head.txCount, 0);
  const two = await client.getBlockByNumber(2);
  assertEquals(two?.hash, head.parentHash);
  assertEquals(two?.number, 2);
  assert(Number.isSafeInteger(two?.timestamp) && two!.timestamp > 0);
  assertEquals(await client.getBlockByNumber(4), null);
  assertEquals(await client.getBlockByNumber(10_000), null);
  assertEquals(requests[0].url, "http://devnet.test/devnet/wallet/getnowblock");
  assertEquals(requests[0].method, "POST");
  assertEquals(requests[0].headers.get("TRON-PRO-API-KEY"), null);
  assertEquals(await requests.at(-1)!.json(), { num: 10_000 });
  await assertRejects(() => client.getBlockByNumber(-1));
});

Deno.test("client: a range of blocks in one request, linked by parent hash; fewer past the head", async () => {
  const { d, client, requests } = await setup();
  d.mine(120);
  const before = requests.length;
  const range = await client.getBlockRange(3, 103);
  assertEquals(requests.length - before, 1);
  assertEquals(range.map((b) => b.number), Array.from({ length: 100 }, (_, i) => 3 + i));
  assertEquals(range[0].hash, (await client.getBlockByNumber(3))!.hash);
  assertEquals(range[99].hash, d.chain.blocks[102].blockID);
  assertEquals((await client.getBlockRange(118, 125)).map((b) => b.number), [118, 119, 120]);
  assertEquals(await client.getBlockRange(121, 130), []);
  // java-tron answers {} for more than 100 blocks: the client never asks.
  await assertRejects(() => client.getBlockRange(0, 101), (e) => e instanceof RangeError);
  await assertRejects(() => client.getBlockRange(5, 5), (e) => e instanceof RangeError);
  // The devnet answers {} as java-tron's servlet does for a range it does not serve.
  const tooLong = await d.app.request("/devnet/wallet/getblockbylimitnext", {
    method: "POST",
    body: JSON.stringify({ startNum: 0, endNum: 101 }),
  });
  assertEquals(await tooLong.json(), {});
});

Deno.test("client: a block range with a gap or a broken parent link is refused", async () => {
  const block = (n: number, parent: string) => ({
    blockID: n.toString(16).padStart(16, "0") + "ab".repeat(24),
    block_header: { raw_data: { number: n, parentHash: parent, timestamp: 1 } },
  });
  const h = (n: number) => n.toString(16).padStart(16, "0") + "ab".repeat(24);
  const answering = (blocks: unknown[]) => fakeNode(() => json({ block: blocks }));
  assertEquals((await answering([block(5, h(4)), block(6, h(5))]).getBlockRange(5, 7)).length, 2);
  await assertRejects(
    () => answering([block(5, h(4)), block(7, h(6))]).getBlockRange(5, 8),
    isKind("malformed"),
  );
  await assertRejects(() => answering([block(6, h(5))]).getBlockRange(5, 8), isKind("malformed"));
  await assertRejects(
    () => answering([block(5, h(4)), block(6, "cd".repeat(32))]).getBlockRange(5, 7),
    isKind("malformed"),
  );
  await assertRejects(() => fakeNode(() => json({ block: "x" })).getBlockRange(5, 7), isKind("malformed"));
});

Deno.test("client: solid block trails the head by 19", async () => {
  const { d, client } = await setup();
  d.mine(25);
  assertEquals((await client.getSolidBlock()).number, 6);
  assertEquals((await client.getSolidBlock()).hash, (await client.getBlockByNumber(6))!.hash);
});

Deno.test("client + transfers: a block's infos in one request yield exactly its USDT transfer", async () => {
  const { d, client, requests } = await setup("secret-key");
  const txId = d.transferUsdt(bob, 12_500_000n);
  d.transferUsdt(bob, 250_000n);
  d.mine(1);
  const block = await client.getBlockByNumber(1);
  assertEquals(block?.txCount, 2);
  const before = requests.length;
  const infos = await client.getTransactionInfosByBlock(1);
  assertEquals(requests.length, before + 1);
  assertEquals(requests.at(-1)!.headers.get("TRON-PRO-API-KEY"), "secret-key");
  assertEquals(infos.length, 2);
  assertEquals(infos[0].id, txId);
  assertEquals(infos[0].receiptResult, "SUCCESS");
  assertEquals(infos[0].contractAddress, d.usdtContractHex);
  assertEquals(infos[0].logs[0].address, d.usdtContractHex.slice(2));

  const transfers = extractUsdtTransfers(infos, d.usdtContract);
  assertEquals(transfers.length, 2);
  assertEquals(transfers[0], {
    txId,
    logIndex: 0,
    blockNumber: 1,
    fromHex: d.customerHexAddress,
    toHex: bobHex,
    from: d.customerAddress,
    to: bob,
    units: 12_500_000n,
    amount: "12.500000",
  });
  assertEquals(transfers[1].amount, "0.250000");
  // The hex form of the contract works as well.
  assertEquals(extractUsdtTransfers(infos, d.usdtContractHex), transfers);

  assertEquals(await client.getTransactionInfosByBlock(0), []);
  assertEquals(await client.getTransactionInfosByBlock(99), []);
  const byId = await client.getTransactionInfoById(txId);
  assertEquals(byId, infos[0]);
  assertEquals(await client.getTransactionInfoById("ab".repeat(32)), null);
});

Deno.test("client + transfers: REVERT and OUT_OF_ENERGY transfers yield nothing", async () => {
  const { d, client } = await setup();
  const poor = privateKeyFromSeed("tron client test poor");
  const noTrx = privateKeyFromSeed("tron client test no trx");
  d.fund(addressFromPrivateKey(poor), { trx: 100_000_000n, usdt: 1_000_000n });
  d.fund(addressFromPrivateKey(noTrx), { usdt: 50_000_000n });
  const reverted = d.transferUsdt(bob, 2_000_000n, poor);
  const starved = d.transferUsdt(bob, 10_000_000n, noTrx);
  d.mine(1);
  const infos = await client.getTransactionInfosByBlock(1);
  assertEquals(infos.map((i) => [i.id, i.receiptResult, i.result]), [
    [reverted, "REVERT", "FAILED"],
    [starved, "OUT_OF_ENERGY", "FAILED"],
  ]);
  assertEquals(extractUsdtTransfers(infos, d.usdtContract), []);
});

Deno.test("client + transfers: a Transfer log from another contract yields nothing", async () => {
  const { d, client } = await setup();
  d.transferUsdt(bob, 3_000_000n);
  d.mine(1);
  const infos = await client.getTransactionInfosByBlock(1);
  assertEquals(extractUsdtTransfers(infos, d.usdtContract).length, 1);
  const otherToken = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf";
  assertEquals(extractUsdtTransfers(infos, otherToken), []);
  const forged = infos.map((i) => ({
    ...i,
    logs: i.logs.map((l) => ({ ...l, address: toHexAddress(otherToken).slice(2) })),
  }));
  assertEquals(extractUsdtTransfers(forged, d.usdtContract), []);
});

Deno.test("client: balances, account, TRC20 transfer built by the node, signed and broadcast", async () => {
  const { d, client } = await setup();
  assertEquals(await client.getUsdtBalance(d.usdtContract, bob), 0n);
  assertEquals(await client.getTrxBalance(bob), 0n);
  assertEquals(await client.getAccount(bob), null);
  assertEquals(await client.getTrxBalance(d.customerAddress), 1_000_000_000_000n);
  assertEquals(await client.getUsdtBalance(d.usdtContract, d.customerAddress), 1_000_000_000_000_000n);

  const unsigned = await client.buildTrc20Transfer(
    d.usdtContract,
    d.customerAddress,
    bob,
    7_000_000n,
    100_000_000,
  );
  assert(/^[0-9a-f]{64}$/.test(unsigned.txID));
  const signed = signTransactionJson(unsigned, d.customerPrivateKey);
  const sent = await client.broadcastTransaction(signed);
  assertEquals(sent, { result: true, txid: unsigned.txID });
  const dup = await client.broadcastTransaction(signed);
  assertEquals(dup.result, false);
  assertEquals(dup.code, "DUP_TRANSACTION_ERROR");
  assert(dup.message && !/^[0-9a-f]+$/.test(dup.message), dup.message);
  const forged = await client.broadcastTransaction(
    signTransactionJson(
      await client.buildTrc20Transfer(d.usdtContract, d.customerAddress, bob, 1n, 100_000_000),
      privateKeyFromSeed("thief"),
    ),
  );
  assertEquals(forged.code, "SIGERROR");
  assertEquals(await client.getTransactionInfoById(unsigned.txID), null);
  d.mine(1);
  assertEquals((await client.getTransactionInfoById(unsigned.txID))?.blockNumber, 1);
  assertEquals(await client.getUsdtBalance(d.usdtContract, bob), 7_000_000n);
  assertEquals(await client.getUsdtBalance(d.usdtContract, bob, { solid: true }), 0n);
  const account = await client.getAccount(d.customerAddress);
  assertEquals(account?.address, d.customerHexAddress);
  assert(account!.balance < 1_000_000_000_000n);

  const constant = await client.triggerConstantContract({
    ownerAddress: bob,
    contractAddress: d.usdtContract,
    functionSelector: "decimals()",
    parameter: "",
  });
  assertEquals(BigInt("0x" + constant.constantResult[0]), 6n);
  // A call to something that is not a contract: the node says no.
  await assertRejects(() => client.getUsdtBalance(bob, bob), isKind("node"));
});

// ---- fake nodes ----------------------------------------------------------------------------

function fakeNode(answer: (method: string, body: unknown) => Response | Promise<Response>): TronClient {
  return createTronClient({
    apiUrl: "http://fake.test",
    timeoutMs: 200,
    fetch: async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      return await answer(url.pathname.slice(1), init?.body ? JSON.parse(String(init.body)) : undefined);
    },
  });
}
const json = (value: unknown, status = 200) =>
  new Response(typeof value === "string" ? value : JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json" },
  });

const goodBlock = {
  blockID: "0000000000000005" + "ab".repeat(24),
  block_header: { raw_data: { number: 5, parentHash: "0000000000000004" + "cd".repeat(24), timestamp: 1 } },
};

Deno.test("client: malformed and hostile answers throw TronNodeError(malformed)", async () => {
  const cases: [string, unknown][] = [
    ["garbage JSON", "{not json"],
    ["HTML", "<html><body>502 Bad Gateway</body></html>"],
    ["empty body", ""],
    ["null", "null"],
    ["array for a block", [goodBlock]],
    ["number as string", {
      ...goodBlock,
      block_header: { raw_data: { ...goodBlock.block_header.raw_data, number: "5" } },
    }],
    ["fractional number", {
      ...goodBlock,
      block_header: { raw_data: { ...goodBlock.block_header.raw_data, number: 5.5 } },
    }],
    ["negative timestamp", {
      ...goodBlock,
      block_header: { raw_data: { ...goodBlock.block_header.raw_data, timestamp: -1 } },
    }],
    ["non-hex blockID", { ...goodBlock, blockID: "zz".repeat(32) }],
    ["short parentHash", {
      ...goodBlock,
      block_header: { raw_data: { ...goodBlock.block_header.raw_data, parentHash: "00" } },
    }],
    ["blockID of another number", { ...goodBlock, blockID: "0000000000000009" + "ab".repeat(24) }],
    ["missing header", { blockID: goodBlock.blockID }],
  ];
  for (const [name, body] of cases) {
    const client = fakeNode(() => json(body as string));
    await assertRejects(() => client.getNowBlock(), (err) => {
      assert(err instanceof TronNodeError, `${name}: ${err}`);
      assertEquals(err.kind, "malformed", `${name}: ${err.message}`);
      return true;
    });
  }
  assertEquals((await fakeNode(() => json(goodBlock)).getNowBlock()).number, 5);
  // Asked for block 4, answered block 5.
  await assertRejects(() => fakeNode(() => json(goodBlock)).getBlockByNumber(4), isKind("malformed"));

  const info = {
    id: "11".repeat(32),
    blockNumber: 5,
    blockTimeStamp: 1000,
    receipt: { result: "SUCCESS" },
    log: [{ address: "a614f803b6fd780986a42c78ec9c7f77e6ded13c", topics: ["dd".repeat(32)], data: "00" }],
  };
  const infoCases: [string, unknown][] = [
    ["object instead of array", { not: "an array" }],
    ["info of another block", [{ ...info, blockNumber: 6 }]],
    ["non-hex id", [{ ...info, id: "xyz" }]],
    ["blockNumber as string", [{ ...info, blockNumber: "5" }]],
    ["logs not an array", [{ ...info, log: "nope" }]],
    ["non-hex log data", [{ ...info, log: [{ ...info.log[0], data: "0xzz" }] }]],
    ["topic not a string", [{ ...info, log: [{ ...info.log[0], topics: [1] }] }]],
    [
      "unsafe integer",
      `[{"id":"${"11".repeat(32)}","blockNumber":5,"blockTimeStamp":123456789012345678901}]`,
    ],
  ];
  for (const [name, body] of infoCases) {
    await assertRejects(() => fakeNode(() => json(body as string)).getTransactionInfosByBlock(5), (err) => {
      assert(err instanceof TronNodeError, `${name}: ${err}`);
      assertEquals(err.kind, "malformed", `${name}: ${err.message}`);
      return true;
    });
  }
  assertEquals((await fakeNode(() => json([info])).getTransactionInfosByBlock(5)).length, 1);
  await assertRejects(
    () => fakeNode(() => json({ ...info, id: "22".repeat(32) })).getTransactionInfoById("11".repeat(32)),
    isKind("malformed"),
  );
  // A balance word that is not 32 bytes.
  await assertRejects(
    () =>
      fakeNode(() => json({ result: { result: true }, constant_result: ["01"] })).getUsdtBalance(
        "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
        bob,
      ),
    isKind("malformed"),
  );
  // A broadcast answer that says neither yes nor why not.
  await assertRejects(() => fakeNode(() => json({})).broadcastTransaction({}), isKind("malformed"));
});

Deno.test("client: balances above 2^53 sun stay exact; an account answer for someone else is refused", async () => {
  const big = `{"address":"${bobHex}","balance":12345678901234567891,"create_time":1}`;
  assertEquals(await fakeNode(() => json(big)).getTrxBalance(bob), 12345678901234567891n);
  assertEquals(await fakeNode(() => json({ address: bobHex })).getTrxBalance(bob), 0n);
  await assertRejects(
    () => fakeNode(() => json({ address: d0, balance: 5 })).getAccount(bob),
    isKind("malformed"),
  );
  await assertRejects(
    () => fakeNode(() => json({ address: bobHex, balance: -5 })).getAccount(bob),
    isKind("malformed"),
  );
  await assertRejects(
    () => fakeNode(() => json({ address: bobHex, balance: 1.5 })).getAccount(bob),
    isKind("malformed"),
  );
});
const d0 = "41" + "00".repeat(20);

Deno.test("client: a node that builds a different transaction than asked is refused", async () => {
  const { d } = await setup();
  const honest = createTronClient({
    apiUrl: "http://x/devnet",
    fetch: (i, init) => Promise.resolve(d.app.request(new Request(i, init))),
  });
  const real = await honest.buildTrc20Transfer(d.usdtContract, d.customerAddress, bob, 5n, 100_000_000);
  const thief = addressFromPrivateKey(privateKeyFromSeed("thief"));
  // The node swaps the recipient but keeps a consistent txID.
  const swapped = await honest.buildTrc20Transfer(d.usdtContract, d.customerAddress, thief, 5n, 100_000_000);
  const client = fakeNode(() => json({ result: { result: true }, transaction: swapped }));
  await assertRejects(
    () => client.buildTrc20Transfer(d.usdtContract, d.customerAddress, bob, 5n, 100_000_000),
    isKind("malformed"),
  );
  // A txID that is not the hash of raw_data_hex.
  const lying = fakeNode(() =>
    json({ result: { result: true }, transaction: { ...real, txID: "00".repeat(32) } })
  );
  await assertRejects(
    () => lying.buildTrc20Transfer(d.usdtContract, d.customerAddress, bob, 5n, 100_000_000),
    isKind("malformed"),
  );
});

Deno.test("client: HTTP errors, java-tron Error answers and timeouts", async () => {
  await assertRejects(() => fakeNode(() => json({ Error: "boom" }, 500)).getNowBlock(), (err) => {
    assert(err instanceof TronNodeError && err.kind === "http" && err.status === 500);
    return true;
  });
  await assertRejects(
    () => fakeNode(() => new Response("Too Many Requests", { status: 429 })).getNowBlock(),
    isKind("http"),
  );
  await assertRejects(
    () => fakeNode(() => json({ Error: "class java.lang.IllegalArgumentException : bad" })).getNowBlock(),
    isKind("node"),
  );
  await assertRejects(
    () => fakeNode(() => Promise.reject(new TypeError("connection refused"))).getNowBlock(),
    isKind("http"),
  );
  // A node that never answers: the client gives up after timeoutMs (200 ms here).
  const started = performance.now();
  const hanging = createTronClient({
    apiUrl: "http://fake.test",
    timeoutMs: 200,
    fetch: (_input, init) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason));
      }),
  });
  await assertRejects(() => hanging.getNowBlock(), isKind("timeout"));
  assert(performance.now() - started < 2000);
  // A node that sends headers, then stalls in the body.
  const stalling = createTronClient({
    apiUrl: "http://fake.test",
    timeoutMs: 200,
    fetch: (_input, init) => {
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("{"));
          init?.signal?.addEventListener("abort", () => controller.error(init.signal!.reason));
        },
      });
      return Promise.resolve(new Response(body, { status: 200 }));
    },
  });
  await assertRejects(() => stalling.getNowBlock(), isKind("timeout"));
});

Deno.test("client: real HTTP to a served devnet, with the API key header", async () => {
  const d = await createDevnet({ blockMs: 0 });
  const seen: (string | null)[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req) => {
    seen.push(req.headers.get("TRON-PRO-API-KEY"));
    return d.app.fetch(req);
  });
  try {
    const client = createTronClient({
      apiUrl: `http://127.0.0.1:${server.addr.port}/devnet`,
      apiKey: "k-123",
    });
    d.mine(2);
    assertEquals((await client.getNowBlock()).number, 2);
    assertEquals(seen, ["k-123"]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("address: isTronAddress agrees with TronWeb.isAddress", () => {
  const valid = [
    "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf",
    bob,
    toBase58Address("41" + "00".repeat(20)),
  ];
  const invalid = [
    "",
    "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u", // checksum
    "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6", // too short
    "tR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    "1BoatSLRHtKNngkdXEeobR76b53LETtpyT", // bitcoin-style, 0x00 prefix
    "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t ",
    "41a614f803b6fd780986a42c78ec9c7f77e6ded13c", // hex is not what a customer types
    "T0000000000000000000000000000000000",
  ];
  for (const a of valid) {
    assert(isTronAddress(a), a);
    assert(TronWeb.isAddress(a), a);
    assertEquals(toBase58Address(toHexAddress(a)), a);
  }
  for (const a of invalid) {
    assert(!isTronAddress(a), a);
    if (!a.startsWith("41")) assert(!TronWeb.isAddress(a), a);
  }
  assertEquals(
    toHexAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"),
    "41a614f803b6fd780986a42c78ec9c7f77e6ded13c",
  );
});
