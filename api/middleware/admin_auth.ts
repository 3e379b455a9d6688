// Operator routes (/admin/api, /metrics) take either `Authorization: Bearer $ADMIN_TOKEN` (automation,
// recorded as "token", an admin) or an operator's session cookie. With a session, a request that changes
// something must carry the session's CSRF token (`X-CSRF-Token`) and must not come from another origin.
// Each route names the least role it needs: viewer (reads), reviewer (decisions on money), admin (the
// rest). Failures are throttled per client address; the input guard runs after, so only an operator
// learns what a route refuses. The cookie's name and flags are in http/operator_session.ts.
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { crossOrigin, sessionCookieName } from "../../http/operator_session.ts";
import { authenticateOperator } from "../../domain/auth.ts";
import { AppError } from "../../domain/errors.ts";
import { throttleAuthFailure } from "../../domain/limits/rate_limit.ts";
import { type Role, roleAllows, tokenActor } from "../../domain/operators/roles.ts";
import { csrfMatches, resumeSession } from "../../domain/operators/sessions.ts";
import type { AppEnv } from "../../http/env.ts";
import { authenticatesFirst, checkStorableInput } from "./input_guard.ts";
import { clientAddress } from "../../http/client_address.ts";

export const CSRF_HEADER = "x-csrf-token";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Who is calling, from the token or the session cookie; sets `operator` (and `operatorSession`). */
export async function identifyOperator(c: Context<AppEnv>): Promise<void> {
  const deps = c.get("deps");
  const address = clientAddress(c);
  const authorization = c.req.header("authorization");
  const cookie = getCookie(c, sessionCookieName(deps.config));
  if (authorization !== undefined || cookie === undefined) {
    await authenticateOperator(deps, authorization, address);
    c.set("operator", tokenActor(address));
    return;
  }
  let session;
  try {
    session = await resumeSession(deps, cookie, address);
  } catch (err) {
    if (err instanceof AppError) await throttleAuthFailure(deps, "admin", address);
    throw err;
  }
  c.set("operator", session.actor);
  c.set("operatorSession", session);
}

/** Refuses a session's state-changing request without its CSRF token, or from another origin. */
export function checkCsrf(c: Context<AppEnv>, presented: string | undefined): void {
  const session = c.get("operatorSession");
  if (!session || SAFE_METHODS.has(c.req.method)) return;
  if (crossOrigin(c)) {
    throw new AppError("FORBIDDEN", "A request from another site is refused", { reason: "CROSS_ORIGIN" });
  }
  if (!csrfMatches(session, presented)) {
    throw new AppError("FORBIDDEN", "CSRF token missing or wrong: send the session's X-CSRF-Token", {
      reason: "CSRF_TOKEN_INVALID",
    });
  }
}

export function assertRole(c: Context<AppEnv>, needed: Role): void {
  const actor = c.get("operator");
  if (!roleAllows(actor.role, needed)) {
    throw new AppError("FORBIDDEN", `This needs the ${needed} role; you are ${actor.role}`, {
      reason: "INSUFFICIENT_ROLE",
    });
  }
}

function requireRole(needed: Role): MiddlewareHandler<AppEnv> {
  return authenticatesFirst(async (c, next) => {
    await identifyOperator(c);
    checkCsrf(c, c.req.header(CSRF_HEADER));
    assertRole(c, needed);
    await checkStorableInput(c);
    await next();
  });
}

/** Reads: any operator. */
export const requireViewer: MiddlewareHandler<AppEnv> = requireRole("viewer");
/** Decisions on money (approve, reject, cancel, complete): reviewers and admins. */
export const requireReviewer: MiddlewareHandler<AppEnv> = requireRole("reviewer");
/** Merchants, keys, limits, operators: admins (and the token). */
export const requireAdmin: MiddlewareHandler<AppEnv> = requireRole("admin");
