// How one live aggregator answers this process, per kind of call: requests, failures (no usable answer:
// refused connection, timeout, HTTP 5xx/429, HTML or truncated JSON), latency as histogram buckets, and the
// time of the last success and failure. In memory per process, like the HTTP request counts: Prometheus
// sums processes; /health reads the same numbers to say "degraded" when the aggregator stopped answering.

/** Histogram upper bounds in seconds (Prometheus `le`); the last bucket (+Inf) is the request count. */
export const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

export type CallKindStats = {
  provider: string;
  kind: string;
  requests: number;
  failures: number;
  /** Cumulative counts per LATENCY_BUCKETS bound (index i: calls that took at most bound i). */
  buckets: number[];
  secondsSum: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  /** Order of the last success and failure among all calls (a clock may give two calls the same time). */
  lastSuccessSeq: number;
  lastFailureSeq: number;
};

export class AggregatorCallStats {
  #byKey = new Map<string, CallKindStats>();
  #seq = 0;

  /** `provider` names the aggregator's API (cinetpay, cinetpay-transfer, paydunya, ...). */
  constructor(readonly now: () => number = () => Date.now()) {}

  record(provider: string, kind: string, ok: boolean, seconds: number): void {
    const key = `${provider}\u0000${kind}`;
    let s = this.#byKey.get(key);
    if (!s) {
      s = {
        provider,
        kind,
        requests: 0,
        failures: 0,
        buckets: LATENCY_BUCKETS.map(() => 0),
        secondsSum: 0,
        lastSuccessAt: null,
        lastFailureAt: null,
        lastSuccessSeq: 0,
        lastFailureSeq: 0,
      };
      this.#byKey.set(key, s);
    }
    s.requests++;
    s.secondsSum += seconds;
    LATENCY_BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) s.buckets[i]++;
    });
    const seq = ++this.#seq;
    if (ok) {
      s.lastSuccessAt = this.now();
      s.lastSuccessSeq = seq;
    } else {
      s.failures++;
      s.lastFailureAt = this.now();
      s.lastFailureSeq = seq;
    }
  }

  entries(): CallKindStats[] {
    return [...this.#byKey.values()].map((s) => ({ ...s, buckets: [...s.buckets] }));
  }

  /**
   * Per aggregator API: "unreachable" when its most recent call got no usable answer, "ok" when it
   * answered, "unknown" before any call.
   */
  availability(): Map<string, { state: "ok" | "unreachable"; lastSuccessAt: number | null }> {
    const out = new Map<string, { state: "ok" | "unreachable"; lastSuccessAt: number | null }>();
    const last = new Map<string, { success: number; failure: number; at: number | null }>();
    for (const s of this.#byKey.values()) {
      const l = last.get(s.provider) ?? { success: 0, failure: 0, at: null };
      if (s.lastSuccessSeq > l.success) [l.success, l.at] = [s.lastSuccessSeq, s.lastSuccessAt];
      l.failure = Math.max(l.failure, s.lastFailureSeq);
      last.set(s.provider, l);
    }
    for (const [provider, l] of last) {
      out.set(provider, { state: l.failure > l.success ? "unreachable" : "ok", lastSuccessAt: l.at });
    }
    return out;
  }
}
