// A request budget per node and key: a token bucket. TronGrid publishes a per-key rate (about 15-30
// requests a second with a key) and answers 429/403 beyond it; spending our own tokens first keeps the
// scanner, sweeps, payouts and balance reads of this process inside that rate together instead of each
// finding the limit by being refused. The bucket is per process: hosts sharing a key divide the rate.

export class TokenBucket {
  #tokens: number;
  #at: number;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly now: () => number,
  ) {
    this.#tokens = burst;
    this.#at = now();
  }

  #refill(): void {
    const t = this.now();
    if (t > this.#at) {
      this.#tokens = Math.min(this.burst, this.#tokens + ((t - this.#at) / 1000) * this.ratePerSecond);
    }
    this.#at = t;
  }

  /** Whole tokens left now (what /metrics shows as budget left). */
  available(): number {
    this.#refill();
    return Math.floor(this.#tokens);
  }

  /** Takes one token when there is one. */
  tryTake(): boolean {
    this.#refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Milliseconds until one token is there (0 when one is). */
  waitMs(): number {
    this.#refill();
    return this.#tokens >= 1 ? 0 : Math.ceil(((1 - this.#tokens) / this.ratePerSecond) * 1000);
  }
}

/** Waits `ms` or until `signal` aborts (then throws its reason). */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
