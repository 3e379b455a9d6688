// A thin client over a java-tron full node's HTTP API (/wallet/... and /walletsolidity/...).
// Every answer is checked with zod before anything of it is used: a malformed, truncated or
// hostile answer throws a TronNodeError, it never comes back half parsed.
import { fromHex, keccak256, sha256, toHex, toHexAddress } from "./protocol/crypto.ts";
import {
  createPost,
  decodeHexText,
  malformed,
  nodeReturnError,
  parse,
  type TronClientOptions,
  TronNodeError,
} from "./client_http.ts";
import {
  type AccountInfo,
  AccountSchema,
  BlockSchema,
  type BroadcastResult,
  BroadcastSchema,
  type ConstantResult,
  ConstantSchema,
  isEmptyObject,
  type TriggerParams,
  TriggerSchema,
  type TronBlock,
  type TxInfo,
  TxInfoSchema,
  type UnsignedTransaction,
} from "./client_schemas.ts";

// Everyone imports the client's types and errors from here, wherever they are defined.
export { type TronClientOptions, TronNodeError, type TronNodeErrorKind } from "./client_http.ts";
export type {
  AccountInfo,
  BroadcastResult,
  ConstantResult,
  TriggerParams,
  TronBlock,
  TxInfo,
  TxLog,
  UnsignedTransaction,
} from "./client_schemas.ts";

export interface TronClient {
  getNowBlock(): Promise<TronBlock>;
  /** Null when the node has no such block (yet). */
  getBlockByNumber(num: number): Promise<TronBlock | null>;
  /**
   * Blocks startNum..endNum-1 in one request (wallet/getblockbylimitnext), oldest first and linked by
   * parent hash; fewer (or none) past the node's head. At most BLOCK_RANGE_LIMIT blocks per request.
   */
  getBlockRange(startNum: number, endNum: number): Promise<TronBlock[]>;
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

/** java-tron answers getblockbylimitnext for at most 100 blocks per request (its BLOCK_LIMIT_NUM). */
export const BLOCK_RANGE_LIMIT = 100;

// ---- client --------------------------------------------------------------------------------

export function createTronClient(options: TronClientOptions): TronClient {
  const post = createPost(options);

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
      txIds: (b.transactions ?? []).map((t) => t.txID.toLowerCase()),
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
    if (t.fee !== undefined) info.feeSun = t.fee;
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
    async getBlockRange(startNum, endNum) {
      checkBlockNumber(startNum);
      checkBlockNumber(endNum);
      if (endNum <= startNum || endNum - startNum > BLOCK_RANGE_LIMIT) {
        throw new RangeError(`a block range holds 1 to ${BLOCK_RANGE_LIMIT} blocks: ${startNum}..${endNum}`);
      }
      const method = "wallet/getblockbylimitnext";
      const json = await post(method, { startNum, endNum });
      if (isEmptyObject(json)) return [];
      const list = (json as { block?: unknown }).block;
      if (!Array.isArray(list)) throw malformed(method, `expected a "block" array`);
      const blocks = list.map((item) => toBlock(method, item));
      // A range must be what was asked for: consecutive from startNum, each block the child of the one before.
      blocks.forEach((b, i) => {
        if (b.number !== startNum + i || b.number >= endNum) {
          throw malformed(method, `asked for blocks ${startNum}..${endNum - 1}, got ${b.number} at ${i}`);
        }
        if (i > 0 && b.parentHash !== blocks[i - 1].hash) {
          throw malformed(method, `block ${b.number} is not the child of block ${blocks[i - 1].number}`);
        }
      });
      return blocks;
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
