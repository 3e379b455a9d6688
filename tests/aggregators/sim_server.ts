// What the two aggregator simulators share: a real HTTP server on 127.0.0.1 (the adapters reach it by URL,
// as production reaches the aggregator's host), requests that can be held unanswered (a timeout seen by
// the caller while the aggregator went on), and callback delivery into the gateway under test.
import type { Hono } from "hono";

export type Deliver = (url: string, body: string, headers: Record<string, string>) => Promise<number>;

/** Serves `app` on a free port; `hang()` inside a handler keeps the caller waiting until close(). */
export function serveSimulator(app: Hono) {
  const held = new Set<() => void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const { port } = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}`,
    /** A promise that settles only at close(): the aggregator "never answers" this request. */
    hang(): Promise<void> {
      return new Promise((resolve) => held.add(resolve));
    },
    async close() {
      for (const release of held) release();
      held.clear();
      await server.shutdown();
    },
  };
}

/** Delivers a callback straight into a gateway's app (its public URL does not listen in tests). */
export function deliverTo(
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
): {
  deliver: Deliver;
  answers: number[];
} {
  const answers: number[] = [];
  return {
    answers,
    deliver: async (url, body, headers) => {
      const u = new URL(url);
      const res = await app.request(u.pathname + u.search, { method: "POST", body, headers });
      await res.body?.cancel();
      answers.push(res.status);
      return res.status;
    },
  };
}
