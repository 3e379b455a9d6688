// Invoice signatures: Ed25519 over the invoice's canonical JSON (domain/canonical_json.ts), with a key
// derived from APP_SECRET (HKDF-SHA256, its own label), so every process of a deployment signs alike and
// no new secret has to be kept. The public key is published (GET /v1/invoices/signing-key); rotating
// APP_SECRET changes the key, and invoices signed before no longer verify (docs/decisions.md).
import { ed25519 } from "@noble/curves/ed25519.js";
import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { base64urlnopad } from "@scure/base";
import { canonicalJson } from "../canonical_json.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";

const utf8 = new TextEncoder();
const LABEL = utf8.encode("gateway invoice signing key v1");

type Keys = { secretKey: Uint8Array; publicKey: Uint8Array };
const derived = new Map<string, Keys>();

function keysOf(deps: Pick<Deps, "config">): Keys {
  const secret = deps.config.appSecret;
  if (!secret) throw new AppError("CONFIG_MISSING", "APP_SECRET is needed to sign invoices");
  let keys = derived.get(secret);
  if (!keys) {
    const secretKey = hkdf(sha256, utf8.encode(secret), undefined, LABEL, 32);
    keys = { secretKey, publicKey: ed25519.getPublicKey(secretKey) };
    derived.clear();
    derived.set(secret, keys);
  }
  return keys;
}

export type SignedContent = { canonical: string; digest: string; signature: string };

/** Signs the canonical JSON of `content`; the digest (SHA-256, hex) is printed for people to compare. */
export function signInvoice(deps: Pick<Deps, "config">, content: unknown): SignedContent {
  const canonical = canonicalJson(content);
  const bytes = utf8.encode(canonical);
  const signature = base64urlnopad.encode(ed25519.sign(bytes, keysOf(deps).secretKey));
  return { canonical, digest: bytesToHex(sha256(bytes)), signature };
}

/** Whether `signature` (base64url) is this deployment's signature of `content`; never throws on junk. */
export function signatureMatches(deps: Pick<Deps, "config">, content: unknown, signature: string): boolean {
  let sig: Uint8Array;
  try {
    sig = base64urlnopad.decode(signature);
  } catch {
    return false;
  }
  if (sig.length !== 64) return false;
  try {
    return ed25519.verify(sig, utf8.encode(canonicalJson(content)), keysOf(deps).publicKey);
  } catch {
    return false;
  }
}

export function invoiceSigningKey(deps: Pick<Deps, "config">) {
  const publicKey = keysOf(deps).publicKey;
  return {
    algorithm: "Ed25519" as const,
    publicKey: base64urlnopad.encode(publicKey),
    publicKeyHex: bytesToHex(publicKey),
    signedData:
      "the UTF-8 bytes of invoice.json (attached to the PDF): canonical JSON, keys sorted, no spaces",
    signatureEncoding: "base64url without padding",
  };
}
