// The shapes a java-tron node answers with: zod schemas that check every answer before use, and the
// plain types the client hands out once an answer has passed them.
import { z } from "zod";

export interface TronBlock {
  number: number;
  /** blockID, 64 lower-case hex characters (its first 8 bytes are the number). */
  hash: string;
  parentHash: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  txCount: number;
  /** The block's transaction ids, lower-case hex, in block order. */
  txIds: string[];
}

export interface TxLog {
  /** Emitting contract, lower-case hex as the node prints it (20 bytes, usually without the 41 prefix). */
  address: string;
  topics: string[];
  data: string;
}

export interface TxInfo {
  id: string;
  blockNumber: number;
  blockTimeStamp: number;
  /** 41-prefixed lower-case hex. */
  contractAddress?: string;
  /** receipt.result: SUCCESS, REVERT, OUT_OF_ENERGY...; absent for plain TRX transfers. */
  receiptResult?: string;
  /** TRX burned by the transaction, in sun (bandwidth, energy, account creation); 0 when absent. */
  feeSun?: number;
  /** "FAILED" when the transaction failed; absent otherwise. */
  result?: string;
  logs: TxLog[];
}

export interface BroadcastResult {
  result: boolean;
  code?: string;
  /** Decoded from the node's hex when it is hex. */
  message?: string;
  txid?: string;
}

export interface UnsignedTransaction {
  txID: string;
  raw_data: Record<string, unknown>;
  raw_data_hex: string;
  visible?: boolean;
  [key: string]: unknown;
}

export interface TriggerParams {
  /** Base58 or hex. */
  ownerAddress: string;
  contractAddress: string;
  /** e.g. "transfer(address,uint256)". */
  functionSelector: string;
  /** ABI-encoded arguments, hex without 0x. */
  parameter: string;
  /** Sun; required for state-changing calls. */
  feeLimit?: number;
  callValue?: number;
}

export interface ConstantResult {
  constantResult: string[];
  energyUsed: number;
}

export interface AccountInfo {
  /** 41-prefixed lower-case hex. */
  address: string;
  /** Sun. */
  balance: bigint;
  createTime?: number;
}

// ---- schemas -------------------------------------------------------------------------------

const hex = z.string().regex(/^([0-9a-fA-F]{2})*$/, "must be hex");
const hex32 = z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 32 bytes of hex");
const hexAddress41 = z.string().regex(/^41[0-9a-fA-F]{40}$/, "must be a 41-prefixed hex address");
const uint = z.int().nonnegative();
/** int64 that JSON.parse may have turned into a bigint (see parseJson in client_http.ts). */
const int64 = z.union([z.int(), z.bigint()]).transform((v) => BigInt(v));

export const BlockSchema = z.looseObject({
  blockID: hex32,
  block_header: z.looseObject({
    raw_data: z.looseObject({
      // proto3 JSON omits zero values: the genesis block has no "number".
      number: uint.optional().default(0),
      parentHash: hex32,
      timestamp: uint.optional().default(0),
    }),
  }),
  transactions: z.array(z.looseObject({ txID: hex32 })).optional(),
});

const LogSchema = z.looseObject({
  address: hex,
  topics: z.array(hex).optional().default([]),
  data: hex.optional().default(""),
});

export const TxInfoSchema = z.looseObject({
  id: hex32,
  blockNumber: uint,
  blockTimeStamp: uint,
  contract_address: hexAddress41.optional(),
  receipt: z.looseObject({ result: z.string().optional() }).optional(),
  result: z.string().optional(),
  log: z.array(LogSchema).optional(),
  fee: uint.optional(),
});

const ReturnSchema = z.looseObject({
  result: z.boolean().optional(),
  code: z.string().optional(),
  message: z.string().optional(),
});

export const BroadcastSchema = z.looseObject({
  result: z.boolean().optional(),
  code: z.string().optional(),
  message: z.string().optional(),
  txid: hex32.optional(),
});

const UnsignedTxSchema = z.looseObject({
  txID: hex32,
  raw_data: z.looseObject({}),
  raw_data_hex: hex.min(2),
  visible: z.boolean().optional(),
});

export const TriggerSchema = z.looseObject({
  result: ReturnSchema,
  transaction: UnsignedTxSchema.optional(),
});

export const ConstantSchema = z.looseObject({
  result: ReturnSchema,
  constant_result: z.array(hex).optional(),
  energy_used: uint.optional().default(0),
});

export const AccountSchema = z.looseObject({
  address: hexAddress41,
  balance: int64.optional().default(0n),
  create_time: uint.optional(),
});

export const isEmptyObject = (v: unknown) =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
