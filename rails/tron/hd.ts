// HD deposit addresses: BIP39 mnemonic -> seed -> BIP44 m/44'/195'/account'/0/index -> TRON address.
// Live and sandbox use different `account` numbers so their addresses never meet.
import { HDKey } from "@scure/bip32";
import * as bip39 from "@scure/bip39";
import { wordlist as english } from "@scure/bip39/wordlists/english.js";
import { addressFromPublicKey, toBase58Address, toHex } from "./devnet/crypto.ts";
import { secp256k1 } from "@noble/curves/secp256k1.js";

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

function normalize(mnemonic: string): string {
  return mnemonic.normalize("NFKD").trim().split(/\s+/).join(" ");
}

function checkIndex(n: number, name: string): void {
  // Non-hardened and hardened indexes both live below 2^31.
  if (!Number.isSafeInteger(n) || n < 0 || n >= 0x8000_0000) {
    throw new Error(`${name} must be an integer in [0, 2^31)`);
  }
}
