// Transaction building, contract calls and broadcast results shared by the wallet and
// control routes.
import { selectorOf } from "./abi.ts";
import type { Chain } from "./chain.ts";
import { type HexAddress, tryHexAddress, utf8Hex } from "../protocol/crypto.ts";
import { TxRejected } from "./executor.ts";
import { bigintParam, isVisible, resultMessage, returnError } from "./request.ts";
import {
  type Json,
  makeSigned,
  type RawTransaction,
  type SignedTransaction,
  txToJson,
} from "../protocol/transaction.ts";
import { runTrc20 } from "./trc20.ts";

const ZERO_ADDRESS = "41" + "00".repeat(20);
/** A node's default: transactions it builds expire a minute after the head block. */
const EXPIRATION_MS = 60_000;

/** Broadcasts; a failure's message is hex unless the request asked for visible (plain text). */
export function broadcastResult(chain: Chain, tx: SignedTransaction, plainMessage = false): Json {
  try {
    chain.broadcast(tx);
    return { result: true, txid: tx.txID };
  } catch (err) {
    if (!(err instanceof TxRejected)) throw err;
    const message = plainMessage ? err.message : utf8Hex(err.message);
    return { result: false, code: err.code, txid: tx.txID, message };
  }
}

export function unsignedJson(tx: SignedTransaction, visible: boolean): Json {
  return { visible, ...txToJson(tx, visible) };
}

/** A new transaction referencing the head block, as a node builds one for its create APIs. */
export function newRaw(
  chain: Chain,
  now: () => number,
  contract: RawTransaction["contract"],
  feeLimit: bigint,
  p: Json = {},
): RawTransaction {
  const head = chain.head;
  return {
    refBlockBytes: (head.number & 0xffff).toString(16).padStart(4, "0"),
    refBlockHash: head.blockID.slice(16, 32),
    expiration: chain.referenceTime + EXPIRATION_MS,
    timestamp: now(),
    feeLimit,
    data: typeof p.extra_data === "string" ? p.extra_data : "",
    contract,
    permissionId: Number(p.Permission_id ?? 0),
  };
}

export interface CallArgs {
  owner_address: HexAddress;
  contract_address: HexAddress;
  data: string;
  call_value: bigint;
}

export function callOf(chain: Chain, p: Json, constant = false): CallArgs | { error: Json } {
  const visible = isVisible(p);
  const contract = tryHexAddress(p.contract_address);
  // A constant call may omit the caller; msg.sender is then the zero address.
  const owner = tryHexAddress(p.owner_address) ?? (constant ? ZERO_ADDRESS : null);
  if (!owner) {
    const message = "class java.security.InvalidParameterException : owner_address isn't set.";
    return { error: returnError("OTHER_ERROR", message, visible) };
  }
  if (!contract || contract !== chain.usdtContract) {
    // The two servlets word this differently on a real node.
    const message = constant ? "Smart contract is not exist." : "No contract or not a valid smart contract";
    return { error: returnError("CONTRACT_VALIDATE_ERROR", message, visible) };
  }
  let data: string;
  if (typeof p.function_selector === "string" && p.function_selector !== "") {
    const parameter = String(p.parameter ?? "").replace(/^0x/, "");
    data = selectorOf(p.function_selector.replace(/\s+/g, "")) + parameter;
  } else {
    data = String(p.data ?? "").replace(/^0x/, "");
  }
  if (!/^([0-9a-fA-F]{2})*$/.test(data)) {
    return {
      error: returnError(
        "OTHER_ERROR",
        "class org.bouncycastle.util.encoders.DecoderException : data must be hex",
        visible,
      ),
    };
  }
  return {
    owner_address: owner,
    contract_address: contract,
    data: data.toLowerCase(),
    call_value: bigintParam(p, "call_value"),
  };
}

export function readerAt(chain: Chain, number: number) {
  return {
    balanceOf: (a: HexAddress) => chain.accountAt(a, number).usdt,
    totalSupply: () => chain.state.usdtTotalSupply,
  };
}

export function constantCall(
  chain: Chain,
  p: Json,
  visible: boolean,
  number: number,
  now: () => number,
): Json {
  const call = callOf(chain, p, true);
  if ("error" in call) return { result: call.error };
  const outcome = runTrc20(
    call.contract_address,
    call.owner_address,
    call.data,
    call.call_value,
    readerAt(chain, number),
  );
  const raw = newRaw(
    chain,
    now,
    { type: "TriggerSmartContract", value: { ...call, call_token_value: 0n, token_id: 0n } },
    0n,
    p,
  );
  // A revert is not a request error: result stays true, the message says why, ret is FAILED.
  const reverted = outcome.result !== "SUCCESS";
  const transaction = { ret: [reverted ? { ret: "FAILED" } : {}], ...unsignedJson(makeSigned(raw), visible) };
  const out: Json = reverted
    ? { result: { result: true, message: resultMessage("REVERT opcode executed", visible) } }
    : { result: { result: true } };
  out.energy_used = Number(outcome.energy);
  out.constant_result = [outcome.returnData];
  if (outcome.logs.length) out.logs = outcome.logs;
  out.transaction = transaction;
  return out;
}
