// What the operator API (api/middleware/admin_auth.ts) and the operator page (pages/admin/) share about
// sessions: the cookie's name and flags, and how a browser's request from another site is recognised.
import type { Context } from "hono";
import type { Deps } from "../domain/deps.ts";
import type { AppEnv } from "./env.ts";

/** Cookies travel only over HTTPS, except on a development server reached over plain http. */
export function secureCookies(config: Pick<Deps["config"], "appEnv" | "publicUrl">): boolean {
  return !(config.appEnv === "development" && config.publicUrl.startsWith("http:"));
}

/** `__Host-` binds the cookie to this host and path / (browsers require Secure for it). */
export function sessionCookieName(config: Pick<Deps["config"], "appEnv" | "publicUrl">): string {
  return secureCookies(config) ? "__Host-gw_operator" : "gw_operator";
}

export function sessionCookieOptions(config: Deps["config"]) {
  return {
    httpOnly: true,
    secure: secureCookies(config),
    sameSite: "Strict" as const,
    path: "/",
    maxAge: config.operators.sessionMaxHours * 3600,
  };
}

/** A browser's request sent from a page of another site (a stolen form, a script elsewhere). */
export function crossOrigin(c: Context<AppEnv>): boolean {
  if (c.req.header("sec-fetch-site") === "cross-site") return true;
  const origin = c.req.header("origin");
  if (!origin) return false;
  const own = new Set([new URL(c.req.url).origin, new URL(c.get("deps").config.publicUrl).origin]);
  return !own.has(origin);
}
