// Fixed-window request counters in a store every process of the gateway shares (domain/limits/counters.ts:
// Deno KV, or PostgreSQL when hosts share a database), so they all keep one limit.
import type { Deps } from "../deps.ts";
import { countersOf, type CounterStore } from "./counters.ts";
import { AppError } from "../errors.ts";

export const WINDOW_SECONDS = 60;

/** The specification's Limits; a merchant's `rateLimits` may raise any of them (enterprise merchants). */
export const DEFAULT_LIMITS: Record<string, number> = {
  default: 100,
  "POST /v1/payments": 30,
  "POST /v1/payout": 10,
  "POST /v1/withdrawals": 5,
};

export type RateDecision = { limit: number; remaining: number; retryAfterSeconds: number; allowed: boolean };

/**
 * A process takes tokens from KV by the lease: 1 % of the limit at once (so 1, as before, for the
 * specification's limits), and spends them locally. A merchant whose limit an operator raised to
 * thousands a minute then costs one KV commit per hundred requests instead of one per request (the
 * on-disk KV's commit is the dearest step of a pay-in creation). Tokens a process leased and did not
 * spend are lost when the window ends, so other processes may be refused up to one lease early per
 * process; the limit itself is never exceeded.
 */
const LEASE_FRACTION = 100;
/** `spent`: a lease asked in this window granted nothing, so the bucket refuses until the window ends. */
type Lease = { left: number; end: number; spent?: boolean };
/** `demand`: requests of this process waiting for a bucket's tokens, so one refill can serve them all. */
type Local = {
  window: number;
  byBucket: Map<string, Lease>;
  refills: Map<string, Promise<void>>;
  demand: Map<string, number>;
};
const leases = new WeakMap<CounterStore, Local>();

function localOf(store: CounterStore, window: number): Local {
  let current = leases.get(store);
  if (!current || current.window !== window) {
    leases.set(store, current = { window, byBucket: new Map(), refills: new Map(), demand: new Map() });
  }
  return current;
}

/** One atomic addition leases tokens for every bucket named, whatever their number. */
async function refill(
  store: CounterStore,
  window: number,
  local: Local,
  wanted: Array<{ name: string; bucket: string[]; size: number; limit: number }>,
): Promise<void> {
  const counts = await store.add(window, wanted.map((w) => ({ bucket: w.bucket, by: w.size })));
  wanted.forEach((w, j) => {
    const end = counts[j];
    // Sums by others after ours only raise `end`, so counting back from it never grants too much.
    const granted = Math.max(0, Math.min(w.size, w.limit - (end - w.size)));
    const held = local.byBucket.get(w.name);
    local.byBucket.set(w.name, {
      left: (held?.left ?? 0) + granted,
      end: Math.max(end, held?.end ?? 0),
      spent: granted === 0,
    });
  });
}

/**
 * Counts one request in each bucket's current window. A bucket without local tokens gets a lease sized to
 * the requests waiting for it (at least 1 % of the limit); requests arriving while it is being taken wait
 * for it rather than take one each (a burst of 50 would otherwise lease 50 times and waste most of it),
 * and the next lease covers whoever it did not serve. An atomic `sum`
 * never conflicts, so concurrent requests are all counted; the read after it is at least the end of this
 * lease. So demand within a limit is never refused (but for leases other processes hold) and a limit is
 * never exceeded. Past windows are deleted by `purgeRateLimitWindows`.
 */
export async function takeTokens(
  deps: Pick<Deps, "kv" | "db" | "config" | "clock">,
  buckets: Array<{ bucket: string[]; limit: number }>,
): Promise<RateDecision[]> {
  const nowMs = deps.clock.now().getTime();
  const window = Math.floor(nowMs / (WINDOW_SECONDS * 1000));
  const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_SECONDS * 1000 - nowMs) / 1000));
  const store = countersOf(deps);
  const local = localOf(store, window);
  const names = buckets.map((b) => JSON.stringify(b.bucket));
  const taken = buckets.map(() => false);
  const want = (i: number, by: number) => local.demand.set(names[i], (local.demand.get(names[i]) ?? 0) + by);
  buckets.forEach((_, i) => want(i, 1));
  for (let round = 0; round < 16; round++) {
    const waiting: Array<Promise<void>> = [];
    const wanted: Array<{ i: number; name: string; bucket: string[]; size: number; limit: number }> = [];
    buckets.forEach((b, i) => {
      if (taken[i]) return;
      const lease = local.byBucket.get(names[i]);
      if (lease && lease.left > 0) {
        lease.left--;
        taken[i] = true;
        want(i, -1);
      } else if (lease?.spent) {
        return; // refused: nothing left in this window
      } else if (local.refills.has(names[i])) {
        waiting.push(local.refills.get(names[i])!);
      } else {
        const base = Math.max(1, Math.floor(b.limit / LEASE_FRACTION));
        const size = Math.min(b.limit, Math.max(base, local.demand.get(names[i]) ?? 1));
        wanted.push({
          i,
          name: names[i],
          bucket: b.bucket,
          size,
          limit: b.limit,
        });
      }
    });
    if (wanted.length > 0) {
      const started = refill(store, window, local, wanted).finally(() =>
        wanted.forEach((w) => local.refills.delete(w.name))
      );
      wanted.forEach((w) => local.refills.set(w.name, started));
      waiting.push(started);
    }
    if (waiting.length === 0) break;
    await Promise.all(waiting);
  }
  buckets.forEach((_, i) => taken[i] || want(i, -1));
  return buckets.map((b, i) => {
    const lease = local.byBucket.get(names[i]);
    return {
      limit: b.limit,
      remaining: lease ? Math.max(0, b.limit - (lease.end - lease.left)) : 0,
      retryAfterSeconds,
      allowed: taken[i],
    };
  });
}

/** Deletes the counters of windows that ended; a cron runs it. */
export async function purgeRateLimitWindows(
  deps: Pick<Deps, "kv" | "db" | "config" | "clock">,
): Promise<number> {
  const current = Math.floor(deps.clock.now().getTime() / (WINDOW_SECONDS * 1000));
  return await countersOf(deps).purgeBefore(current);
}

/**
 * Routes that do what another route does count against that route's limit: `/v1/card-payments` is
 * `POST /v1/payments` with the card method, `/v1/payins/:id/...` the older name of `/v1/payments/:id/...`,
 * `POST /v1/transfers` the other name of `POST /v1/payout` (one 10-a-minute limit for both names).
 */
const ROUTE_ALIASES: Array<[RegExp, string]> = [
  [/^\/v1\/card-payments$/, "/v1/payments"],
  [/^\/v1\/payins(?=\/|$)/, "/v1/payments"],
  [/^\/v1\/transfers$/, "/v1/payout"],
];

/** The name of the limit a request counts against: "METHOD /canonical/path". */
export function rateLimitRouteName(method: string, path: string): string {
  let canonical = path.replace(/\/+$/, "");
  for (const [alias, target] of ROUTE_ALIASES) canonical = canonical.replace(alias, target);
  return `${method.toUpperCase()} ${canonical}`;
}

/** Counts the request against the key's default bucket and, for the named routes, the merchant's. */
export async function enforceRateLimit(
  deps: Pick<Deps, "kv" | "db" | "config" | "clock">,
  caller: { keyId: string; merchantId: string; rateLimits: Record<string, number> },
  method: string,
  path: string,
): Promise<RateDecision> {
  const limitOf = (name: string) => caller.rateLimits[name] ?? DEFAULT_LIMITS[name];
  const routeName = rateLimitRouteName(method, path);
  const buckets = [{ bucket: ["key", caller.keyId], limit: limitOf("default") }];
  if (routeName in DEFAULT_LIMITS && routeName !== "default") {
    buckets.push({ bucket: ["merchant", caller.merchantId, routeName], limit: limitOf(routeName) });
  }
  const decisions = await takeTokens(deps, buckets);
  const refused = decisions.find((d) => !d.allowed);
  if (refused) {
    throw new AppError("RATE_LIMIT_EXCEEDED", `Too many requests; retry in ${refused.retryAfterSeconds} s`, {
      headers: { "Retry-After": String(refused.retryAfterSeconds) },
    });
  }
  return decisions[decisions.length - 1];
}

type AuthRealm = "api" | "admin" | "operator";

function authFailureKey(deps: Pick<Deps, "clock">, realm: AuthRealm, address: string) {
  const nowMs = deps.clock.now().getTime();
  const window = Math.floor(nowMs / (WINDOW_SECONDS * 1000));
  const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_SECONDS * 1000 - nowMs) / 1000));
  return { window, bucket: ["authfail", realm, address], retryAfterSeconds };
}

/**
 * Called once a presented credential failed (never before looking it up, so a valid key is always
 * served): counts the failure against the client address, or, from an address that already failed
 * AUTH_FAILURE_LIMIT times in the current window, refuses with 429 and Retry-After until the window ends,
 * without counting further (one KV read per guess under a flood, no commit). Otherwise returns, and the
 * caller answers the failure itself.
 */
export async function throttleAuthFailure(
  deps: Pick<Deps, "kv" | "db" | "clock" | "config">,
  realm: AuthRealm,
  address: string,
): Promise<void> {
  await assertAuthNotThrottled(deps, realm, address);
  const { window, bucket } = authFailureKey(deps, realm, address);
  // An atomic sum: concurrent failures all count.
  await countersOf(deps).add(window, [{ bucket, by: 1 }]);
}

export type BucketUsage = {
  name: string;
  scope: "key" | "merchant";
  limit: number;
  used: number;
  remaining: number;
  resetAt: string;
  resetSeconds: number;
};

/**
 * Reads the caller's buckets without taking a token: the key's `default` bucket and the merchant's
 * named-route buckets, in the current window. `used` is what the counter store counted (tokens leased by every process)
 * less what this process leased and has not spent; tokens other processes leased and have not spent yet
 * count as used, so `remaining` never promises more than the limiter will grant.
 */
export async function peekRateLimits(
  deps: Pick<Deps, "kv" | "db" | "config" | "clock">,
  caller: { keyId: string; merchantId: string; rateLimits: Record<string, number> },
): Promise<BucketUsage[]> {
  const nowMs = deps.clock.now().getTime();
  const window = Math.floor(nowMs / (WINDOW_SECONDS * 1000));
  const resetMs = (window + 1) * WINDOW_SECONDS * 1000;
  const limitOf = (name: string) => caller.rateLimits[name] ?? DEFAULT_LIMITS[name];
  const buckets = [
    { name: "default", scope: "key" as const, bucket: ["key", caller.keyId] },
    ...Object.keys(DEFAULT_LIMITS).filter((n) => n !== "default").map((name) => ({
      name,
      scope: "merchant" as const,
      bucket: ["merchant", caller.merchantId, name],
    })),
  ];
  const store = countersOf(deps);
  const counts = await Promise.all(buckets.map((b) => store.read(window, b.bucket)));
  const local = leases.get(store);
  return buckets.map((b, i) => {
    const limit = limitOf(b.name);
    const counted = counts[i];
    const lease = local?.window === window ? local.byBucket.get(JSON.stringify(b.bucket)) : undefined;
    const used = Math.min(limit, Math.max(0, counted - (lease?.left ?? 0)));
    return {
      name: b.name,
      scope: b.scope,
      limit,
      used,
      remaining: limit - used,
      resetAt: new Date(resetMs).toISOString(),
      resetSeconds: Math.max(1, Math.ceil((resetMs - nowMs) / 1000)),
    };
  });
}

/**
 * Refuses (429) an address that already failed AUTH_FAILURE_LIMIT times this window, without counting:
 * for a check that costs (an operator's password hash) to be skipped for a guesser.
 */
export async function assertAuthNotThrottled(
  deps: Pick<Deps, "kv" | "db" | "clock" | "config">,
  realm: AuthRealm,
  address: string,
): Promise<void> {
  const { window, bucket, retryAfterSeconds } = authFailureKey(deps, realm, address);
  const count = await countersOf(deps).read(window, bucket);
  if (count >= deps.config.authFailureLimit) {
    throw new AppError(
      "RATE_LIMIT_EXCEEDED",
      `Too many failed authentications from this address; retry in ${retryAfterSeconds} s`,
      { headers: { "Retry-After": String(retryAfterSeconds) } },
    );
  }
}
