// extractUsdtTransfers on hand-made transaction infos: only real transfers count, bad logs are skipped.
import { assertEquals } from "../assert.ts";
import { extractUsdtTransfers, formatUsdt, TRANSFER_TOPIC } from "../../rails/tron/transfers.ts";
import type { TxInfo } from "../../rails/tron/client.ts";
import { keccak256, toBase58Address, toHex } from "../../rails/tron/protocol/crypto.ts";

const USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const USDT20 = "a614f803b6fd780986a42c78ec9c7f77e6ded13c";
const FROM = "41" + "11".repeat(20);
const TO = "41" + "22".repeat(20);
const word = (hex: string) => hex.padStart(64, "0");
const units = (n: bigint) => word(n.toString(16));

function log(over: Partial<{ address: string; topics: string[]; data: string }> = {}) {
  return {
    address: USDT20,
    topics: [TRANSFER_TOPIC, word(FROM.slice(2)), word(TO.slice(2))],
    data: units(1_000_000n),
    ...over,
  };
}

function info(logs: unknown[], over: Partial<TxInfo> = {}): TxInfo {
  return {
    id: "ab".repeat(32),
    blockNumber: 7,
    blockTimeStamp: 1_700_000_000_000,
    contractAddress: "41" + USDT20,
    receiptResult: "SUCCESS",
    logs: logs as TxInfo["logs"],
    ...over,
  };
}

Deno.test("transfers: the topic is keccak(Transfer(address,address,uint256))", () => {
  assertEquals(
    TRANSFER_TOPIC,
    toHex(keccak256(new TextEncoder().encode("Transfer(address,address,uint256)"))),
  );
});

Deno.test("transfers: one good log gives one transfer with both address forms and a 6-digit amount", () => {
  assertEquals(extractUsdtTransfers([info([log()])], USDT), [{
    txId: "ab".repeat(32),
    logIndex: 0,
    blockNumber: 7,
    fromHex: FROM,
    toHex: TO,
    from: toBase58Address(FROM),
    to: toBase58Address(TO),
    units: 1_000_000n,
    amount: "1.000000",
  }]);
});

Deno.test("transfers: only SUCCESS transactions count", () => {
  for (
    const over of [
      { receiptResult: "REVERT", result: "FAILED" },
      { receiptResult: "OUT_OF_ENERGY", result: "FAILED" },
      { receiptResult: "SUCCESS", result: "FAILED" },
      { receiptResult: undefined },
      { receiptResult: "success" },
    ]
  ) {
    assertEquals(extractUsdtTransfers([info([log()], over)], USDT), [], JSON.stringify(over));
  }
});

Deno.test("transfers: bad, foreign or odd logs are skipped one by one; logIndex stays the log's index", () => {
  const good = log({ data: units(12_500_000n) });
  const logs: unknown[] = [
    log({ address: "b614f803b6fd780986a42c78ec9c7f77e6ded13c" }), // another contract
    log({ data: units(0n) }), // zero amount
    log({ topics: [TRANSFER_TOPIC, word(FROM.slice(2))] }), // 2 topics
    log({ topics: [...log().topics, word("01")] }), // 4 topics
    log({
      topics: ["8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925", ...log().topics.slice(1)],
    }),
    log({ data: "" }), // no data
    log({ data: units(1n) + "00" }), // 33 bytes
    log({ data: "zz".repeat(32) }), // not hex
    log({ topics: [TRANSFER_TOPIC, "ff".repeat(32), word(TO.slice(2))] }), // not an address word
    null,
    "a string",
    { address: 42, topics: "x", data: null },
    { address: USDT20, topics: [TRANSFER_TOPIC, 1, 2], data: units(1n) },
    good, // index 13
    log({ address: "41" + USDT20, data: units(1n) }), // 41-prefixed emitter is accepted, index 14
    log({ address: USDT20.toUpperCase(), data: units(2n) }), // upper-case hex, index 15
  ];
  const out = extractUsdtTransfers([info(logs)], USDT);
  assertEquals(out.map((t) => [t.logIndex, t.units, t.amount]), [
    [13, 12_500_000n, "12.500000"],
    [14, 1n, "0.000001"],
    [15, 2n, "0.000002"],
  ]);
});

Deno.test("transfers: several infos keep their order; the contract may be given in hex", () => {
  const infos = [
    info([log({ data: units(5n) })], { id: "01".repeat(32) }),
    info([], { id: "02".repeat(32) }),
    info([log({ data: units(6n) }), log({ data: units(7n) })], { id: "03".repeat(32), blockNumber: 8 }),
    info([log()], { id: "not hex" }),
  ];
  const out = extractUsdtTransfers(infos, "41" + USDT20);
  assertEquals(out.map((t) => [t.txId.slice(0, 2), t.logIndex, t.blockNumber, t.units]), [
    ["01", 0, 7, 5n],
    ["03", 0, 8, 6n],
    ["03", 1, 8, 7n],
  ]);
  assertEquals(extractUsdtTransfers([], USDT), []);
});

Deno.test("transfers: amounts format exactly, up to uint256", () => {
  assertEquals(formatUsdt(1n), "0.000001");
  assertEquals(formatUsdt(12_500_000n), "12.500000");
  assertEquals(formatUsdt(1_000_000_000_000_000n), "1000000000.000000");
  const max = (1n << 256n) - 1n;
  const [out] = extractUsdtTransfers([info([log({ data: units(max) })])], USDT);
  assertEquals(out.units, max);
  assertEquals(out.amount, `${max / 1_000_000n}.${(max % 1_000_000n).toString().padStart(6, "0")}`);
});
