// Several TRON full nodes behind one `fetch`: each request goes to the healthiest node; a node that answers
// 429/403/5xx, fails to connect or times out is benched for a while that doubles with each failure in a
// row (1 s up to 5 min), and a read is retried on the next node within the caller's time budget. A
// broadcast is sent to one node only: the payout path already looks a sent transaction up afterwards and
// re-sends the same signed bytes when it is missing, so nothing is ever signed twice.
// The client (client_http.ts) is unchanged: it posts to POOL_BASE_URL and the pool picks the node.

export type TronNode = { url: string; apiKey?: string };

export type NodeHealth = {
  url: string;
  requests: number;
  failures: number;
  /** 429 and 403 answers: the node's request budget spent. */
  throttled: number;
  /** Failures in a row; the bench doubles with each. */
  streak: number;
  benchedUntil: string | null;
  /** Moving average of answered requests. */
  latencyMs: number | null;
};

export const POOL_BASE_URL = "http://tron-node-pool";
const MIN_BENCH_MS = 1_000;
const MAX_BENCH_MS = 300_000;
/** Methods whose repeat on another node is not a plain read. */
const SEND_ONCE = /\/(broadcasttransaction|broadcasthex)$/;

/** `https://a.example|KEY,https://b.example`: nodes, each with its own key or else `defaultKey`. */
type NodeState = NodeHealth & { node: TronNode; benchedUntilMs: number };

export function createNodePool(
  nodes: TronNode[],
  options: { fetch?: typeof fetch; now?: () => number } = {},
) {
  if (nodes.length === 0) throw new Error("a TRON node pool needs at least one node");
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? Date.now;
  const states: NodeState[] = nodes.map((node) => ({
    node,
    url: node.url,
    requests: 0,
    failures: 0,
    throttled: 0,
    streak: 0,
    benchedUntil: null,
    benchedUntilMs: 0,
    latencyMs: null,
  }));

  /** Nodes not benched, fastest first; then the benched ones, soonest back first (all may be down). */
  function order(): NodeState[] {
    const t = now();
    const ready = states.filter((s) => s.benchedUntilMs <= t)
      .sort((a, b) => (a.latencyMs ?? 0) - (b.latencyMs ?? 0));
    const benched = states.filter((s) => s.benchedUntilMs > t).sort((a, b) =>
      a.benchedUntilMs - b.benchedUntilMs
    );
    return [...ready, ...benched];
  }

  function failed(s: NodeState, throttled: boolean) {
    s.failures++;
    if (throttled) s.throttled++;
    s.streak++;
    s.benchedUntilMs = now() + Math.min(MAX_BENCH_MS, MIN_BENCH_MS * 2 ** (s.streak - 1));
    s.benchedUntil = new Date(s.benchedUntilMs).toISOString();
  }

  function answered(s: NodeState, ms: number) {
    s.streak = 0;
    s.benchedUntilMs = 0;
    s.benchedUntil = null;
    s.latencyMs = s.latencyMs === null ? ms : Math.round(s.latencyMs * 0.8 + ms * 0.2);
  }

  const pooledFetch: typeof fetch = async (input, init) => {
    const path = String(input instanceof Request ? input.url : input).slice(POOL_BASE_URL.length);
    const tries = SEND_ONCE.test(path) ? order().slice(0, 1) : order();
    let last: Response | Error = new Error("no TRON node answered");
    for (const s of tries) {
      if (init?.signal?.aborted) break;
      const headers = new Headers(init?.headers);
      if (s.node.apiKey) headers.set("TRON-PRO-API-KEY", s.node.apiKey);
      else headers.delete("TRON-PRO-API-KEY");
      s.requests++;
      const started = now();
      try {
        const res = await doFetch(`${s.node.url}${path}`, { ...init, headers });
        if (res.status === 429 || res.status === 403 || res.status >= 500) {
          failed(s, res.status === 429 || res.status === 403);
          if (last instanceof Response) await last.body?.cancel();
          last = res;
          continue;
        }
        answered(s, now() - started);
        return res;
      } catch (err) {
        if (init?.signal?.aborted) throw err; // the caller's budget is spent: no other node
        failed(s, false);
        last = err instanceof Error ? err : new Error(String(err));
      }
    }
    if (last instanceof Response) return last;
    throw last;
  };

  return {
    apiUrl: POOL_BASE_URL,
    fetch: pooledFetch,
    health: (): NodeHealth[] =>
      states.map(({ node: _node, benchedUntilMs: _b, ...health }) => ({ ...health })),
  };
}
