// TRON transactions: the in-memory model, its protobuf encoding (Transaction.raw is what
// the txID hashes and the signature signs) and the JSON shapes a java-tron node prints.
import { fromHex, type HexAddress, sha256, toBase58Address, toHex, toHexAddress } from "./crypto.ts";
import { allBytes, firstBytes, firstInt, ProtoWriter, readFields } from "./protobuf.ts";
import {
  decodeResourceValue,
  encodeResourceValue,
  isResourceCall,
  RESOURCE_CONTRACT_IDS,
  type ResourceCall,
  resourceCallFromJson,
  resourceValueJson,
} from "./resource_contracts.ts";

const CONTRACT_TYPE_IDS = {
  TransferContract: 1,
  TriggerSmartContract: 31,
  ...RESOURCE_CONTRACT_IDS,
} as const;
export type ContractType = keyof typeof CONTRACT_TYPE_IDS;

export interface TransferValue {
  owner_address: HexAddress;
  to_address: HexAddress;
  amount: bigint;
}

export interface TriggerValue {
  owner_address: HexAddress;
  contract_address: HexAddress;
  call_value: bigint;
  /** ABI call data, hex without 0x. */
  data: string;
  call_token_value: bigint;
  token_id: bigint;
}

export type ContractCall =
  | { type: "TransferContract"; value: TransferValue }
  | { type: "TriggerSmartContract"; value: TriggerValue }
  | ResourceCall;

export interface RawTransaction {
  refBlockBytes: string;
  refBlockHash: string;
  expiration: number;
  timestamp: number;
  feeLimit: bigint;
  /** Memo bytes, hex. */
  data: string;
  contract: ContractCall;
  permissionId: number;
}

export interface SignedTransaction {
  txID: string;
  raw: RawTransaction;
  rawBytes: Uint8Array;
  signatures: string[];
}

export type Json = Record<string, unknown>;

function encodeContractValue(call: ContractCall): Uint8Array {
  if (isResourceCall(call)) return encodeResourceValue(call);
  const w = new ProtoWriter();
  if (call.type === "TransferContract") {
    const v = call.value;
    return w.bytes(1, fromHex(v.owner_address)).bytes(2, fromHex(v.to_address)).int(3, v.amount).finish();
  }
  const v = call.value;
  return w.bytes(1, fromHex(v.owner_address)).bytes(2, fromHex(v.contract_address)).int(3, v.call_value)
    .bytes(4, fromHex(v.data)).int(5, v.call_token_value).int(6, v.token_id).finish();
}

export function encodeRaw(raw: RawTransaction): Uint8Array {
  const any = new ProtoWriter().string(1, `type.googleapis.com/protocol.${raw.contract.type}`)
    .bytes(2, encodeContractValue(raw.contract)).finish();
  const contract = new ProtoWriter().int(1, CONTRACT_TYPE_IDS[raw.contract.type]).message(2, any)
    .int(5, raw.permissionId).finish();
  return new ProtoWriter().bytes(1, fromHex(raw.refBlockBytes)).bytes(4, fromHex(raw.refBlockHash))
    .int(8, raw.expiration).bytes(10, fromHex(raw.data)).message(11, contract).int(14, raw.timestamp)
    .int(18, raw.feeLimit).finish();
}

export function decodeRaw(bytes: Uint8Array): RawTransaction {
  const f = readFields(bytes);
  const contracts = allBytes(f, 11);
  if (contracts.length !== 1) throw new Error("a transaction must carry exactly one contract");
  const c = readFields(contracts[0]);
  const typeId = Number(firstInt(c, 1));
  const any = readFields(firstBytes(c, 2));
  const value = readFields(firstBytes(any, 2));
  const addr = (n: number) => toHex(firstBytes(value, n));
  let contract: ContractCall;
  if (typeId === CONTRACT_TYPE_IDS.TransferContract) {
    contract = {
      type: "TransferContract",
      value: { owner_address: addr(1), to_address: addr(2), amount: firstInt(value, 3) },
    };
  } else if (typeId === CONTRACT_TYPE_IDS.TriggerSmartContract) {
    contract = {
      type: "TriggerSmartContract",
      value: {
        owner_address: addr(1),
        contract_address: addr(2),
        call_value: firstInt(value, 3),
        data: toHex(firstBytes(value, 4)),
        call_token_value: firstInt(value, 5),
        token_id: firstInt(value, 6),
      },
    };
  } else {
    const resourceCall = decodeResourceValue(typeId, value);
    if (!resourceCall) throw new Error(`contract type ${typeId} is not supported by the devnet`);
    contract = resourceCall;
  }
  return {
    refBlockBytes: toHex(firstBytes(f, 1)),
    refBlockHash: toHex(firstBytes(f, 4)),
    expiration: Number(firstInt(f, 8)),
    data: toHex(firstBytes(f, 10)),
    contract,
    permissionId: Number(firstInt(c, 5)),
    timestamp: Number(firstInt(f, 14)),
    feeLimit: firstInt(f, 18),
  };
}

export function txIdOf(rawBytes: Uint8Array): string {
  return toHex(sha256(rawBytes));
}

export function makeSigned(raw: RawTransaction, signatures: string[] = []): SignedTransaction {
  const rawBytes = encodeRaw(raw);
  return { txID: txIdOf(rawBytes), raw, rawBytes, signatures };
}

/** Full Transaction message: raw_data = 1, signature = 2, ret = 5 (Result.contractRet = 3). */
export function encodeTransaction(
  rawBytes: Uint8Array,
  signatures: string[],
  contractRet?: number,
): Uint8Array {
  const w = new ProtoWriter().message(1, rawBytes);
  for (const sig of signatures) w.bytes(2, fromHex(sig));
  if (contractRet !== undefined) w.message(5, new ProtoWriter().int(3, contractRet).finish());
  return w.finish();
}

export function decodeTransaction(bytes: Uint8Array): SignedTransaction {
  const f = readFields(bytes);
  const rawBytes = firstBytes(f, 1);
  return {
    txID: txIdOf(rawBytes),
    raw: decodeRaw(rawBytes),
    rawBytes,
    signatures: allBytes(f, 2).map(toHex),
  };
}

const addressOut = (hex: HexAddress, visible: boolean) => visible ? toBase58Address(hex) : hex;

function contractValueJson(call: ContractCall, visible: boolean): Json {
  if (isResourceCall(call)) return resourceValueJson(call, visible);
  if (call.type === "TransferContract") {
    const v = call.value;
    return {
      amount: Number(v.amount),
      owner_address: addressOut(v.owner_address, visible),
      to_address: addressOut(v.to_address, visible),
    };
  }
  const v = call.value;
  const out: Json = {
    data: v.data,
    owner_address: addressOut(v.owner_address, visible),
    contract_address: addressOut(v.contract_address, visible),
  };
  if (v.call_value !== 0n) out.call_value = Number(v.call_value);
  if (v.call_token_value !== 0n) out.call_token_value = Number(v.call_token_value);
  if (v.token_id !== 0n) out.token_id = Number(v.token_id);
  return out;
}

export function rawToJson(raw: RawTransaction, visible: boolean): Json {
  const contract: Json = {
    parameter: {
      value: contractValueJson(raw.contract, visible),
      type_url: `type.googleapis.com/protocol.${raw.contract.type}`,
    },
    type: raw.contract.type,
  };
  if (raw.permissionId) contract.Permission_id = raw.permissionId;
  const out: Json = {
    contract: [contract],
    ref_block_bytes: raw.refBlockBytes,
    ref_block_hash: raw.refBlockHash,
    expiration: raw.expiration,
  };
  if (raw.data) out.data = raw.data;
  if (raw.feeLimit !== 0n) out.fee_limit = Number(raw.feeLimit);
  out.timestamp = raw.timestamp;
  return out;
}

/** The transaction as wallet/gettransactionbyid and blocks print it. */
export function txToJson(tx: SignedTransaction, visible: boolean, contractRet?: string): Json {
  const out: Json = {};
  if (contractRet) out.ret = [{ contractRet }];
  if (tx.signatures.length) out.signature = tx.signatures;
  out.txID = tx.txID;
  out.raw_data = rawToJson(tx.raw, visible);
  out.raw_data_hex = toHex(tx.rawBytes);
  return out;
}

const int = (v: unknown): bigint => (v === undefined || v === null || v === "" ? 0n : BigInt(String(v)));
const hexOrUtf8 = (v: unknown): string => {
  if (typeof v !== "string" || v === "") return "";
  const s = v.replace(/^0x/, "");
  return /^([0-9a-fA-F]{2})*$/.test(s) ? s.toLowerCase() : toHex(new TextEncoder().encode(v));
};

/** Parses a raw_data JSON as java-tron's JsonFormat does (addresses in either form). */
export function rawFromJson(json: Json): RawTransaction {
  const contracts = json.contract as Json[] | undefined;
  if (!Array.isArray(contracts) || contracts.length !== 1) {
    throw new Error("raw_data.contract must hold one contract");
  }
  const c = contracts[0];
  const type = c.type as string;
  const value = ((c.parameter as Json | undefined)?.value ?? {}) as Json;
  const addr = (k: string) => toHexAddress(String(value[k] ?? ""));
  let contract: ContractCall;
  if (type === "TransferContract") {
    contract = {
      type,
      value: {
        owner_address: addr("owner_address"),
        to_address: addr("to_address"),
        amount: int(value.amount),
      },
    };
  } else if (type === "TriggerSmartContract") {
    contract = {
      type,
      value: {
        owner_address: addr("owner_address"),
        contract_address: addr("contract_address"),
        call_value: int(value.call_value),
        data: hexOrUtf8(value.data),
        call_token_value: int(value.call_token_value),
        token_id: int(value.token_id),
      },
    };
  } else {
    const resourceCall = resourceCallFromJson(type, value);
    if (!resourceCall) throw new Error(`contract type ${type} is not supported by the devnet`);
    contract = resourceCall;
  }
  return {
    refBlockBytes: hexOrUtf8(json.ref_block_bytes),
    refBlockHash: hexOrUtf8(json.ref_block_hash),
    expiration: Number(int(json.expiration)),
    timestamp: Number(int(json.timestamp)),
    feeLimit: int(json.fee_limit),
    data: hexOrUtf8(json.data),
    contract,
    permissionId: Number(int(c.Permission_id)),
  };
}

export function ownerOf(raw: RawTransaction): HexAddress {
  return raw.contract.value.owner_address;
}
