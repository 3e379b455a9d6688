// Several TRON full nodes (and optionally a solidity node) behind one `fetch`. Each request goes to the
// healthiest trusted node with budget left: not benched, not lagging, not on a fork, then fastest. A
// node that answers 429/403/5xx or truncated JSON, fails to connect or times out is benched for a
// while that doubles with each failure in a row (1 s up to 5 min), and a read is retried on the next
// node. Health (head, lag, fork) is probed every few seconds (node_probe.ts); each node spends tokens
// from its own budget (node_budget.ts): a token bucket in this process, or, given a `budgetStore`, tokens
// leased from PostgreSQL so that every host sharing the node and its key stays within its rate together. A broadcast is sent to one node only: the payout path looks a
// sent transaction up afterwards and re-sends the same signed bytes, so nothing is signed twice.
// The client (client_http.ts) is unchanged: it posts to POOL_BASE_URL and the pool picks the node.
import {
  budgetNodeName,
  type BudgetStore,
  localBudget,
  type NodeBudget,
  sharedBudget,
} from "./node_budget.ts";
import { type ProbedNode, probeNodes } from "./node_probe.ts";
import { describeGenesis, genesisIdOf } from "./networks.ts";

export type TronNode = { url: string; apiKey?: string; rps?: number };

export type NodeHealth = ProbedNode & {
  role: "full" | "solidity";
  requests: number;
  failures: number;
  /** 429 and 403 answers: the node's request budget spent. */
  throttled: number;
  /** Failures in a row; the bench doubles with each. */
  streak: number;
  benchedUntil: string | null;
  /** Moving average of answered requests. */
  latencyMs: number | null;
  /** Moving average of failed requests among all (0..1). */
  errorRate: number;
  /** Whole tokens left in this node's budget (this process's bucket, or its view of the shared one). */
  budgetLeft: number;
  /** Not used now: benched, lagging, forked or not (yet) shown to be on the configured network. */
  benched: boolean;
  /**
   * Whether the node serves the configured network's genesis block: `unchecked` until it has answered
   * (never used meanwhile), `wrong` when it serves another chain (never used). `verified` without a
   * `genesisBlockId` option (the devnet, tests).
   */
  identity: "unchecked" | "verified" | "wrong";
  /** The genesis block id the node answered, once it has. */
  genesisBlockId: string | null;
};

/** What a node said about its genesis block: the pool's verdict on it. */
export type NodeIdentity = Pick<NodeHealth, "url" | "role" | "identity" | "genesisBlockId">;

export type NodePoolOptions = {
  fetch?: typeof fetch;
  now?: () => number;
  solidity?: TronNode;
  /** Requests a second per node unless the node says otherwise (TronGrid with a key: 15-30). */
  rps?: number;
  burst?: number;
  /**
   * Where hosts sharing a node lease its tokens (db/node_budget.ts); unset: a token bucket per process.
   * `holder` names this process among them; `budgetTimeoutMs` is how long a lease may take before the
   * pool falls back to this host's share of the rate.
   */
  budgetStore?: BudgetStore;
  holder?: string;
  budgetTimeoutMs?: number;
  /** How long the pool keeps to this host's share before it leases again (default 5 s). */
  budgetFallbackMs?: number;
  maxLagBlocks?: number;
  /** How stale health may get before the next request probes again. */
  probeMs?: number;
  /** One node's answer time before the pool tries the next (the caller's own timeout still applies). */
  nodeTimeoutMs?: number;
  /** False: no health probes (tests of the failover alone). */
  probe?: boolean;
  onWarning?: (message: string, fields: Record<string, unknown>) => void;
  /**
   * The configured network's genesis block id (rails/tron/networks.ts): a node is used only once it has
   * answered block 0 with this id. Unset: no check (the devnet, whose genesis is made at its first start).
   */
  genesisBlockId?: string;
};

export const POOL_BASE_URL = "http://tron-node-pool";
const MIN_BENCH_MS = 1_000;
const MAX_BENCH_MS = 300_000;
/** Methods whose repeat on another node is not a plain read. */
const SEND_ONCE = /\/(broadcasttransaction|broadcasthex)$/;

type NodeState = NodeHealth & { node: TronNode; benchedUntilMs: number; budget: NodeBudget };

export function createNodePool(nodes: TronNode[], options: NodePoolOptions = {}) {
  if (nodes.length === 0) throw new Error("a TRON node pool needs at least one node");
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? Date.now;
  const maxLag = options.maxLagBlocks ?? 10;
  const probeMs = options.probeMs ?? 3_000;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 5_000;
  const warn = options.onWarning ?? (() => {});
  const holder = options.holder ?? crypto.randomUUID();
  const budgetOf = (node: TronNode): NodeBudget => {
    const rps = node.rps ?? options.rps ?? 15;
    const burst = Math.max(1, options.burst ?? 30);
    if (!options.budgetStore) return localBudget(rps, burst, now);
    return sharedBudget({
      store: options.budgetStore,
      node: budgetNodeName(node.url, node.apiKey),
      holder,
      rps,
      burst,
      now,
      timeoutMs: options.budgetTimeoutMs,
      fallbackMs: options.budgetFallbackMs,
      onWarning: warn,
    });
  };
  const make = (node: TronNode, role: NodeHealth["role"]): NodeState => ({
    node,
    role,
    url: node.url,
    requests: 0,
    failures: 0,
    throttled: 0,
    streak: 0,
    benchedUntil: null,
    benchedUntilMs: 0,
    latencyMs: null,
    errorRate: 0,
    budgetLeft: 0,
    benched: false,
    identity: options.genesisBlockId ? "unchecked" : "verified",
    genesisBlockId: null,
    head: null,
    headHash: null,
    lagBlocks: null,
    lagging: false,
    forked: false,
    probedAt: null,
    budget: budgetOf(node),
  });
  const full = nodes.map((n) => make(n, "full"));
  const solidity = options.solidity ? make(options.solidity, "solidity") : undefined;
  const all = solidity ? [...full, solidity] : full;
  let probedAtMs = -Infinity;
  let probing: Promise<void> | null = null;
  /** The last probe's: nodes answered different hashes for one block, with no strict majority. */
  let disagreement = false;

  const usable = (s: NodeState, t: number) =>
    s.identity === "verified" && s.benchedUntilMs <= t && !s.lagging && !s.forked;

  /**
   * Usable nodes first (those with a token now before those without, then fastest; errors bench a node);
   * then lagging or benched ones, soonest back first, as a last resort. Nodes on a fork never answer.
   */
  function order(pool: NodeState[]): NodeState[] {
    const t = now();
    const ready = pool.filter((s) => usable(s, t)).sort((a, b) =>
      Number(b.budget.ready()) - Number(a.budget.ready()) ||
      (a.latencyMs ?? 0) - (b.latencyMs ?? 0)
    );
    const rest = pool.filter((s) => !usable(s, t) && !s.forked && s.identity === "verified")
      .sort((a, b) => Number(a.lagging) - Number(b.lagging) || a.benchedUntilMs - b.benchedUntilMs);
    return [...ready, ...rest];
  }

  function failed(s: NodeState, throttled: boolean) {
    s.failures++;
    if (throttled) s.throttled++;
    s.streak++;
    s.errorRate = s.errorRate * 0.9 + 0.1;
    s.benchedUntilMs = now() + Math.min(MAX_BENCH_MS, MIN_BENCH_MS * 2 ** (s.streak - 1));
    s.benchedUntil = new Date(s.benchedUntilMs).toISOString();
  }

  function answered(s: NodeState, ms: number) {
    s.streak = 0;
    s.benchedUntilMs = 0;
    s.benchedUntil = null;
    s.errorRate = s.errorRate * 0.9;
    s.latencyMs = s.latencyMs === null ? ms : Math.round(s.latencyMs * 0.8 + ms * 0.2);
  }

  /** One request to one node: its token, its own timeout, its failures counted. Null: try another. */
  async function attempt(
    s: NodeState,
    path: string,
    init: RequestInit | undefined,
    sendOnce: boolean,
  ): Promise<Response | Error> {
    await s.budget.take(init?.signal);
    const headers = new Headers(init?.headers);
    if (s.node.apiKey) headers.set("TRON-PRO-API-KEY", s.node.apiKey);
    else headers.delete("TRON-PRO-API-KEY");
    s.requests++;
    const started = now();
    const own = AbortSignal.timeout(nodeTimeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, own]) : own;
    try {
      const res = await doFetch(`${s.node.url}${path}`, { ...init, headers, signal });
      if (res.status === 429 || res.status === 403 || res.status >= 500) {
        failed(s, res.status === 429 || res.status === 403);
        return res;
      }
      // A read cut short (a proxy or a node dying mid-answer) is another node's to answer. A broadcast's
      // answer is passed on whatever it is: its fate is settled by looking the transaction up, not by a resend.
      const text = await res.text();
      if (!sendOnce && res.ok) JSON.parse(text);
      answered(s, now() - started);
      return new Response(text, { status: res.status, headers: res.headers });
    } catch (err) {
      if (init?.signal?.aborted) throw err; // the caller's budget is spent: no other node
      failed(s, false);
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  const ask = async (s: NodeState, path: string, body: Record<string, unknown>) => {
    const res = await attempt(s, path, { method: "POST", body: JSON.stringify(body) }, false);
    if (!(res instanceof Response) || !res.ok) {
      throw res instanceof Error ? res : new Error(`${res.status}`);
    }
    return await res.json();
  };

  /**
   * Asks each node not yet verified for its genesis block. A node on another chain is `wrong` and warned
   * about; one that does not answer stays `unchecked` (asked again at the next probe). Verified nodes are
   * not asked again: block 0 never changes, and asking costs each node a request of its day's quota.
   */
  async function checkIdentities(): Promise<void> {
    const expected = options.genesisBlockId?.toLowerCase();
    if (!expected) return;
    await Promise.all(
      all.filter((s) => s.identity !== "verified").map(async (s) => {
        const path = s.role === "solidity" ? "/walletsolidity/getblockbynum" : "/wallet/getblockbynum";
        const genesis = await ask(s, path, { num: 0 }).then(genesisIdOf, () => null);
        if (genesis === null) return;
        s.genesisBlockId = genesis;
        if (genesis === expected) {
          s.identity = "verified";
          return;
        }
        if (s.identity !== "wrong") {
          warn("TRON node is on another network: never used", {
            node: s.url,
            serves: describeGenesis(genesis),
            expected: describeGenesis(expected),
          });
        }
        s.identity = "wrong";
      }),
    );
  }

  /** Probes every node again when health is older than probeMs; the first request waits for it. */
  function refreshHealth(): Promise<void> {
    if (probing) return probing;
    if (options.probe === false || now() - probedAtMs < probeMs) return Promise.resolve();
    probedAtMs = now();
    const verified = () => full.filter((s) => s.identity === "verified");
    probing = checkIdentities().then(() => probeNodes(verified(), ask, maxLag, new Date(now()).toISOString()))
      .then((result) => {
        for (const s of result.rewound) {
          failed(s, false);
          warn("TRON node head went backwards: benched", { node: s.url, head: s.head });
        }
        disagreement = result.disagreement;
        if (disagreement) warn("TRON nodes disagree on a block hash with no majority", {});
        for (const s of full) {
          if (s.forked) warn("TRON node on another fork: not trusted", { node: s.url, head: s.head });
          else if (s.lagging) warn("TRON node lags: benched", { node: s.url, lagBlocks: s.lagBlocks });
        }
      }).catch(() => {}).finally(() => (probing = null));
    return probing;
  }

  const pooledFetch: typeof fetch = async (input, init) => {
    const path = String(input instanceof Request ? input.url : input).slice(POOL_BASE_URL.length);
    const first = probedAtMs === -Infinity && options.probe !== false;
    const health = refreshHealth();
    // The first request waits for health; so does any while no node is verified yet (one that was down at
    // start-up is asked for its genesis block by this probe, and may serve this very request).
    if (first || !all.some((s) => s.identity === "verified")) await health;
    const sendOnce = SEND_ONCE.test(path);
    const candidates = solidity && path.startsWith("/walletsolidity/")
      ? [...order([solidity]), ...order(full)]
      : order(full);
    const tries = sendOnce ? candidates.slice(0, 1) : candidates;
    let last: Response | Error = new Error("no trusted TRON node to ask");
    for (const s of tries) {
      if (init?.signal?.aborted) break;
      const res = await attempt(s, path, init, sendOnce);
      if (last instanceof Response) await last.body?.cancel();
      last = res;
      if (res instanceof Response && !(res.status === 429 || res.status === 403 || res.status >= 500)) {
        return res;
      }
    }
    if (last instanceof Response) return last;
    throw last;
  };

  return {
    apiUrl: POOL_BASE_URL,
    fetch: pooledFetch,
    /**
     * Asks every node not yet verified for its genesis block now (start-up does, to refuse a node on
     * another network before anything is read from it) and answers each node's verdict.
     */
    async verifyIdentity(): Promise<NodeIdentity[]> {
      await checkIdentities();
      return all.map(({ url, role, identity, genesisBlockId }) => ({ url, role, identity, genesisBlockId }));
    },
    /**
     * Probes every node now, however fresh health is, and waits for the verdicts: a node found on another
     * fork is left out of reads from then on. `disagreement`: nodes answered different hashes for one block
     * with no strict majority (two nodes that differ), so no node's word on the chain can be taken.
     */
    async probe(): Promise<{ disagreement: boolean }> {
      await probing;
      probedAtMs = now() - probeMs;
      await refreshHealth();
      return { disagreement };
    },
    health: (): NodeHealth[] => {
      const t = now();
      return all.map(({ node: _node, benchedUntilMs: _b, budget, ...health }, i) => ({
        ...health,
        budgetLeft: budget.available(),
        benched: !usable(all[i], t),
      }));
    },
    /** Waits for a probe and budget leases in flight (a stopping process must not leave one behind). */
    async close(): Promise<void> {
      await probing;
      await Promise.all(all.map((s) => s.budget.close()));
    },
  };
}

export type NodePool = ReturnType<typeof createNodePool>;
