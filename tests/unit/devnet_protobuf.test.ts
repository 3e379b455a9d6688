// The devnet's own protobuf encoder against tronweb's google-protobuf one: same bytes, same txID.
import { TronWeb } from "tronweb";
import { assertEquals } from "../assert.ts";
import {
  decodeRaw,
  encodeRaw,
  rawFromJson,
  rawToJson,
  txIdOf,
} from "../../rails/tron/protocol/transaction.ts";
import { toHex } from "../../rails/tron/protocol/crypto.ts";

const tronWeb = new TronWeb({ fullHost: "http://127.0.0.1:1" });
const owner = "414e6f9c68df8d3dbf2753621b3be64eb59919dd86";
const other = "41a48d1a31bd5c301ee609babb7bae4a4442d159ea";

const cases: Record<string, unknown>[] = [
  {
    contract: [{
      parameter: {
        value: { amount: 1_234_567, owner_address: owner, to_address: other },
        type_url: "type.googleapis.com/protocol.TransferContract",
      },
      type: "TransferContract",
      Permission_id: 2,
    }],
    ref_block_bytes: "0a1b",
    ref_block_hash: "0123456789abcdef",
    expiration: 1_700_000_060_000,
    data: "6d656d6f",
    timestamp: 1_700_000_000_000,
  },
  {
    contract: [{
      parameter: {
        value: {
          data:
            "a9059cbb000000000000000000000000a48d1a31bd5c301ee609babb7bae4a4442d159ea00000000000000000000000000000000000000000000000000000000000f4240",
          owner_address: owner,
          contract_address: "41a614f803b6fd780986a42c78ec9c7f77e6ded13c",
          call_value: 5,
        },
        type_url: "type.googleapis.com/protocol.TriggerSmartContract",
      },
      type: "TriggerSmartContract",
    }],
    ref_block_bytes: "ffff",
    ref_block_hash: "fedcba9876543210",
    expiration: 1_800_000_060_000,
    fee_limit: 15_000_000_000,
    timestamp: 1_800_000_000_000,
  },
];

Deno.test("Transaction.raw encoding matches tronweb's protobuf byte for byte", () => {
  for (const rawData of cases) {
    const ours = encodeRaw(rawFromJson(rawData));
    const pb = tronWeb.utils.transaction.txJsonToPb({ raw_data: rawData, visible: false });
    const theirs = toHex(pb.getRawData().serializeBinary());
    assertEquals(toHex(ours), theirs);
    assertEquals(txIdOf(ours), tronWeb.utils.transaction.txPbToTxID(pb).replace(/^0x/, ""));
    // And back: decoding the bytes yields the same JSON.
    assertEquals(rawToJson(decodeRaw(ours), false), rawData);
  }
});
