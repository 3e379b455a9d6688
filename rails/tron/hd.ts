// HD deposit addresses: BIP39 mnemonic -> seed -> BIP44 m/44'/195'/account'/0/index -> TRON address.
// Live and sandbox use different `account` numbers so their addresses never meet.
import { HDKey } from "@scure/bip32";
import * as bip39 from "@scure/bip39";
import { wordlist as english } from "@scure/bip39/wordlists/english.js";
import { addressesFromPublicKey, addressFromPublicKey, toBase58Address, toHex } from "./protocol/crypto.ts";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { childPublicKeys } from "./secp256k1_base.ts";

/** SLIP-44 coin type of TRON. */
export const TRON_COIN_TYPE = 195;

export interface TronAccount {
  /** Base58 "T...". */
  address: string;
  /** 41-prefixed lower-case hex. */
  addressHex: string;
  /** 32-byte secp256k1 key, 64 lower-case hex characters, no 0x. */
  privateKeyHex: string;
}

export interface TronDeriver {
  readonly account: number;
  /** m/44'/195'/account'/0/index with one child derivation from the cached m/44'/195'/account'/0 node. */
  derive(index: number): TronAccount;
}

/** A fresh 24-word English mnemonic (256 bits of entropy). */
export function generateMnemonic(): string {
  return bip39.generateMnemonic(english, 256);
}

export function isValidMnemonic(mnemonic: string): boolean {
  return typeof mnemonic === "string" && bip39.validateMnemonic(normalize(mnemonic), english);
}

export function tronPath(account: number, index: number): string {
  return `m/44'/${TRON_COIN_TYPE}'/${account}'/0/${index}`;
}

export function deriveTronAccount(mnemonic: string, account: number, index: number): TronAccount {
  return createDeriver(mnemonic, account).derive(index);
}

/**
 * Caches the external-chain node m/44'/195'/account'/0, so each address costs one non-hardened
 * child derivation plus one public-key hash. The mnemonic -> seed step (PBKDF2, 2048 rounds) runs once here.
 */
export function createDeriver(mnemonic: string, account: number): TronDeriver {
  checkIndex(account, "account");
  const words = normalize(mnemonic);
  if (!bip39.validateMnemonic(words, english)) throw new Error("invalid BIP39 mnemonic");
  const seed = bip39.mnemonicToSeedSync(words);
  const chain = HDKey.fromMasterSeed(seed).derive(`m/44'/${TRON_COIN_TYPE}'/${account}'/0`);
  return {
    account,
    derive(index: number): TronAccount {
      checkIndex(index, "index");
      const child = chain.deriveChild(index);
      if (!child.privateKey) throw new Error("derived node has no private key");
      const uncompressed = secp256k1.Point.fromBytes(child.publicKey!).toBytes(false);
      const addressHex = addressFromPublicKey(uncompressed);
      return { address: toBase58Address(addressHex), addressHex, privateKeyHex: toHex(child.privateKey) };
    },
  };
}

/** Derives deposit addresses only (no private keys), from the account's external-chain public node. */
export interface TronAddressDeriver {
  readonly account: number;
  /** The address of m/44'/195'/account'/0/index: exactly `createDeriver(...).derive(index)`'s. */
  address(index: number): { address: string; addressHex: string };
  /** The addresses of indexes start .. start + count - 1, as `address` answers them, cheaper in a batch. */
  addresses(start: number, count: number): Array<{ address: string; addressHex: string }>;
}

const LARGEST_SCALAR = secp256k1.Point.Fn.toBytes(secp256k1.Point.CURVE().n - 1n);

/** True when the 32 big-endian bytes are a number in [1, n), n the curve order (no BigInt made). */
function isScalar(bytes: Uint8Array): boolean {
  if (bytes.every((b) => b === 0)) return false;
  // bytes <= n - 1, compared from the most significant byte.
  for (let i = 0; i < 32; i++) if (bytes[i] !== LARGEST_SCALAR[i]) return bytes[i] < LARGEST_SCALAR[i];
  return true;
}

/**
 * Public (non-hardened) BIP32 derivation from the extended public key of m/44'/195'/account'/0:
 * child = parent + HMAC-SHA512(chainCode, parentPub || index)[:32] * G. One base-point multiplication
 * instead of a private child plus its public key, and the parent point is parsed once. The tweak is
 * computed from public data only, so the faster variable-time multiplication (secp256k1_base.ts, a
 * fixed-base comb, batched) leaks nothing secret.
 * The seed (PBKDF2) and the hardened levels are computed once here.
 */
export function createAddressDeriver(mnemonic: string, account: number): TronAddressDeriver {
  checkIndex(account, "account");
  const words = normalize(mnemonic);
  if (!bip39.validateMnemonic(words, english)) throw new Error("invalid BIP39 mnemonic");
  const node = HDKey.fromMasterSeed(bip39.mnemonicToSeedSync(words))
    .derive(`m/44'/${TRON_COIN_TYPE}'/${account}'/0`);
  const parentPublic = node.publicKey!;
  const parentPoint = secp256k1.Point.fromBytes(parentPublic);
  const chainCode = node.chainCode!;
  const data = new Uint8Array(37);
  data.set(parentPublic, 0);
  const view = new DataView(data.buffer);
  // HMAC-SHA512 keyed by the chain code: the keyed state is computed once, each index copies it into one
  // reused instance (a clone per index would allocate one).
  const keyed = hmac.create(sha512, chainCode);
  const scratch = keyed.clone();
  const digest = new Uint8Array(64);
  const tweakOf = (index: number) => {
    checkIndex(index, "index");
    view.setUint32(33, index, false);
    keyed._cloneInto(scratch).update(data).digestInto(digest);
    const tweak = digest.slice(0, 32);
    // BIP32: such an index is invalid (probability about 2^-127); skip to the next one.
    if (!isScalar(tweak)) throw new Error(`index ${index} is not derivable`);
    return tweak;
  };
  return {
    account,
    address: (index: number) => addressesFromPublicKey(childPublicKeys(parentPoint, [tweakOf(index)])[0]),
    addresses(start: number, count: number) {
      const tweaks = Array.from({ length: count }, (_, i) => tweakOf(start + i));
      return childPublicKeys(parentPoint, tweaks).map((publicKey) => addressesFromPublicKey(publicKey));
    },
  };
}

function normalize(mnemonic: string): string {
  return mnemonic.normalize("NFKD").trim().split(/\s+/).join(" ");
}

function checkIndex(n: number, name: string): void {
  // Non-hardened and hardened indexes both live below 2^31.
  if (!Number.isSafeInteger(n) || n < 0 || n >= 0x8000_0000) {
    throw new Error(`${name} must be an integer in [0, 2^31)`);
  }
}
