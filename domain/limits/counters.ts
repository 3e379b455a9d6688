// Where the rate limits count: Deno KV (one host, or Deno Deploy, whose KV every isolate shares) or
// PostgreSQL (several hosts on one database, each with its own KV file). RATE_LIMIT_STORE chooses; `auto`
// is PostgreSQL when DATABASE_URL names a server (another host may join it), KV on embedded PGlite.
import { addToCounters, deleteCountersBefore, readCounter } from "../../db/rate_counters.ts";
import type { Deps } from "../deps.ts";

export interface CounterStore {
  /** Adds to each bucket of `window` atomically; the totals after, in order (others' sums may be in them). */
  add(window: number, entries: Array<{ bucket: string[]; by: number }>): Promise<number[]>;
  read(window: number, bucket: string[]): Promise<number>;
  /** Forgets the windows before `window`; answers how many counters went. */
  purgeBefore(window: number): Promise<number>;
}

const PREFIX = "ratelimit";

export function kvCounters(kv: Deno.Kv): CounterStore {
  return {
    async add(window, entries) {
      const keys = entries.map((e) => [PREFIX, window, ...e.bucket]);
      const op = kv.atomic();
      entries.forEach((e, i) => op.sum(keys[i], BigInt(e.by)));
      await op.commit();
      const counts = await kv.getMany<Deno.KvU64[]>(keys);
      return counts.map((c, i) => Number(c.value?.value ?? BigInt(entries[i].by)));
    },
    async read(window, bucket) {
      return Number((await kv.get<Deno.KvU64>([PREFIX, window, ...bucket])).value?.value ?? 0n);
    },
    async purgeBefore(window) {
      let deleted = 0;
      for await (const entry of kv.list({ prefix: [PREFIX], end: [PREFIX, window] })) {
        await kv.delete(entry.key);
        deleted++;
      }
      return deleted;
    },
  };
}

export function postgresCounters(db: Deps["db"]): CounterStore {
  const name = (bucket: string[]) => JSON.stringify(bucket);
  return {
    add: (window, entries) =>
      addToCounters(db, window, entries.map((e) => ({ bucket: name(e.bucket), by: e.by }))),
    read: (window, bucket) => readCounter(db, window, name(bucket)),
    purgeBefore: (window) => deleteCountersBefore(db, window),
  };
}

const chosen = new WeakMap<object, CounterStore>();

/** The store of these deps, made once per KV handle or database (the local leases are kept per store). */
export function countersOf(deps: Pick<Deps, "kv" | "db" | "config">): CounterStore {
  const usePostgres = deps.config.rateLimitStore === "postgres" ||
    (deps.config.rateLimitStore === "auto" && Boolean(deps.config.databaseUrl));
  const owner: object = usePostgres ? deps.db : deps.kv;
  let store = chosen.get(owner);
  if (!store) chosen.set(owner, store = usePostgres ? postgresCounters(deps.db) : kvCounters(deps.kv));
  return store;
}
