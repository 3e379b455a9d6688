// The fault column of `bench scanner`: the scanner's TRON client becomes a node pool of two nodes over the
// devnet, one of them answering 429 to every other request it gets (half its requests), as a TronGrid key
// over its budget does. Every request either node gets counts, the refused ones too.
import { createTronClient, type TronClient } from "../rails/tron/client.ts";
import { createNodePool } from "../rails/tron/node_pool.ts";
import type { BenchGateway } from "./gateway.ts";

export const FAULT_PHASE = "catch-up, 1 of 2 nodes 429 half";

export function halfThrottledPair(gw: BenchGateway): { tron: TronClient; requests: () => number } {
  let requests = 0;
  let askedA = 0;
  const fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    requests++;
    const url = String(input);
    if (url.startsWith("http://node-a") && askedA++ % 2 === 0) {
      return Promise.resolve(new Response('{"Error":"rate limit exceeded"}', { status: 429 }));
    }
    const devnetUrl = url.replace(/^http:\/\/node-[ab]/, "http://devnet.internal");
    return Promise.resolve(gw.devnet.app.fetch(new Request(devnetUrl, init)));
  };
  const pool = createNodePool([{ url: "http://node-a/devnet" }, { url: "http://node-b/devnet" }], {
    fetch,
    // The budget is not what is measured here: the refusals are.
    rps: 100_000,
    burst: 100_000,
  });
  return { tron: createTronClient({ apiUrl: pool.apiUrl, fetch: pool.fetch }), requests: () => requests };
}
