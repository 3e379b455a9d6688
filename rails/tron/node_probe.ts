// The continuous health check of a node pool: every few seconds each node is asked for its head, and the
// nodes that answer for a block they all have (the lowest head among them) are asked for its hash. From
// that: the best head (of nodes not on a fork), each node's lag behind it, a node more than `maxLagBlocks`
// behind is "lagging", and a node whose hash for that block differs from a strict majority (at least two
// nodes agreeing) is "forked": its answers are not used until it agrees again. Two nodes that disagree
// give no majority; the earlier verdicts then stand and the disagreement is reported.

export type HeadSeen = { number: number; hash: string };

export type ProbedNode = {
  url: string;
  head: number | null;
  headHash: string | null;
  lagBlocks: number | null;
  lagging: boolean;
  forked: boolean;
  probedAt: string | null;
};

export type ProbeResult<N> = {
  /** Nodes whose head went backwards since the last probe: a rollback or a bad node. */
  rewound: N[];
  /** True when the nodes asked about one block disagree with no strict majority. */
  disagreement: boolean;
  best: number | null;
};

/** A block as java-tron's HTTP API gives it, reduced to its number and hash; null for `{}` or junk. */
export function readHead(json: unknown): HeadSeen | null {
  const b = json as { blockID?: unknown; block_header?: { raw_data?: { number?: unknown } } } | null;
  const hash = b?.blockID;
  const number = b?.block_header?.raw_data?.number ?? (typeof hash === "string" ? 0 : undefined);
  if (typeof hash !== "string" || typeof number !== "number") return null;
  return { number, hash: hash.toLowerCase() };
}

export async function probeNodes<N extends ProbedNode>(
  nodes: N[],
  ask: (node: N, path: string, body: Record<string, unknown>) => Promise<unknown>,
  maxLagBlocks: number,
  nowIso: string,
): Promise<ProbeResult<N>> {
  const heads = await Promise.all(
    nodes.map((n) => ask(n, "/wallet/getnowblock", {}).then(readHead, () => null)),
  );
  const rewound: N[] = [];
  const answered: Array<{ node: N; head: HeadSeen }> = [];
  nodes.forEach((node, i) => {
    const head = heads[i];
    if (!head) return;
    if (node.head !== null && head.number < node.head) rewound.push(node);
    node.head = head.number;
    node.headHash = head.hash;
    node.probedAt = nowIso;
    answered.push({ node, head });
  });

  let disagreement = false;
  if (answered.length >= 2) {
    const check = Math.min(...answered.map((a) => a.head.number));
    const hashes = await Promise.all(
      answered.map(({ node, head }) =>
        head.number === check
          ? Promise.resolve(head.hash)
          : ask(node, "/wallet/getblockbynum", { num: check })
            .then((json) => {
              const b = readHead(json);
              return b && b.number === check ? b.hash : null;
            }, () => null)
      ),
    );
    const groups = new Map<string, N[]>();
    answered.forEach(({ node }, i) => {
      const hash = hashes[i];
      if (hash) groups.set(hash, [...(groups.get(hash) ?? []), node]);
    });
    const sizes = [...groups.values()].map((g) => g.length).sort((a, b) => b - a);
    const majority = sizes[0] >= 2 && (sizes.length === 1 || sizes[0] > sizes[1])
      ? [...groups.values()].find((g) => g.length === sizes[0])!
      : null;
    if (majority) {
      for (const g of groups.values()) for (const node of g) node.forked = g !== majority;
    } else if (groups.size > 1) disagreement = true;
  }

  const trusted = answered.filter((a) => !a.node.forked).map((a) => a.head.number);
  const best = trusted.length > 0 ? Math.max(...trusted) : null;
  for (const node of nodes) {
    node.lagBlocks = best !== null && node.head !== null ? Math.max(0, best - node.head) : null;
    node.lagging = node.lagBlocks !== null && node.lagBlocks > maxLagBlocks;
  }
  return { rewound, disagreement, best };
}
