// Solidity ABI pieces the TRC20 token needs: selectors, word encoding, the Transfer
// event topic and the ABI JSON a java-tron node returns from wallet/getcontract.
import { type HexAddress, keccak256, toHex } from "../protocol/crypto.ts";

export function selectorOf(signature: string): string {
  return toHex(keccak256(new TextEncoder().encode(signature))).slice(0, 8);
}

export function eventTopic(signature: string): string {
  return toHex(keccak256(new TextEncoder().encode(signature)));
}

export const SELECTORS = {
  name: selectorOf("name()"),
  symbol: selectorOf("symbol()"),
  decimals: selectorOf("decimals()"),
  totalSupply: selectorOf("totalSupply()"),
  balanceOf: selectorOf("balanceOf(address)"),
  transfer: selectorOf("transfer(address,uint256)"),
} as const;

/** keccak256("Transfer(address,address,uint256)") = ddf252ad... */
export const TRANSFER_TOPIC = eventTopic("Transfer(address,address,uint256)");

const MAX_UINT256 = (1n << 256n) - 1n;

export function encodeUint(value: bigint): string {
  if (value < 0n || value > MAX_UINT256) throw new Error("uint256 out of range");
  return value.toString(16).padStart(64, "0");
}

/** A 21-byte TRON address as an ABI word: 12 zero bytes + the 20-byte EVM address. */
export function encodeAddress(address: HexAddress): string {
  return address.slice(2).padStart(64, "0");
}

export function encodeString(text: string): string {
  const hex = toHex(new TextEncoder().encode(text));
  const padded = hex.padEnd(Math.ceil(hex.length / 64) * 64, "0");
  return encodeUint(32n) + encodeUint(BigInt(hex.length / 2)) + padded;
}

/** Reads word `index` after the 4-byte selector; null when the call data is too short. */
export function wordAt(data: string, index: number): string | null {
  const start = 8 + index * 64;
  const word = data.slice(start, start + 64);
  return word.length === 64 ? word : null;
}

/** The address in an ABI word, with TRON's 0x41 prefix (upper 12 bytes are masked off, as the EVM does). */
export function wordToAddress(word: string): HexAddress {
  return "41" + word.slice(24).toLowerCase();
}

export function wordToUint(word: string): bigint {
  return BigInt("0x" + word);
}

type AbiParam = { indexed?: boolean; name: string; type: string };

function fn(name: string, inputs: AbiParam[], outputs: AbiParam[], view: boolean) {
  return {
    ...(view ? { constant: true } : {}),
    inputs: inputs.length ? inputs : undefined,
    name,
    outputs,
    stateMutability: view ? "View" : "Nonpayable",
    type: "Function",
  };
}

/** ABI entries of the devnet's TRC20 USDT, in java-tron's JSON casing ("Function", "View"). */
export function trc20AbiEntries(): unknown[] {
  return [
    fn("name", [], [{ name: "", type: "string" }], true),
    fn("symbol", [], [{ name: "", type: "string" }], true),
    fn("decimals", [], [{ name: "", type: "uint8" }], true),
    fn("totalSupply", [], [{ name: "", type: "uint256" }], true),
    fn("balanceOf", [{ name: "who", type: "address" }], [{ name: "", type: "uint256" }], true),
    fn("transfer", [{ name: "_to", type: "address" }, { name: "_value", type: "uint256" }], [{
      name: "",
      type: "bool",
    }], false),
    {
      anonymous: false,
      inputs: [
        { indexed: true, name: "from", type: "address" },
        { indexed: true, name: "to", type: "address" },
        { indexed: false, name: "value", type: "uint256" },
      ],
      name: "Transfer",
      type: "Event",
    },
  ].map((entry) => JSON.parse(JSON.stringify(entry)));
}
