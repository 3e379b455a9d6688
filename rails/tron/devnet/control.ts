// Control API for tests and merchants: move USDT from the funded customer, mine, reorg,
// inspect and fund accounts. Transfers are real signed transactions on the broadcast path.
import { type Context, Hono } from "hono";
import { encodeAddress, encodeUint, SELECTORS } from "./abi.ts";
import type { Chain } from "./chain.ts";
import {
  addressFromPrivateKey,
  fromHex,
  signHash,
  toBase58Address,
  tryHexAddress,
} from "../protocol/crypto.ts";
import { paramsOf } from "./request.ts";
import { broadcastResult, newRaw } from "./calls.ts";
import { type Json, makeSigned } from "../protocol/transaction.ts";

export const USDT_DECIMALS = 6;
export const TRX_DECIMALS = 6;
/** 100 TRX: what wallets commonly allow a TRC20 transfer to burn. */
export const CONTROL_FEE_LIMIT = 100_000_000n;
const MAX_MINE = 10_000;

/** "12.5" -> 12500000n for 6 decimals; rejects negatives, exponents and excess precision. */
export function parseUnits(value: unknown, decimals: number): bigint {
  const text = typeof value === "number" || typeof value === "bigint" ? String(value) : value;
  if (typeof text !== "string" || !/^\d+(\.\d+)?$/.test(text.trim())) {
    throw new RangeError(`amount must be a non-negative decimal string, got ${JSON.stringify(value)}`);
  }
  const [whole, fraction = ""] = text.trim().split(".");
  if (fraction.length > decimals) throw new RangeError(`amount has more than ${decimals} decimals`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

export function formatUnits(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const base = 10n ** BigInt(decimals);
  const fraction = (abs % base).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${abs / base}${fraction ? "." + fraction : ""}`;
}

export interface TransferResult {
  txID: string;
  result: Json;
}

/** Signs and broadcasts a USDT transfer(to, amount) from `privateKey`. */
export function sendUsdt(
  chain: Chain,
  now: () => number,
  privateKey: string,
  to: string,
  amount: bigint,
): TransferResult {
  const data = SELECTORS.transfer + encodeAddress(to) + encodeUint(amount);
  const raw = newRaw(chain, now, {
    type: "TriggerSmartContract",
    value: {
      owner_address: addressFromPrivateKey(privateKey),
      contract_address: chain.usdtContract,
      call_value: 0n,
      data,
      call_token_value: 0n,
      token_id: 0n,
    },
  }, CONTROL_FEE_LIMIT);
  const unsigned = makeSigned(raw);
  const tx = makeSigned(raw, [signHash(fromHex(unsigned.txID), privateKey)]);
  return { txID: tx.txID, result: broadcastResult(chain, tx) };
}

export function controlRoutes(chain: Chain, now: () => number, customerKey: string): Hono {
  const app = new Hono();
  const guard = (handler: (p: Json, c: Context) => Response) => async (c: Context) => {
    try {
      return handler(await paramsOf(c), c);
    } catch (err) {
      return c.json({ error: (err as Error).message }, 400);
    }
  };
  const headJson = () => ({ head: chain.head.number, blockID: chain.head.blockID });
  const balances = (address: string) => {
    const account = chain.state.read(address);
    return { trx: formatUnits(account.trx, TRX_DECIMALS), usdt: formatUnits(account.usdt, USDT_DECIMALS) };
  };

  app.post(
    "/transfer",
    guard((p, c) => {
      const to = tryHexAddress(p.to);
      if (!to) throw new RangeError("invalid to address");
      const key = typeof p.from === "string" && p.from !== "" ? p.from.replace(/^0x/, "") : customerKey;
      if (!/^[0-9a-fA-F]{64}$/.test(key)) throw new RangeError("from must be a 32-byte private key in hex");
      const { txID, result } = sendUsdt(chain, now, key, to, parseUnits(p.amount, USDT_DECIMALS));
      if (!result.result) {
        const message = new TextDecoder().decode(fromHex(String(result.message)));
        return c.json({ error: message, code: result.code, txID }, 400);
      }
      return c.json({ txID });
    }),
  );
  app.post(
    "/mine",
    guard((p, c) => {
      const blocks = p.blocks === undefined ? 1 : Number(p.blocks);
      if (!Number.isInteger(blocks) || blocks < 1 || blocks > MAX_MINE) {
        throw new RangeError(`blocks must be 1..${MAX_MINE}`);
      }
      for (let i = 0; i < blocks; i++) chain.produceBlock();
      return c.json(headJson());
    }),
  );
  app.post(
    "/reorg",
    guard((p, c) => {
      const { dropped } = chain.reorg(Number(p.depth));
      return c.json({ ...headJson(), dropped });
    }),
  );
  app.post(
    "/fund",
    guard((p, c) => {
      const address = tryHexAddress(p.address);
      if (!address) throw new RangeError("invalid address");
      chain.fund(address, parseUnits(p.trx ?? "0", TRX_DECIMALS), parseUnits(p.usdt ?? "0", USDT_DECIMALS));
      return c.json({ address: toBase58Address(address), hexAddress: address, ...balances(address) });
    }),
  );
  // Read-only: what an address holds (for README's walkthrough and the end-to-end tests).
  app.get("/balance/:address", (c) => {
    const address = tryHexAddress(c.req.param("address"));
    if (!address) return c.json({ error: "invalid address" }, 400);
    return c.json({ address: toBase58Address(address), hexAddress: address, ...balances(address) });
  });
  app.on(["GET", "POST"], "/state", (c) => {
    const customer = addressFromPrivateKey(customerKey);
    return c.json({
      head: chain.head.number,
      headBlockID: chain.head.blockID,
      headTimestamp: chain.head.timestamp,
      solidified: chain.solidifiedNumber,
      mempool: chain.mempool.length,
      contract: toBase58Address(chain.usdtContract),
      contractHex: chain.usdtContract,
      customer: { address: toBase58Address(customer), hexAddress: customer, ...balances(customer) },
    });
  });
  return app;
}
