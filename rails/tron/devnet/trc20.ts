// The devnet's TRC20 USDT, interpreted natively instead of running TVM bytecode: the same
// selectors, return data, event log and failure modes a real TetherToken call produces.
import {
  encodeAddress,
  encodeString,
  encodeUint,
  SELECTORS,
  TRANSFER_TOPIC,
  wordAt,
  wordToAddress,
  wordToUint,
} from "./abi.ts";
import type { HexAddress } from "../protocol/crypto.ts";

export const TOKEN = { name: "Tether USD", symbol: "USDT", decimals: 6 } as const;

/** Energy a TRC20 transfer burns; ~65k as on mainnet USDT. */
export const TRANSFER_ENERGY = 65_000n;
/** Energy of a call that stops at a failed require (balance too low, bad call data). */
export const REVERT_ENERGY = 1_350n;
/** Energy of a read-only call. */
export const VIEW_ENERGY = 550n;

export interface Trc20Reader {
  balanceOf(address: HexAddress): bigint;
  totalSupply(): bigint;
}

export interface LogEntry {
  /** Contract address, hex without the 41 prefix, as a real node prints it in logs. */
  address: string;
  topics: string[];
  data: string;
}

export interface Trc20Outcome {
  result: "SUCCESS" | "REVERT";
  /** Return data (hex, no 0x); empty on revert. */
  returnData: string;
  energy: bigint;
  /** Set when the call moves tokens; the caller applies it only if the energy was paid. */
  transfer?: { from: HexAddress; to: HexAddress; amount: bigint };
  logs: LogEntry[];
}

const revert = (): Trc20Outcome => ({ result: "REVERT", returnData: "", energy: REVERT_ENERGY, logs: [] });
const view = (returnData: string): Trc20Outcome => ({
  result: "SUCCESS",
  returnData,
  energy: VIEW_ENERGY,
  logs: [],
});

export function runTrc20(
  contract: HexAddress,
  caller: HexAddress,
  data: string,
  callValue: bigint,
  reader: Trc20Reader,
): Trc20Outcome {
  // None of TetherToken's functions is payable.
  if (callValue !== 0n) return revert();
  const selector = data.slice(0, 8).toLowerCase();
  switch (selector) {
    case SELECTORS.name:
      return view(encodeString(TOKEN.name));
    case SELECTORS.symbol:
      return view(encodeString(TOKEN.symbol));
    case SELECTORS.decimals:
      return view(encodeUint(BigInt(TOKEN.decimals)));
    case SELECTORS.totalSupply:
      return view(encodeUint(reader.totalSupply()));
    case SELECTORS.balanceOf: {
      const who = wordAt(data, 0);
      return who ? view(encodeUint(reader.balanceOf(wordToAddress(who)))) : revert();
    }
    case SELECTORS.transfer: {
      const toWord = wordAt(data, 0);
      const amountWord = wordAt(data, 1);
      if (!toWord || !amountWord) return revert();
      const to = wordToAddress(toWord);
      const amount = wordToUint(amountWord);
      if (reader.balanceOf(caller) < amount) return revert();
      return {
        result: "SUCCESS",
        returnData: encodeUint(1n),
        energy: TRANSFER_ENERGY,
        transfer: { from: caller, to, amount },
        logs: [{
          address: contract.slice(2),
          topics: [TRANSFER_TOPIC, encodeAddress(caller), encodeAddress(to)],
          data: encodeUint(amount),
        }],
      };
    }
    default:
      return revert();
  }
}
