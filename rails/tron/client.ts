// A thin client over a java-tron full node's HTTP API (/wallet/... and /walletsolidity/...).
// Every answer is checked with zod before anything of it is used: a malformed, truncated or
// hostile answer throws a TronNodeError, it never comes back half parsed.
import { z } from "zod";
import { fromHex, keccak256, sha256, toHex, toHexAddress } from "./devnet/crypto.ts";

export type TronNodeErrorKind = "timeout" | "http" | "malformed" | "node";

export class TronNodeError extends Error {
  override name = "TronNodeError";
  constructor(
    readonly kind: TronNodeErrorKind,
    message: string,
    readonly method?: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface TronBlock {
  number: number;
  /** blockID, 64 lower-case hex characters (its first 8 bytes are the number). */
  hash: string;
  parentHash: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  txCount: number;
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

export interface TronClient {
  getNowBlock(): Promise<TronBlock>;
  /** Null when the node has no such block (yet). */
  getBlockByNumber(num: number): Promise<TronBlock | null>;
  /** The solidity node's head (walletsolidity/getnowblock). */
  getSolidBlock(): Promise<TronBlock>;
  /** All transaction infos of one block in one request; [] for an empty or unknown block. */
  getTransactionInfosByBlock(num: number): Promise<TxInfo[]>;
  /** Null while the transaction is not in a block. */
  getTransactionInfoById(txId: string): Promise<TxInfo | null>;
  broadcastTransaction(signed: object): Promise<BroadcastResult>;
  triggerSmartContract(params: TriggerParams): Promise<UnsignedTransaction>;
  triggerConstantContract(
    params: Omit<TriggerParams, "feeLimit" | "callValue">,
    options?: { solid?: boolean },
  ): Promise<ConstantResult>;
  /** An unsigned TRC20 transfer(to, units) from `from`, built by the node and checked against the request. */
  buildTrc20Transfer(
    contract: string,
    from: string,
    to: string,
    units: bigint,
    feeLimit: number,
  ): Promise<UnsignedTransaction>;
  /** balanceOf(owner) in base units. */
  getUsdtBalance(contract: string, owner: string, options?: { solid?: boolean }): Promise<bigint>;
  /** Null for an account that was never activated. */
  getAccount(address: string): Promise<AccountInfo | null>;
  /** Sun; 0n for a never-activated account. */
  getTrxBalance(address: string): Promise<bigint>;
}

export interface TronClientOptions {
  apiUrl: string;
  apiKey?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

// ---- schemas -------------------------------------------------------------------------------

const hex = z.string().regex(/^([0-9a-fA-F]{2})*$/, "must be hex");
const hex32 = z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 32 bytes of hex");
const hexAddress41 = z.string().regex(/^41[0-9a-fA-F]{40}$/, "must be a 41-prefixed hex address");
const uint = z.int().nonnegative();
/** int64 that JSON.parse may have turned into a bigint (see parseJson). */
const int64 = z.union([z.int(), z.bigint()]).transform((v) => BigInt(v));

const BlockSchema = z.looseObject({
  blockID: hex32,
  block_header: z.looseObject({
    raw_data: z.looseObject({
      // proto3 JSON omits zero values: the genesis block has no "number".
      number: uint.optional().default(0),
      parentHash: hex32,
      timestamp: uint.optional().default(0),
    }),
  }),
  transactions: z.array(z.looseObject({})).optional(),
});

const LogSchema = z.looseObject({
  address: hex,
  topics: z.array(hex).optional().default([]),
  data: hex.optional().default(""),
});

const TxInfoSchema = z.looseObject({
  id: hex32,
  blockNumber: uint,
  blockTimeStamp: uint,
  contract_address: hexAddress41.optional(),
  receipt: z.looseObject({ result: z.string().optional() }).optional(),
  result: z.string().optional(),
  log: z.array(LogSchema).optional(),
});

const ReturnSchema = z.looseObject({
  result: z.boolean().optional(),
  code: z.string().optional(),
  message: z.string().optional(),
});

const BroadcastSchema = z.looseObject({
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

const TriggerSchema = z.looseObject({ result: ReturnSchema, transaction: UnsignedTxSchema.optional() });

const ConstantSchema = z.looseObject({
  result: ReturnSchema,
  constant_result: z.array(hex).optional(),
  energy_used: uint.optional().default(0),
});

const AccountSchema = z.looseObject({
  address: hexAddress41,
  balance: int64.optional().default(0n),
  create_time: uint.optional(),
});

const isEmptyObject = (v: unknown) =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

// ---- client --------------------------------------------------------------------------------

export function createTronClient(options: TronClientOptions): TronClient {
  const base = options.apiUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function post(method: string, body: Record<string, unknown>): Promise<unknown> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (options.apiKey) headers["TRON-PRO-API-KEY"] = options.apiKey;
    const signal = AbortSignal.timeout(timeoutMs);
    let text: string;
    let status: number;
    try {
      const res = await doFetch(`${base}/${method}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal,
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      if (signal.aborted || (err instanceof DOMException && err.name === "TimeoutError")) {
        throw new TronNodeError("timeout", `${method}: no answer within ${timeoutMs} ms`, method, undefined, {
          cause: err,
        });
      }
      throw new TronNodeError("http", `${method}: request failed: ${errorText(err)}`, method, undefined, {
        cause: err,
      });
    }
    if (status < 200 || status > 299) {
      throw new TronNodeError("http", `${method}: HTTP ${status}: ${text.slice(0, 200)}`, method, status);
    }
    let json: unknown;
    try {
      json = parseJson(text);
    } catch {
      throw new TronNodeError(
        "malformed",
        `${method}: answer is not JSON: ${text.slice(0, 100)}`,
        method,
        status,
      );
    }
    // java-tron reports a bad request or an internal failure as HTTP 200 with an "Error" field.
    if (json && typeof json === "object" && !Array.isArray(json) && "Error" in json) {
      throw new TronNodeError(
        "node",
        `${method}: ${String((json as { Error: unknown }).Error)}`,
        method,
        status,
      );
    }
    return json;
  }

  function parse<S extends z.ZodType>(method: string, schema: S, value: unknown): z.output<S> {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw malformed(method, `unexpected answer at ${issue.path.join(".") || "(root)"}: ${issue.message}`);
    }
    return parsed.data;
  }

  function toBlock(method: string, value: unknown): TronBlock {
    const b = parse(method, BlockSchema, value);
    const raw = b.block_header.raw_data;
    const hash = b.blockID.toLowerCase();
    // The first 8 bytes of a blockID are the block number: a cheap consistency check.
    if (parseInt(hash.slice(0, 16), 16) !== raw.number) {
      throw malformed(method, `blockID does not carry block number ${raw.number}`);
    }
    return {
      number: raw.number,
      hash,
      parentHash: raw.parentHash.toLowerCase(),
      timestamp: raw.timestamp,
      txCount: b.transactions?.length ?? 0,
    };
  }

  function toTxInfo(method: string, value: unknown): TxInfo {
    const t = parse(method, TxInfoSchema, value);
    const info: TxInfo = {
      id: t.id.toLowerCase(),
      blockNumber: t.blockNumber,
      blockTimeStamp: t.blockTimeStamp,
      logs: (t.log ?? []).map((l) => ({
        address: l.address.toLowerCase(),
        topics: l.topics.map((x) => x.toLowerCase()),
        data: l.data.toLowerCase(),
      })),
    };
    if (t.contract_address !== undefined) info.contractAddress = t.contract_address.toLowerCase();
    if (t.receipt?.result !== undefined) info.receiptResult = t.receipt.result;
    if (t.result !== undefined) info.result = t.result;
    return info;
  }

  function checkBlockNumber(num: number): void {
    if (!Number.isSafeInteger(num) || num < 0) {
      throw new RangeError(`block number must be a natural number: ${num}`);
    }
  }

  async function getBlock(method: string, num: number): Promise<TronBlock | null> {
    const json = await post(method, { num });
    if (isEmptyObject(json)) return null;
    const block = toBlock(method, json);
    if (block.number !== num) {
      throw malformed(method, `asked for block ${num}, got ${block.number}`);
    }
    return block;
  }

  async function trigger(params: TriggerParams): Promise<UnsignedTransaction> {
    const method = "wallet/triggersmartcontract";
    const owner = toHexAddress(params.ownerAddress);
    const contract = toHexAddress(params.contractAddress);
    const parameter = params.parameter.replace(/^0x/, "").toLowerCase();
    const res = parse(
      method,
      TriggerSchema,
      await post(method, {
        owner_address: owner,
        contract_address: contract,
        function_selector: params.functionSelector,
        parameter,
        fee_limit: params.feeLimit ?? 0,
        call_value: params.callValue ?? 0,
        visible: false,
      }),
    );
    if (res.result.result !== true || !res.transaction) throw nodeReturnError(method, res.result);
    const tx = res.transaction;
    const rawHex = tx.raw_data_hex.toLowerCase();
    // The txID is what gets signed: it must be the hash of the bytes the node built...
    if (toHex(sha256(fromHex(rawHex))) !== tx.txID.toLowerCase()) {
      throw malformed(method, `txID is not sha256(raw_data_hex)`);
    }
    // ...and those bytes must carry what was asked for (owner, contract and call data verbatim).
    const callData = selectorHex(params.functionSelector) + parameter;
    for (const [what, needle] of [["owner", owner], ["contract", contract], ["call data", callData]]) {
      if (!containsBytes(rawHex, needle)) {
        throw malformed(method, `built transaction lacks the requested ${what}`);
      }
    }
    return tx as UnsignedTransaction;
  }

  async function constant(
    params: Omit<TriggerParams, "feeLimit" | "callValue">,
    opts?: { solid?: boolean },
  ): Promise<ConstantResult> {
    const method = `${opts?.solid ? "walletsolidity" : "wallet"}/triggerconstantcontract`;
    const res = parse(
      method,
      ConstantSchema,
      await post(method, {
        owner_address: toHexAddress(params.ownerAddress),
        contract_address: toHexAddress(params.contractAddress),
        function_selector: params.functionSelector,
        parameter: params.parameter.replace(/^0x/, "").toLowerCase(),
        visible: false,
      }),
    );
    if (res.result.result !== true) throw nodeReturnError(method, res.result);
    return {
      constantResult: (res.constant_result ?? []).map((x) => x.toLowerCase()),
      energyUsed: res.energy_used,
    };
  }

  async function getAccount(address: string): Promise<AccountInfo | null> {
    const method = "wallet/getaccount";
    const hexAddress = toHexAddress(address);
    const json = await post(method, { address: hexAddress, visible: false });
    if (isEmptyObject(json)) return null;
    const a = parse(method, AccountSchema, json);
    if (a.address.toLowerCase() !== hexAddress) {
      throw malformed(method, `answered for another address`);
    }
    if (a.balance < 0n) throw malformed(method, `negative balance`);
    const out: AccountInfo = { address: hexAddress, balance: a.balance };
    if (a.create_time !== undefined) out.createTime = a.create_time;
    return out;
  }

  return {
    async getNowBlock() {
      return toBlock("wallet/getnowblock", await post("wallet/getnowblock", {}));
    },
    async getBlockByNumber(num) {
      checkBlockNumber(num);
      return await getBlock("wallet/getblockbynum", num);
    },
    async getSolidBlock() {
      return toBlock("walletsolidity/getnowblock", await post("walletsolidity/getnowblock", {}));
    },
    async getTransactionInfosByBlock(num) {
      checkBlockNumber(num);
      const method = "wallet/gettransactioninfobyblocknum";
      const json = await post(method, { num });
      if (isEmptyObject(json)) return [];
      if (!Array.isArray(json)) throw malformed(method, `expected an array`);
      const infos = json.map((item) => toTxInfo(method, item));
      for (const info of infos) {
        if (info.blockNumber !== num) {
          throw malformed(method, `info of block ${info.blockNumber} in block ${num}`);
        }
      }
      return infos;
    },
    async getTransactionInfoById(txId) {
      const method = "wallet/gettransactioninfobyid";
      const id = txId.toLowerCase();
      if (!/^[0-9a-f]{64}$/.test(id)) throw new RangeError(`not a transaction id: ${txId}`);
      const json = await post(method, { value: id });
      if (isEmptyObject(json)) return null;
      const info = toTxInfo(method, json);
      if (info.id !== id) throw malformed(method, `answered for another id`);
      return info;
    },
    async broadcastTransaction(signed) {
      const method = "wallet/broadcasttransaction";
      const res = parse(method, BroadcastSchema, await post(method, signed as Record<string, unknown>));
      // proto3 JSON omits `result: false`, so a failure is recognised by its code.
      if (res.result !== true && res.code === undefined) {
        throw malformed(method, `neither a result nor an error code`);
      }
      const out: BroadcastResult = { result: res.result === true };
      if (res.code !== undefined) out.code = res.code;
      if (res.message !== undefined) out.message = decodeHexText(res.message);
      if (res.txid !== undefined) out.txid = res.txid.toLowerCase();
      return out;
    },
    triggerSmartContract: trigger,
    triggerConstantContract: constant,
    async buildTrc20Transfer(contract, from, to, units, feeLimit) {
      if (units <= 0n) throw new RangeError("a transfer moves a positive amount");
      return await trigger({
        ownerAddress: from,
        contractAddress: contract,
        functionSelector: "transfer(address,uint256)",
        parameter: abiAddress(to) + abiUint(units),
        feeLimit,
      });
    },
    async getUsdtBalance(contract, owner, opts) {
      const res = await constant({
        ownerAddress: owner,
        contractAddress: contract,
        functionSelector: "balanceOf(address)",
        parameter: abiAddress(owner),
      }, opts);
      const word = res.constantResult[0];
      if (res.constantResult.length !== 1 || word === undefined || word.length !== 64) {
        throw new TronNodeError(
          "malformed",
          "balanceOf: expected one 32-byte word",
          "triggerconstantcontract",
        );
      }
      return BigInt("0x" + word);
    },
    getAccount,
    async getTrxBalance(address) {
      return (await getAccount(address))?.balance ?? 0n;
    },
  };
}

// ---- helpers -------------------------------------------------------------------------------

/** JSON.parse that keeps integers beyond 2^53 exact as bigints (balances in sun can exceed it). */
function parseJson(text: string): unknown {
  // The reviver slows parsing down, so it only runs when a 16+ digit number token may be present.
  if (!/[:,[]\s*-?\d{16}/.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value, context?: { source?: string }) => {
    if (typeof value === "number" && !Number.isSafeInteger(value) && context?.source !== undefined) {
      if (/^-?\d+$/.test(context.source)) return BigInt(context.source);
    }
    return value;
  });
}

function malformed(method: string, message: string): TronNodeError {
  return new TronNodeError("malformed", `${method}: ${message}`, method);
}

function nodeReturnError(method: string, ret: { code?: string; message?: string }): TronNodeError {
  const message = ret.message !== undefined ? decodeHexText(ret.message) : "no message";
  return new TronNodeError("node", `${method}: ${ret.code ?? "FAILED"}: ${message}`, method);
}

/** java-tron prints Return.message bytes as hex; show them as text when they are. */
function decodeHexText(value: string): string {
  if (!/^([0-9a-fA-F]{2})+$/.test(value)) return value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(fromHex(value));
  } catch {
    return value;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** First 4 bytes of keccak256 of the canonical function signature, as the node computes them. */
function selectorHex(signature: string): string {
  return toHex(keccak256(new TextEncoder().encode(signature.replace(/\s+/g, "")))).slice(0, 8);
}

/** A TRON address as an ABI word: 12 zero bytes + the 20-byte account. */
export function abiAddress(address: string): string {
  return toHexAddress(address).slice(2).padStart(64, "0");
}

export function abiUint(value: bigint): string {
  if (value < 0n || value >= 1n << 256n) throw new RangeError("uint256 out of range");
  return value.toString(16).padStart(64, "0");
}

/** Whether `needleHex` occurs in `haystackHex` on a byte boundary. */
function containsBytes(haystackHex: string, needleHex: string): boolean {
  let at = haystackHex.indexOf(needleHex);
  while (at !== -1) {
    if (at % 2 === 0) return true;
    at = haystackHex.indexOf(needleHex, at + 1);
  }
  return false;
}
