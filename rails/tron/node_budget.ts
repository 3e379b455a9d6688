// A request budget per node and key. TronGrid publishes a per-key rate (about 15-30 requests a second
// with a key) and answers 429/403 beyond it; spending our own tokens first keeps the scanner, sweeps,
// payouts and balance reads inside that rate together instead of each finding the limit by being refused.
// One process alone: a token bucket (`localBudget`). Several hosts on one database and one node key:
// `sharedBudget` leases tokens in small blocks from a row per node and window of the database's clock, so
// their combined rate stays within the node's; when the database is slow or down it falls back to this
// host's share of the rate (the rate divided by the hosts last seen leasing) and says so.

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

/** What the pool spends before each request to a node. */
export interface NodeBudget {
  /** Waits for one request's token (throws the signal's reason when it aborts first). */
  take(signal?: AbortSignal | null): Promise<void>;
  /** True when a request could go now without waiting: the pool prefers such nodes. */
  ready(): boolean;
  /** Whole tokens left now, as far as this process knows (what /metrics shows as budget left). */
  available(): number;
  /** Waits for a lease still in flight (a stopping process must not leave one behind). */
  close(): Promise<void>;
}

/** One process's budget: a token bucket of `rps` a second holding up to `burst`. */
export function localBudget(rps: number, burst: number, now: () => number): NodeBudget {
  const bucket = new TokenBucket(rps, burst, now);
  return {
    async take(signal) {
      while (!bucket.tryTake()) await sleep(bucket.waitMs(), signal);
    },
    ready: () => bucket.waitMs() === 0,
    available: () => bucket.available(),
    close: () => Promise.resolve(),
  };
}

export type BudgetLease = { granted: number; taken: number; hosts: number; msLeft: number };

/** Where hosts meet to lease a node's tokens (db/node_budget.ts: a PostgreSQL row per node and window). */
export type BudgetStore = (lease: {
  node: string;
  holder: string;
  want: number;
  cap: number;
  windowMs: number;
}) => Promise<BudgetLease>;

export type SharedBudgetOptions = {
  store: BudgetStore;
  /** The node's name in the store: its url and a hash of its key (see `budgetNodeName`). */
  node: Promise<string> | string;
  /** This process (a pool): counted once per window among the hosts sharing the node. */
  holder: string;
  rps: number;
  burst: number;
  now: () => number;
  /** A lease slower than this is given up and the local share used (default 250 ms). */
  timeoutMs?: number;
  /** How long the local share is used before the database is asked again (default 5 s). */
  fallbackMs?: number;
  onWarning?: (message: string, fields: Record<string, unknown>) => void;
};

/** Leases are this share of a window's tokens (at least 1): few queries, little left unspent. */
const LEASE_FRACTION = 5;

/**
 * A node's rate shared by every host leasing from one store. The window is one second (longer for a
 * rate under 1 a second, so that it holds one whole token); its cap is the rate times the window. A
 * process leases a block of tokens (a fifth of the cap, more when more requests wait), spends them
 * until the window ends (unspent ones are lost: the others may be refused a block early), and when a
 * lease grants nothing waits for the next window. A lease that fails or takes longer than `timeoutMs`
 * puts the process on a local token bucket of the rate divided by the hosts seen leasing in the last
 * minute (1 when none was seen) for `fallbackMs`, with a warning; the scanner never waits on the database
 * for longer than that.
 */
export function sharedBudget(options: SharedBudgetOptions): NodeBudget {
  const { store, holder, rps, now } = options;
  const windowMs = Math.max(1000, Math.ceil(1000 / rps));
  const cap = Math.max(1, Math.floor((rps * windowMs) / 1000));
  const block = Math.max(1, Math.ceil(cap / LEASE_FRACTION));
  const timeoutMs = options.timeoutMs ?? 250;
  const fallbackMs = options.fallbackMs ?? 5_000;
  const warn = options.onWarning ?? (() => {});
  let nodeName: string | undefined;
  const named = Promise.resolve(options.node).then((n) => (nodeName = n));

  let left = 0;
  /** When this process's leased tokens expire (the window's end, by our clock, a little early). */
  let until = 0;
  /** The window's budget is spent until then. */
  let spentUntil = 0;
  /** The last lease's view of the window: tokens taken by every host. */
  let taken = 0;
  let hosts = 1;
  let hostsSeenAt = -Infinity;
  let fallbackUntil = 0;
  let local: TokenBucket | null = null;
  let waiting = 0;
  let leasing: Promise<void> | null = null;
  const inFlight = new Set<Promise<unknown>>();

  function fallBack(reason: string) {
    const t = now();
    const share = t - hostsSeenAt < 60_000 ? hosts : 1;
    if (fallbackUntil <= t) {
      warn("TRON node budget: the database did not answer; using this host's share of the rate", {
        node: nodeName,
        reason,
        hosts: share,
        rps: rps / share,
        forMs: fallbackMs,
      });
      local = new TokenBucket(rps / share, Math.max(1, Math.floor(options.burst / share)), now);
    }
    fallbackUntil = t + fallbackMs;
    left = 0;
  }

  async function lease(): Promise<void> {
    const want = Math.min(cap, Math.max(block, waiting));
    const started = now();
    const asked = named.then((node) => store({ node, holder, want, cap, windowMs }));
    inFlight.add(asked);
    asked.then(() => inFlight.delete(asked), () => inFlight.delete(asked));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = new Promise<"slow">((resolve) => (timer = setTimeout(() => resolve("slow"), timeoutMs)));
    let answer: BudgetLease | "slow";
    try {
      answer = await Promise.race([asked, slow]);
    } catch (err) {
      fallBack(String(err));
      return;
    } finally {
      clearTimeout(timer);
    }
    if (answer === "slow") {
      asked.catch(() => {}); // its tokens, if it is granted any, are lost: never more than the rate
      fallBack(`no answer within ${timeoutMs} ms`);
      return;
    }
    const end = started + answer.msLeft;
    left = end > until ? answer.granted : left + answer.granted;
    until = end;
    taken = answer.taken;
    if (answer.hosts >= hosts || now() - hostsSeenAt >= 60_000) {
      hosts = answer.hosts;
      hostsSeenAt = now();
    }
    if (answer.granted < want) spentUntil = end;
  }

  return {
    async take(signal) {
      waiting++;
      try {
        for (;;) {
          if (signal?.aborted) throw signal.reason;
          const t = now();
          if (left > 0 && t < until) {
            left--;
            return;
          }
          if (t < fallbackUntil && local) {
            if (local.tryTake()) return;
            await sleep(Math.min(local.waitMs(), fallbackUntil - t), signal);
            continue;
          }
          if (t < spentUntil) {
            await sleep(spentUntil - t, signal);
            continue;
          }
          leasing ??= lease().finally(() => (leasing = null));
          await leasing;
        }
      } finally {
        waiting--;
      }
    },
    ready() {
      const t = now();
      if (t < fallbackUntil && local) return local.waitMs() === 0;
      return (left > 0 && t < until) || t >= spentUntil;
    },
    available() {
      const t = now();
      if (t < fallbackUntil && local) return local.available();
      if (t >= until) return cap; // a new window: nothing taken that we know of
      return left + Math.max(0, cap - taken);
    },
    async close() {
      await leasing;
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** A node's name in the shared store: its url and the first hex of its key's SHA-256 (never the key). */
export async function budgetNodeName(url: string, apiKey?: string): Promise<string> {
  if (!apiKey) return url;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(apiKey)));
  return `${url}#${Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
