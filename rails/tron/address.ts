// TRON addresses: base58check "T..." (21-byte payload starting 0x41) and the node's 41-prefixed hex.
// The encoding itself lives in protocol/crypto.ts (shared with the devnet); this module is the gateway's entry point to it.
import { ADDRESS_PREFIX, base58CheckDecode } from "./protocol/crypto.ts";

export { isHexAddress, toBase58Address, toHexAddress, tryHexAddress } from "./protocol/crypto.ts";
export type { HexAddress } from "./protocol/crypto.ts";

const BASE58_34 = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

/** True for a base58check TRON address (34 characters, "T...", 0x41 prefix, valid checksum), like TronWeb.isAddress on base58. */
export function isTronAddress(text: string): boolean {
  if (typeof text !== "string" || !BASE58_34.test(text)) return false;
  try {
    const payload = base58CheckDecode(text);
    return payload.length === 21 && payload[0] === ADDRESS_PREFIX;
  } catch {
    return false;
  }
}
