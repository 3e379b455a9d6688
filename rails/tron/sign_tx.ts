// Signs a node-built transaction locally: the signature covers the txID (sha256 of raw_data), so the
// private key never leaves the process and the node never sees it.
import { fromHex, sha256, signHash, toHex } from "./devnet/crypto.ts";
import type { UnsignedTransaction } from "./client.ts";

export type SignedTransaction = UnsignedTransaction & { signature: string[] };

export function signTransaction(unsigned: UnsignedTransaction, privateKeyHex: string): SignedTransaction {
  // Never sign a txID that is not the hash of the bytes: the node could otherwise make us sign anything.
  if (toHex(sha256(fromHex(unsigned.raw_data_hex))) !== unsigned.txID) {
    throw new Error("transaction id does not match its raw data");
  }
  return { ...unsigned, signature: [signHash(fromHex(unsigned.txID), privateKeyHex)] };
}

/** The expiration a node put in raw_data (milliseconds since the epoch). */
export function expirationOf(tx: UnsignedTransaction): Date {
  const expiration = Number((tx.raw_data as { expiration?: number }).expiration);
  if (!Number.isFinite(expiration)) throw new Error("transaction has no expiration");
  return new Date(expiration);
}
