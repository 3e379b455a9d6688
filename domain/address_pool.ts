// Deposit addresses are derived ahead of need by a refill job, so creating a pay-in usually only takes
// one its process leased from the pool. Each deriver (refill or process) first reserves a range of indexes
// with one atomic UPDATE of the account's counter, so none races another for an index. The refill is asked
// for on the queue as soon as the pool runs low; a process that finds the pool empty derives a few for
// itself (a public derivation and a QR drawing each, well under a millisecond), so a burst never fails.
// Live and sandbox use different BIP44 accounts.
import * as pool from "../db/deposit_addresses.ts";
import { createAddressDeriver, type TronAddressDeriver } from "../rails/tron/hd.ts";
import type { Db } from "../db/mod.ts";
import type { Deps } from "./deps.ts";

export const ACCOUNT_INDEX = { live: 0, sandbox: 1 } as const;
/** Late funds are still credited (as a deposit) this long after a pay-in expires. */
export const WATCH_AFTER_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000;
/** Addresses derived per reserved range by a refill (about 25 ms of CPU each, then one INSERT). */
export const REFILL_BATCH = 100;
/** A process asks for a refill of a mode at most this often; the job itself is safe to run twice. */
const REFILL_REQUEST_INTERVAL_MS = 1000;
/** Free addresses a process leases at once from the pool (one UPDATE), then hands out one per creation. */
const LEASE_BATCH = 20;
/** Addresses a process derives at once when the pool is empty (one counter update, one INSERT). */
const OWN_BATCH = 16;
/** How long a lease holds in the database, and how long this process uses it (well within, for safety). */
const LEASE_MS = 10 * 60 * 1000;
const USE_LEASE_WITHIN_MS = 5 * 60 * 1000;

const derivers = new Map<string, TronAddressDeriver>();
// Per database (and per queue): tests run several gateways in one process.
const lastRefillRequest = new WeakMap<object, Map<string, number>>();
type Leased = DepositAddress & { leasedAtMs: number };
const leases = new WeakMap<Db, Map<string, { free: Leased[]; pending?: Promise<void> }>>();

function mapOf<K extends object, V>(maps: WeakMap<K, Map<string, V>>, owner: K): Map<string, V> {
  let map = maps.get(owner);
  if (!map) maps.set(owner, map = new Map());
  return map;
}

function deriverFor(mnemonic: string, account: number): TronAddressDeriver {
  const key = `${account}:${mnemonic}`;
  let deriver = derivers.get(key);
  if (!deriver) derivers.set(key, deriver = createAddressDeriver(mnemonic, account));
  return deriver;
}

function mnemonicOf(deps: Pick<Deps, "config">): string {
  const mnemonic = deps.config.tron.mnemonic;
  if (!mnemonic) throw new Error("TRON mnemonic not loaded: the runtime must provide one");
  return mnemonic;
}

const accountOf = (isSandbox: boolean) => isSandbox ? ACCOUNT_INDEX.sandbox : ACCOUNT_INDEX.live;

/**
 * The addresses of indexes start .. start + count - 1, derived as one batch. Their QR codes are not drawn
 * here: a creation draws its own (rails/tron/qr.ts, a few tens of microseconds), so the pool's rows, the
 * three versions each goes through (derived, leased, claimed) and their WAL stay small.
 */
function deriveRange(deps: Pick<Deps, "config">, isSandbox: boolean, start: number, count: number) {
  const account = accountOf(isSandbox);
  return deriverFor(mnemonicOf(deps), account).addresses(start, count).map((derived, i) => ({
    ...derived,
    isSandbox,
    accountIndex: account,
    index: start + i,
  }));
}

/**
 * Tops the pool up towards `target` free addresses by at most `batch`, from a freshly reserved range of
 * indexes; answers how many it added (0 when the pool was full). Safe when several processes run it at
 * once: each derives its own range, so two at once can only overshoot the target by a batch.
 */
export async function fillAddressPool(
  deps: Pick<Deps, "db" | "config">,
  input: { isSandbox: boolean; target?: number; batch?: number },
): Promise<number> {
  const target = input.target ?? deps.config.addressPoolSize;
  const free = await pool.countFreeOnly(deps.db, input.isSandbox);
  const missing = Math.min(target - free, input.batch ?? REFILL_BATCH);
  if (missing <= 0) return 0;
  const start = await pool.reserveIndexes(deps.db, accountOf(input.isSandbox), missing);
  return await pool.insertAddresses(deps.db, deriveRange(deps, input.isSandbox, start, missing));
}

/** Fills a mode's pool to its target, batch after batch: the `address-pool.refill` job and the cron. */
export async function refillAddressPool(deps: Pick<Deps, "db" | "config">, isSandbox: boolean) {
  let added = 0;
  for (let n; (n = await fillAddressPool(deps, { isSandbox })) > 0;) added += n;
  return added;
}

/** Asks the queue for a refill, at most once a second per process and mode; never fails the caller. */
async function requestRefill(deps: Pick<Deps, "queue" | "log" | "clock">, isSandbox: boolean) {
  const key = String(isSandbox);
  const last = mapOf(lastRefillRequest, deps.queue);
  const now = deps.clock.now().getTime();
  if (now - (last.get(key) ?? -Infinity) < REFILL_REQUEST_INTERVAL_MS) return;
  last.set(key, now);
  try {
    await deps.queue.enqueue({ type: "address-pool.refill", isSandbox });
  } catch (err) {
    // The cron tops the pool up anyway, and an empty pool only costs a derivation per request.
    deps.log.warn("address pool refill request failed", { error: String(err) });
  }
}

export type DepositAddress = { address: string };

/**
 * A fresh address for a pay-in, from this process's leased ones. When none is left, one caller (others
 * wait on it) leases LEASE_BATCH more from the pool, or, if the pool is empty, derives OWN_BATCH from an
 * index range it reserved, inserted already leased: a burst on a fresh server never fails and never
 * races. The pay-in's INSERT claims the address (trigger `claim_deposit_address`), in the same statement.
 */
export async function takeDepositAddress(
  deps: Pick<Deps, "db" | "config" | "clock" | "queue" | "log">,
  isSandbox: boolean,
): Promise<DepositAddress> {
  const byMode = mapOf(leases, deps.db);
  let held = byMode.get(String(isSandbox));
  if (!held) byMode.set(String(isSandbox), held = { free: [] });
  for (;;) {
    const now = deps.clock.now().getTime();
    while (held.free.length > 0) {
      const next = held.free.shift()!;
      if (now - next.leasedAtMs < USE_LEASE_WITHIN_MS) return next;
    }
    if (!held.pending) {
      const h = held;
      h.pending = leaseMore(deps, isSandbox, h.free).finally(() => h.pending = undefined);
    }
    await held.pending;
  }
}

/** Gives back an address a creation did not use (it failed before claiming it). */
export function returnDepositAddress(
  deps: Pick<Deps, "db" | "clock">,
  isSandbox: boolean,
  a: DepositAddress,
) {
  const held = mapOf(leases, deps.db).get(String(isSandbox));
  held?.free.unshift({ ...a, leasedAtMs: deps.clock.now().getTime() - USE_LEASE_WITHIN_MS / 2 });
}

async function leaseMore(
  deps: Pick<Deps, "db" | "config" | "clock" | "queue" | "log">,
  isSandbox: boolean,
  into: Leased[],
): Promise<void> {
  const now = deps.clock.now();
  const until = new Date(now.getTime() + LEASE_MS);
  const accountIndex = accountOf(isSandbox);
  const rows = await pool.leaseFree(deps.db, { isSandbox, accountIndex, count: LEASE_BATCH, now, until });
  const lowWater = Math.floor(deps.config.addressPoolSize / 2);
  const last = rows[rows.length - 1];
  if (!last || last.next_index - last.derivation_index - 1 <= lowWater) {
    if (deps.config.addressPoolSize > 0) await requestRefill(deps, isSandbox);
  }
  if (rows.length > 0) {
    for (const r of rows) into.push({ address: r.address, leasedAtMs: now.getTime() });
    return;
  }
  // The pool is empty: derive a few of our own from a reserved range, kept for this process.
  const start = await pool.reserveIndexes(deps.db, accountIndex, OWN_BATCH);
  const own = deriveRange(deps, isSandbox, start, OWN_BATCH);
  await pool.insertAddresses(deps.db, own, until);
  for (const a of own) into.push({ address: a.address, leasedAtMs: now.getTime() });
}
