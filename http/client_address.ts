// Who is on the other end, for the per-address limits, the failed-key throttle and the IP allowlists.
import type { Context } from "hono";
import { addressAllowed } from "../domain/keys/ip_allowlist.ts";
import type { AppEnv } from "./env.ts";

/**
 * The peer's address as Deno.serve reports it (Hono passes the serve info as `c.env`). X-Forwarded-For is
 * read only when that peer is a proxy named in TRUSTED_PROXIES: then the client is the right-most address
 * of the header that is not itself a trusted proxy (addresses further left were written by the client and
 * prove nothing).
 */
export function clientAddress(c: Context<AppEnv>): string {
  const env = c.env as { remoteAddr?: { hostname?: unknown } } | undefined;
  const hostname = env?.remoteAddr?.hostname;
  const peer = typeof hostname === "string" && hostname ? hostname.slice(0, 64) : "unknown";
  const trusted = c.get("deps")?.config.trustedProxies ?? [];
  if (trusted.length === 0 || !isTrusted(trusted, peer)) return peer;
  const forwarded = (c.req.header("x-forwarded-for") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i--) {
    if (!isTrusted(trusted, forwarded[i])) return forwarded[i].slice(0, 64);
  }
  return peer;
}

const isTrusted = (trusted: string[], address: string) => addressAllowed(trusted, address);
