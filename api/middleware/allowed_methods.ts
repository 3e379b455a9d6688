// What answers a request no route took: 405 with `Allow` when the path exists for other methods (HTTP's
// rule: `TRACE /health`, `PUT /v1/payments`), 404 when nothing has that path.
import type { Context } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { notFound, sendError } from "../errors.ts";

type RouteEntry = { method: string; path: string };

/** Methods app-wide middleware is registered under; they say nothing about which methods a path has. */
const ANY_METHOD = "ALL";

/**
 * The methods routed for each path, indexed once on first use, when every router is mounted. HEAD is
 * listed wherever GET is: Hono answers it with the GET route's headers.
 */
export function methodsIndex(routes: () => readonly RouteEntry[]): (path: string) => string[] {
  let router: TrieRouter<string> | undefined;
  return (path) => {
    if (!router) {
      router = new TrieRouter<string>();
      const seen = new Set<string>();
      for (const { method, path: pattern } of routes()) {
        const entry = `${method} ${pattern}`;
        if (method === ANY_METHOD || seen.has(entry)) continue;
        seen.add(entry);
        // Every pattern under one method, its own method as the "handler": one search yields all of them.
        router.add(ANY_METHOD, pattern, method);
      }
    }
    const methods = new Set(router.match(ANY_METHOD, path)[0].map(([method]) => method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
}

/** The app's notFound handler: 405 with `Allow` for a known path, else the NOT_FOUND envelope. */
export function notFoundOrMethodNotAllowed(methodsOf: (path: string) => string[]) {
  return (c: Context) => {
    const allowed = methodsOf(c.req.path);
    // A route may also call c.notFound() for a record it did not find: its own method is allowed then.
    if (allowed.length === 0 || allowed.includes(c.req.method)) return notFound(c);
    c.header("Allow", allowed.join(", "));
    // The catalogue has no 405 code: BAD_REQUEST names the fault, the status is HTTP's (docs/decisions.md).
    return sendError(
      c,
      "BAD_REQUEST",
      `Method ${c.req.method} not allowed on ${c.req.path}; allowed: ${allowed.join(", ")}`,
      405,
    );
  };
}
