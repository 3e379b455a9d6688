// Blocks as java-tron builds them: BlockHeader.raw protobuf, blockID = 8-byte big-endian
// number + the last 24 bytes of sha256(raw header), txTrieRoot = merkle root of sha256(tx).
import {
  concatBytes,
  fromHex,
  type HexAddress,
  sha256,
  signHash,
  toBase58Address,
  toHex,
} from "../protocol/crypto.ts";
import type { ContractRet } from "./executor.ts";
import { ProtoWriter } from "../protocol/protobuf.ts";
import type { AccountChange } from "./state.ts";
import { encodeTransaction, type Json, type SignedTransaction, txToJson } from "../protocol/transaction.ts";

export const BLOCK_VERSION = 31;

/** Transaction.Result.contractResult enum values. */
const CONTRACT_RET_IDS: Record<ContractRet, number> = { SUCCESS: 1, REVERT: 2, OUT_OF_ENERGY: 10 };

export interface IncludedTx {
  tx: SignedTransaction;
  contractRet: ContractRet;
  /** Complete transaction info as wallet/gettransactioninfobyid prints it (hex addresses). */
  info: Json;
}

export interface Block {
  number: number;
  blockID: string;
  parentHash: string;
  timestamp: number;
  txTrieRoot: string;
  witnessAddress: HexAddress;
  /** Empty for the genesis block, which nobody signs. */
  witnessSignature: string;
  txs: IncludedTx[];
  changes: AccountChange[];
}

function merkleRoot(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return new Uint8Array(32);
  let level = leaves;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      next.push(i + 1 < level.length ? sha256(concatBytes(level[i], level[i + 1])) : level[i]);
    }
    level = next;
  }
  return level[0];
}

export function txTrieRootOf(txs: IncludedTx[]): string {
  const leaves = txs.map((t) =>
    sha256(encodeTransaction(t.tx.rawBytes, t.tx.signatures, CONTRACT_RET_IDS[t.contractRet]))
  );
  return toHex(merkleRoot(leaves));
}

function headerRawBytes(
  b: Pick<Block, "number" | "parentHash" | "timestamp" | "txTrieRoot" | "witnessAddress">,
): Uint8Array {
  return new ProtoWriter().int(1, b.timestamp).bytes(2, fromHex(b.txTrieRoot)).bytes(3, fromHex(b.parentHash))
    .int(7, b.number).bytes(9, fromHex(b.witnessAddress)).int(10, BLOCK_VERSION).finish();
}

export function blockIdOf(number: number, rawHash: Uint8Array): string {
  return BigInt(number).toString(16).padStart(16, "0") + toHex(rawHash.slice(8));
}

export interface SealInput {
  number: number;
  parentHash: string;
  timestamp: number;
  txs: IncludedTx[];
  changes: AccountChange[];
  witnessAddress: HexAddress;
  /** Absent for genesis. */
  witnessKey?: string;
}

export function sealBlock(input: SealInput): Block {
  const txTrieRoot = txTrieRootOf(input.txs);
  const header = { ...input, txTrieRoot };
  const rawHash = sha256(headerRawBytes(header));
  const blockID = blockIdOf(input.number, rawHash);
  const witnessSignature = input.witnessKey ? signHash(rawHash, input.witnessKey) : "";
  for (const t of input.txs) {
    t.info.blockNumber = input.number;
    t.info.blockTimeStamp = input.timestamp;
  }
  return {
    number: input.number,
    blockID,
    parentHash: input.parentHash,
    timestamp: input.timestamp,
    txTrieRoot,
    witnessAddress: input.witnessAddress,
    witnessSignature,
    txs: input.txs,
    changes: input.changes,
  };
}

/** The block as wallet/getnowblock and wallet/getblockbynum print it. */
export function blockToJson(block: Block, visible: boolean, detail = true): Json {
  const rawData: Json = {};
  if (block.number !== 0) rawData.number = block.number;
  rawData.txTrieRoot = block.txTrieRoot;
  rawData.witness_address = visible ? toBase58Address(block.witnessAddress) : block.witnessAddress;
  rawData.parentHash = block.parentHash;
  rawData.version = BLOCK_VERSION;
  rawData.timestamp = block.timestamp;
  const header: Json = { raw_data: rawData };
  if (block.witnessSignature) header.witness_signature = block.witnessSignature;
  const out: Json = { blockID: block.blockID, block_header: header };
  if (detail && block.txs.length) {
    out.transactions = block.txs.map((t) => txToJson(t.tx, visible, t.contractRet));
  }
  return JSON.parse(JSON.stringify(out));
}

/** Orders info fields as java-tron prints them. */
export function orderedInfo(info: Json, visible: boolean): Json {
  const keys = [
    "id",
    "fee",
    "blockNumber",
    "blockTimeStamp",
    "contractResult",
    "contract_address",
    "receipt",
    "log",
  ];
  const out: Json = {};
  for (const k of keys) if (info[k] !== undefined) out[k] = info[k];
  if (visible && typeof out.contract_address === "string") {
    out.contract_address = toBase58Address(out.contract_address);
  }
  // With visible=true java-tron also rewrites log addresses (20 bytes) to base58 with the 41 prefix.
  if (visible && Array.isArray(out.log)) {
    out.log = (out.log as Json[]).map((l) => ({ ...l, address: toBase58Address("41" + String(l.address)) }));
  }
  for (const k of Object.keys(info)) if (!(k in out)) out[k] = info[k];
  return out;
}
