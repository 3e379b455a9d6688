// Fixed-window request counters in Deno KV, so every process of the gateway shares one limit.
import type { Deps } from "./deps.ts";
import { AppError } from "./errors.ts";

export const WINDOW_SECONDS = 60;
const RATE_LIMIT_PREFIX = "ratelimit";

/** The specification's Limits; a merchant's `rateLimits` may raise any of them (enterprise merchants). */
export const DEFAULT_LIMITS: Record<string, number> = {
  default: 100,
  "POST /v1/payments": 30,
  "POST /v1/payout": 10,
  "POST /v1/withdrawals": 5,
};

export type RateDecision = { limit: number; remaining: number; retryAfterSeconds: number; allowed: boolean };

/**
 * Counts one request in the bucket's current window. An atomic `sum` never conflicts, so concurrent
 * requests are all counted (an optimistic check-and-set refused traffic under contention); the read after
 * it is at least this request's position. So demand within the limit is never refused and the limit is
 * never exceeded; a burst that overshoots it may be refused a little more than strictly needed until the
 * window ends. Past windows are deleted by `purgeRateLimitWindows`.
 */
export async function takeToken(
  deps: Pick<Deps, "kv" | "clock">,
  bucket: string[],
  limit: number,
): Promise<RateDecision> {
  const nowMs = deps.clock.now().getTime();
  const window = Math.floor(nowMs / (WINDOW_SECONDS * 1000));
  const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_SECONDS * 1000 - nowMs) / 1000));
  const key = [RATE_LIMIT_PREFIX, window, ...bucket];
  await deps.kv.atomic().sum(key, 1n).commit();
  const count = Number((await deps.kv.get<Deno.KvU64>(key)).value?.value ?? 1n);
  const allowed = count <= limit;
  return { limit, remaining: Math.max(0, limit - count), retryAfterSeconds, allowed };
}

/** Deletes the counters of windows that ended; a cron runs it. */
export async function purgeRateLimitWindows(deps: Pick<Deps, "kv" | "clock">): Promise<number> {
  const current = Math.floor(deps.clock.now().getTime() / (WINDOW_SECONDS * 1000));
  let deleted = 0;
  for await (
    const entry of deps.kv.list({ prefix: [RATE_LIMIT_PREFIX], end: [RATE_LIMIT_PREFIX, current] })
  ) {
    await deps.kv.delete(entry.key);
    deleted++;
  }
  return deleted;
}

/** Counts the request against the key's default bucket and, for the named routes, the merchant's. */
export async function enforceRateLimit(
  deps: Pick<Deps, "kv" | "clock">,
  caller: { keyId: string; merchantId: string; rateLimits: Record<string, number> },
  method: string,
  path: string,
): Promise<RateDecision> {
  const limitOf = (name: string) => caller.rateLimits[name] ?? DEFAULT_LIMITS[name];
  const routeName = `${method} ${path.replace(/\/+$/, "")}`;
  const decisions = [await takeToken(deps, ["key", caller.keyId], limitOf("default"))];
  if (routeName in DEFAULT_LIMITS && routeName !== "default") {
    decisions.push(await takeToken(deps, ["merchant", caller.merchantId, routeName], limitOf(routeName)));
  }
  const refused = decisions.find((d) => !d.allowed);
  if (refused) {
    throw new AppError("RATE_LIMIT_EXCEEDED", `Too many requests; retry in ${refused.retryAfterSeconds} s`, {
      headers: { "Retry-After": String(refused.retryAfterSeconds) },
    });
  }
  return decisions[decisions.length - 1];
}
