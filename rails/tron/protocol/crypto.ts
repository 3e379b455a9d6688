// Hashing, addresses and signatures exactly as TRON does them: secp256k1 keys,
// address = 0x41 + last 20 bytes of keccak256(uncompressed pubkey without 0x04),
// base58check with a double-SHA256 checksum.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { base58 } from "@scure/base";

export const ADDRESS_PREFIX = 0x41;

// Each digest starts from a copy of an empty hasher's state in one reused instance: noble's one-shot
// functions allocate a hasher per call, which costs more than hashing a short input.
const SHA256_EMPTY = nobleSha256.create();
const sha256Scratch = nobleSha256.create();
const KECCAK_EMPTY = keccak_256.create();
const keccakScratch = keccak_256.create();

export function sha256(bytes: Uint8Array): Uint8Array {
  return SHA256_EMPTY._cloneInto(sha256Scratch).update(bytes).digest();
}

export function keccak256(bytes: Uint8Array): Uint8Array {
  return KECCAK_EMPTY._cloneInto(keccakScratch).update(bytes).digest();
}

const HEX_BYTES = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += HEX_BYTES[b];
  return out;
}

export function fromHex(hex: string): Uint8Array {
  const clean = hex.startsWith("0x") || hex.startsWith("0X") ? hex.slice(2) : hex;
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) throw new Error(`invalid hex: ${hex}`);
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function utf8Hex(text: string): string {
  return toHex(new TextEncoder().encode(text));
}

const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** 58^9, the largest power of 58 below 2^53: nine digits per BigInt division, then float arithmetic. */
const BASE58_CHUNK = 58n ** 9n;

/** Base58 (Bitcoin alphabet) exactly as @scure/base's base58.encode, a '1' per leading zero byte. */
export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = zeros < bytes.length ? BigInt("0x" + toHex(bytes.subarray(zeros))) : 0n;
  let digits = "";
  while (n > 0n) {
    let chunk = Number(n % BASE58_CHUNK);
    n /= BASE58_CHUNK;
    // A lower chunk has all nine digits, zeros included; the top one stops at its highest non-zero digit.
    for (let i = 0; i < 9 && (n > 0n || chunk > 0); i++) {
      digits = BASE58_ALPHABET[chunk % 58] + digits;
      chunk = Math.floor(chunk / 58);
    }
  }
  return "1".repeat(zeros) + digits;
}

export function base58CheckEncode(payload: Uint8Array): string {
  const checksum = sha256(sha256(payload)).subarray(0, 4);
  return base58Encode(concatBytes(payload, checksum));
}

export function base58CheckDecode(text: string): Uint8Array {
  const raw = base58.decode(text);
  if (raw.length < 5) throw new Error("base58check payload too short");
  const payload = raw.slice(0, -4);
  const expected = sha256(sha256(payload)).slice(0, 4);
  if (toHex(expected) !== toHex(raw.slice(-4))) throw new Error("base58check checksum mismatch");
  return payload;
}

/** Hex form "41" + 40 hex chars, lower case. */
export type HexAddress = string;

export function isHexAddress(text: string): boolean {
  return /^41[0-9a-fA-F]{40}$/.test(text);
}

/** Accepts base58 `T...`, hex `41...` or `0x`-prefixed 20-byte hex; answers lower-case 41-hex. */
export function toHexAddress(text: string): HexAddress {
  const value = text.trim();
  if (isHexAddress(value)) return value.toLowerCase();
  if (/^(0x)?[0-9a-fA-F]{40}$/.test(value)) return "41" + value.replace(/^0x/, "").toLowerCase();
  const payload = base58CheckDecode(value);
  if (payload.length !== 21 || payload[0] !== ADDRESS_PREFIX) throw new Error(`not a TRON address: ${text}`);
  return toHex(payload);
}

export function tryHexAddress(text: unknown): HexAddress | null {
  if (typeof text !== "string" || text.length === 0) return null;
  try {
    return toHexAddress(text);
  } catch {
    return null;
  }
}

export function toBase58Address(hexAddress: HexAddress): string {
  return base58CheckEncode(fromHex(toHexAddress(hexAddress)));
}

export function addressFromPublicKey(uncompressed: Uint8Array): HexAddress {
  return toHex(addressPayload(uncompressed));
}

/** Both forms of a public key's address, without addressFromPublicKey + toBase58Address's hex round trip. */
export function addressesFromPublicKey(
  uncompressed: Uint8Array,
): { address: string; addressHex: HexAddress } {
  const payload = addressPayload(uncompressed);
  return { address: base58CheckEncode(payload), addressHex: toHex(payload) };
}

/** 0x41 and the last 20 bytes of the keccak256 of an uncompressed (65-byte) public key without its 0x04. */
function addressPayload(uncompressed: Uint8Array): Uint8Array {
  const payload = new Uint8Array(21);
  payload[0] = ADDRESS_PREFIX;
  payload.set(keccak256(uncompressed.subarray(1)).subarray(12), 1);
  return payload;
}

export function addressFromPrivateKey(privateKeyHex: string): HexAddress {
  return addressFromPublicKey(secp256k1.getPublicKey(fromHex(privateKeyHex), false));
}

/** Deterministic well-known keys (like Hardhat's) so every developer's devnet has the same accounts. */
export function privateKeyFromSeed(seed: string): string {
  return toHex(sha256(new TextEncoder().encode(seed)));
}

/** 65-byte r || s || v signature over a 32-byte hash, v = 27 + recovery id, as tronweb produces. */
export function signHash(hash: Uint8Array, privateKeyHex: string): string {
  const recovered = secp256k1.sign(hash, fromHex(privateKeyHex), { prehash: false, format: "recovered" });
  // noble puts the recovery byte first; TRON puts it last.
  const v = recovered[0] + 27;
  return toHex(recovered.slice(1, 65)) + v.toString(16).padStart(2, "0");
}

/** Address of the key that produced `signatureHex` over `hash`, or null when it cannot be recovered. */
export function recoverSigner(hash: Uint8Array, signatureHex: string): HexAddress | null {
  try {
    const sig = fromHex(signatureHex);
    if (sig.length !== 65) return null;
    let recovery = sig[64];
    if (recovery >= 27) recovery -= 27;
    if (recovery > 3) return null;
    const noble = concatBytes(new Uint8Array([recovery]), sig.slice(0, 64));
    const signature = secp256k1.Signature.fromBytes(noble, "recovered");
    const point = signature.recoverPublicKey(hash);
    return addressFromPublicKey(point.toBytes(false));
  } catch {
    return null;
  }
}
