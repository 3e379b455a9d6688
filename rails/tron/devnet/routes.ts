// The full node's HTTP API (/wallet/...) and the solidity node's (/walletsolidity/...),
// answering in the same JSON shapes as java-tron.
import { type Context, Hono } from "hono";
import { broadcastResult, callOf, constantCall, newRaw, readerAt, unsignedJson } from "./calls.ts";
import { type Block, blockToJson, orderedInfo } from "./block.ts";
import type { Chain } from "./chain.ts";
import { fromHex, toHex, tryHexAddress } from "../protocol/crypto.ts";
import { TxRejected } from "./executor.ts";
import {
  addressParam,
  BadRequest,
  bigintParam,
  intParam,
  isVisible,
  paramsOf,
  returnError,
} from "./request.ts";
import {
  decodeTransaction,
  type Json,
  makeSigned,
  rawFromJson,
  type SignedTransaction,
  txToJson,
} from "../protocol/transaction.ts";
import { runTrc20 } from "./trc20.ts";
import {
  accountJson,
  accountNetJson,
  accountResourceJson,
  chainParametersJson,
  contractInfoJson,
  smartContractJson,
} from "./views.ts";
import { nodeInfoJson } from "./node_info.ts";
import { networkTotals } from "./energy.ts";
import { resourceRoutes } from "./resource_routes.ts";

type Handler = (p: Json, visible: boolean) => unknown;

export function walletRoutes(chain: Chain, now: () => number): Hono {
  const app = new Hono();
  const serve = (path: string, handler: Handler) => {
    app.on(["GET", "POST"], path, async (c: Context) => {
      try {
        const p = await paramsOf(c);
        return c.json(handler(p, isVisible(p)) as Json);
      } catch (err) {
        // java-tron answers malformed requests with HTTP 200 and an "Error" field.
        if (err instanceof BadRequest || err instanceof RangeError || err instanceof SyntaxError) {
          return c.json({ Error: `class java.lang.IllegalArgumentException : ${err.message}` });
        }
        throw err;
      }
    });
  };

  // Each read is served twice: by the full node (head) and by the solidity node (head - 19).
  for (const [prefix, solid] of [["/wallet", false], ["/walletsolidity", true]] as const) {
    const limit = () => (solid ? chain.solidifiedNumber : chain.head.number);
    const blockAt = (n: number): Block | undefined => (n >= 0 && n <= limit() ? chain.blocks[n] : undefined);
    const blockById = (id: unknown): Block | undefined => {
      const value = String(id ?? "").toLowerCase();
      if (!/^[0-9a-f]{64}$/.test(value)) return undefined;
      const block = blockAt(parseInt(value.slice(0, 16), 16));
      return block?.blockID === value ? block : undefined;
    };
    const includedTx = (id: unknown) => {
      const found = chain.findTx(String(id ?? ""));
      return found && found.block.number <= limit() ? found : null;
    };

    serve(`${prefix}/getnowblock`, (_p, visible) => blockToJson(blockAt(limit())!, visible));
    serve(`${prefix}/getblockbynum`, (p, visible) => {
      const block = blockAt(intParam(p, "num"));
      return block ? blockToJson(block, visible) : {};
    });
    serve(`${prefix}/getblockbyid`, (p, visible) => {
      const block = blockById(p.value);
      return block ? blockToJson(block, visible) : {};
    });
    serve(`${prefix}/getblock`, (p, visible) => {
      const detail = p.detail === true || p.detail === "true";
      const idOrNum = p.id_or_num;
      const block = idOrNum === undefined || idOrNum === ""
        ? blockAt(limit())
        : /^\d+$/.test(String(idOrNum))
        ? blockAt(Number(idOrNum))
        : blockById(idOrNum);
      return block ? blockToJson(block, visible, detail) : {};
    });
    // As java-tron's GetBlockByLimitNextServlet: blocks [startNum, endNum) for a range of 1 to 100 blocks
    // ({"block": []} past the head), and {} for any other range.
    serve(`${prefix}/getblockbylimitnext`, (p, visible) => {
      const start = intParam(p, "startNum");
      const endNum = intParam(p, "endNum");
      if (!(endNum > 0 && endNum > start && endNum - start <= 100)) return {};
      const blocks = [];
      for (let n = Math.max(0, start); n < Math.min(endNum, limit() + 1); n++) {
        blocks.push(blockToJson(chain.blocks[n], visible));
      }
      return { block: blocks };
    });
    serve(`${prefix}/getblockbylatestnum`, (p, visible) => {
      const count = Math.min(intParam(p, "num"), 100);
      const blocks = [];
      for (let n = Math.max(0, limit() - count + 1); n <= limit(); n++) {
        blocks.push(blockToJson(chain.blocks[n], visible));
      }
      return count > 0 ? { block: blocks } : {};
    });
    serve(`${prefix}/gettransactionbyid`, (p, visible) => {
      const found = includedTx(p.value);
      return found ? txToJson(found.included.tx, visible, found.included.contractRet) : {};
    });
    serve(`${prefix}/gettransactioninfobyid`, (p, visible) => {
      const found = includedTx(p.value);
      return found ? orderedInfo(found.included.info, visible) : {};
    });
    serve(`${prefix}/gettransactioninfobyblocknum`, (p, visible) => {
      const block = blockAt(intParam(p, "num"));
      return block ? block.txs.map((t) => orderedInfo(t.info, visible)) : [];
    });
    serve(`${prefix}/getaccount`, (p, visible) => {
      const address = addressParam(p, "address");
      return accountJson(chain.accountAt(address, limit()), visible, now(), address === chain.usdtContract);
    });
    serve(`${prefix}/triggerconstantcontract`, (p, visible) => constantCall(chain, p, visible, limit(), now));
  }

  serve(
    "/wallet/getaccountresource",
    (p) =>
      accountResourceJson(chain.state.read(addressParam(p, "address")), now(), networkTotals(chain.state)),
  );
  serve(
    "/wallet/getaccountnet",
    (p) => accountNetJson(chain.state.read(addressParam(p, "address")), now(), networkTotals(chain.state)),
  );
  resourceRoutes(serve, chain, now);
  serve("/wallet/getcontract", (p, visible) => {
    const address = tryHexAddress(p.value);
    return address === chain.usdtContract ? smartContractJson(address, visible) : {};
  });
  serve("/wallet/getcontractinfo", (p, visible) => {
    const address = tryHexAddress(p.value);
    return address === chain.usdtContract ? contractInfoJson(address, visible) : {};
  });
  serve("/wallet/getchainparameters", () => chainParametersJson());
  serve("/wallet/getnodeinfo", () => nodeInfoJson(chain));
  serve("/wallet/getenergyprices", () => ({ prices: `0:100` }));
  serve("/wallet/getbandwidthprices", () => ({ prices: `0:1000` }));

  serve("/wallet/triggersmartcontract", (p, visible) => {
    const call = callOf(chain, p);
    if ("error" in call) return { result: call.error };
    const raw = newRaw(
      chain,
      now,
      {
        type: "TriggerSmartContract",
        value: {
          ...call,
          call_token_value: bigintParam(p, "call_token_value"),
          token_id: bigintParam(p, "token_id"),
        },
      },
      bigintParam(p, "fee_limit"),
      p,
    );
    return { result: { result: true }, transaction: unsignedJson(makeSigned(raw), visible) };
  });
  serve("/wallet/estimateenergy", (p) => {
    const call = callOf(chain, p, true);
    if ("error" in call) return { result: call.error };
    const reader = readerAt(chain, chain.head.number);
    const outcome = runTrc20(call.contract_address, call.owner_address, call.data, call.call_value, reader);
    if (outcome.result !== "SUCCESS") {
      return { result: returnError("CONTRACT_EXE_ERROR", "REVERT opcode executed", isVisible(p)) };
    }
    return { result: { result: true }, energy_required: Number(outcome.energy) };
  });
  serve("/wallet/createtransaction", (p, visible) => {
    const raw = newRaw(
      chain,
      now,
      {
        type: "TransferContract",
        value: {
          owner_address: addressParam(p, "owner_address"),
          to_address: addressParam(p, "to_address"),
          amount: bigintParam(p, "amount"),
        },
      },
      0n,
      p,
    );
    const tx = makeSigned(raw);
    try {
      chain.validateUnsigned(tx);
    } catch (err) {
      if (err instanceof TxRejected) {
        return { Error: `class org.tron.core.exception.ContractValidateException : ${err.message}` };
      }
      throw err;
    }
    return unsignedJson(tx, visible);
  });
  serve("/wallet/broadcasttransaction", (p, visible) => {
    let tx: SignedTransaction;
    try {
      const raw = rawFromJson((p.raw_data ?? {}) as Json);
      // Signatures are bytes on a real node, so they come back in lower-case hex.
      tx = makeSigned(
        raw,
        Array.isArray(p.signature) ? p.signature.map((sig) => toHex(fromHex(String(sig)))) : [],
      );
    } catch (err) {
      return { result: false, ...returnError("OTHER_ERROR", (err as Error).message) };
    }
    return broadcastResult(chain, tx, visible);
  });
  serve("/wallet/broadcasthex", (p) => {
    let tx: SignedTransaction;
    try {
      tx = decodeTransaction(fromHex(String(p.transaction ?? "")));
    } catch (err) {
      return { result: false, ...returnError("OTHER_ERROR", (err as Error).message) };
    }
    // broadcasthex always answers in plain text and prints the transaction with visible=true.
    const result = broadcastResult(chain, tx, true);
    if (!result.result) return result;
    return {
      result: true,
      code: "SUCCESS",
      message: "",
      transaction: JSON.stringify(txToJson(tx, true)),
      txid: tx.txID,
    };
  });
  return app;
}
