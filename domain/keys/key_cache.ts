// API key lookups kept in this process for a few seconds (AUTH_CACHE_TTL_MS), so a valid key costs no
// query. What this process changes (a revocation, a merchant's settings) is forgotten here at once;
// another process sees the change when its entry expires, so at most one TTL later.
import type { Caller } from "./caller.ts";

const MAX_ENTRIES = 10_000;

export class KeyCache {
  #entries = new Map<string, { caller: Caller; expiresAtMs: number }>();

  /** The caller of a key hash, if looked up less than a TTL ago. */
  get(keyHash: string, nowMs: number): Caller | undefined {
    const entry = this.#entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expiresAtMs > nowMs) return entry.caller;
    this.#entries.delete(keyHash);
    return undefined;
  }

  set(keyHash: string, caller: Caller, expiresAtMs: number): void {
    // A crude bound: a flood of distinct valid keys cannot grow memory without limit.
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(keyHash, { caller, expiresAtMs });
  }

  forgetKey(keyId: string): void {
    for (const [hash, entry] of this.#entries) if (entry.caller.keyId === keyId) this.#entries.delete(hash);
  }

  forgetMerchant(merchantId: string): void {
    for (const [hash, entry] of this.#entries) {
      if (entry.caller.merchantId === merchantId) this.#entries.delete(hash);
    }
  }
}

/** The process's cache. Keys are looked up by the SHA-256 of the key, never stored in clear. */
const processKeyCache = new KeyCache();

export function keyCacheOf(deps: { keyCache?: KeyCache }): KeyCache {
  return deps.keyCache ?? processKeyCache;
}
