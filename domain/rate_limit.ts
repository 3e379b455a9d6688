// Fixed-window request counters in Deno KV, so every process of the gateway shares one limit.
import type { Deps } from "./deps.ts";
import { AppError } from "./errors.ts";

export const WINDOW_SECONDS = 60;

/** The specification's Limits; a merchant's `rateLimits` may raise any of them (enterprise merchants). */
export const DEFAULT_LIMITS: Record<string, number> = {
  default: 100,
  "POST /v1/payments": 30,
  "POST /v1/payout": 10,
  "POST /v1/withdrawals": 5,
};

export type RateDecision = { limit: number; remaining: number; retryAfterSeconds: number; allowed: boolean };

export async function takeToken(
  deps: Pick<Deps, "kv" | "clock">,
  bucket: string[],
  limit: number,
): Promise<RateDecision> {
  const nowMs = deps.clock.now().getTime();
  const window = Math.floor(nowMs / (WINDOW_SECONDS * 1000));
  const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_SECONDS * 1000 - nowMs) / 1000));
  const key = ["ratelimit", ...bucket, window];
  for (let attempt = 0; attempt < 20; attempt++) {
    const current = await deps.kv.get<number>(key);
    const count = current.value ?? 0;
    if (count >= limit) return { limit, remaining: 0, retryAfterSeconds, allowed: false };
    const res = await deps.kv.atomic().check(current).set(key, count + 1, { expireIn: WINDOW_SECONDS * 2000 })
      .commit();
    if (res.ok) return { limit, remaining: limit - count - 1, retryAfterSeconds, allowed: true };
  }
  // Heavy contention on one counter: refuse rather than let requests through uncounted.
  return { limit, remaining: 0, retryAfterSeconds, allowed: false };
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
