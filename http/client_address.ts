// Who is on the other end of the socket, for the per-address limits of the API and the public pages.
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";

/**
 * The peer's address as Deno.serve reports it (Hono passes the serve info as `c.env`). Forwarded headers
 * are not trusted: any client could write them.
 */
export function clientAddress(c: Context<AppEnv>): string {
  const env = c.env as { remoteAddr?: { hostname?: unknown } } | undefined;
  const hostname = env?.remoteAddr?.hostname;
  return typeof hostname === "string" && hostname ? hostname.slice(0, 64) : "unknown";
}
