// Deposit addresses are derived ahead of need in each gateway process's memory, so creating a pay-in
// usually only takes one. Each process derives from ranges of indexes it reserved with one atomic update
// of the account's counter (db/deposit_addresses.ts reserveIndexes), so no two derivers (processes, or a
// refill and a request in one process) ever derive the same index. Nothing is written for an address
// until a pay-in claims it: the creation statement records it, already claimed (db/payin_creation.ts).
// The refill starts in the process as soon as fewer than half of ADDRESS_POOL_SIZE remain, deriving from
// the range already reserved; a request that finds the pool empty derives a small batch itself (a public
// derivation each, about 0.05 ms), reserving the next range first when the last is used up, so a burst
// never fails. Live and sandbox use different BIP44 accounts.
import { reserveIndexes } from "../../db/deposit_addresses.ts";
import type { Db } from "../../db/mod.ts";
import { createAddressDeriver, type TronAddressDeriver } from "../../rails/tron/hd.ts";
import type { Deps } from "../deps.ts";

export const ACCOUNT_INDEX = { live: 0, sandbox: 1 } as const;
/** Late funds are still credited (as a deposit) this long after a pay-in expires. */
export const WATCH_AFTER_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000;
/** Addresses derived at once (their affine conversion shares one field inversion). */
const DERIVE_BATCH = 16;
/**
 * Indexes reserved at once: twice ADDRESS_POOL_SIZE (so the background refill has a range to derive from)
 * and at least this many, so a counter update is paid once per that many pay-ins at most.
 */
const MIN_RESERVATION = 64;

/** An address ready to be claimed: where it comes from is recorded with the claim. */
export type DepositAddress = {
  address: string;
  addressHex: string;
  accountIndex: number;
  derivationIndex: number;
};

type PoolDeps = Pick<Deps, "db" | "config" | "log">;

const derivers = new Map<string, TronAddressDeriver>();

function deriverFor(mnemonic: string, account: number): TronAddressDeriver {
  const key = `${account}:${mnemonic}`;
  let deriver = derivers.get(key);
  if (!deriver) derivers.set(key, deriver = createAddressDeriver(mnemonic, account));
  return deriver;
}

const accountOf = (isSandbox: boolean) => isSandbox ? ACCOUNT_INDEX.sandbox : ACCOUNT_INDEX.live;

/** One mode's addresses derived ahead by this process, and the rest of the index range it reserved. */
class ModePool {
  readonly ready: DepositAddress[] = [];
  #next = 0;
  #end = 0;
  #reserving?: Promise<void>;
  #filling?: Promise<void>;

  constructor(readonly isSandbox: boolean) {}

  /** The background refill running now, if any. */
  get filling(): Promise<void> | undefined {
    return this.#filling;
  }

  get account(): number {
    return accountOf(this.isSandbox);
  }

  /**
   * Derives up to one batch from the reserved range. When the range is used up, only a caller that may
   * touch the database (a request, on its own handle) reserves the next one, and only while it still finds
   * nothing ready: callers waiting on that reservation derive a batch each only if none is ready yet.
   * Answers false when there was nothing to derive from.
   */
  async deriveBatch(deps: PoolDeps, mayReserve: boolean): Promise<boolean> {
    while (this.#next >= this.#end) {
      if (!mayReserve) return false;
      // One reservation at a time per process and mode.
      if (!this.#reserving) {
        const count = Math.max(MIN_RESERVATION, 2 * deps.config.addressPoolSize);
        this.#reserving = reserveIndexes(deps.db, this.account, count)
          .then((start) => {
            this.#next = start;
            this.#end = start + count;
          })
          .finally(() => this.#reserving = undefined);
      }
      await this.#reserving;
      if (this.ready.length > 0) return true;
    }
    const mnemonic = deps.config.tron.mnemonic;
    if (!mnemonic) throw new Error("TRON mnemonic not loaded: the runtime must provide one");
    const start = this.#next;
    const count = Math.min(DERIVE_BATCH, this.#end - start);
    this.#next += count;
    const derived = deriverFor(mnemonic, this.account).addresses(start, count);
    derived.forEach((d, i) =>
      this.ready.push({ ...d, accountIndex: this.account, derivationIndex: start + i })
    );
    return true;
  }

  /**
   * Tops the pool up to ADDRESS_POOL_SIZE in the background, a batch per turn of the event loop, from the
   * range already reserved: the background never touches the database (the handle that asked may be a
   * transaction that has ended since, and a database that is away is the requests' to report).
   */
  startFill(deps: PoolDeps): Promise<void> {
    this.#filling ??= (async () => {
      try {
        while (this.ready.length < deps.config.addressPoolSize && await this.deriveBatch(deps, false)) {
          // Let requests run between batches: a refill never holds the process for more than one.
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
      } catch (err) {
        deps.log.warn("address pool refill failed", { isSandbox: this.isSandbox, error: String(err) });
      } finally {
        this.#filling = undefined;
      }
    })();
    return this.#filling;
  }
}

// Per database handle (tests and benches run several gateways in one process), then per mode.
const pools = new WeakMap<Db, Map<boolean, ModePool>>();

function poolOf(db: Db, isSandbox: boolean): ModePool {
  let byMode = pools.get(db);
  if (!byMode) pools.set(db, byMode = new Map());
  let pool = byMode.get(isSandbox);
  if (!pool) byMode.set(isSandbox, pool = new ModePool(isSandbox));
  return pool;
}

/**
 * A fresh address for a pay-in, from those this process derived ahead. Below half of ADDRESS_POOL_SIZE a
 * refill starts; when none is left the caller derives a batch itself (callers that arrive meanwhile wait
 * for the same range reservation, never race for an index). Only a database that cannot reserve a range
 * makes it fail.
 */
export async function takeDepositAddress(deps: PoolDeps, isSandbox: boolean): Promise<DepositAddress> {
  const pool = poolOf(deps.db, isSandbox);
  for (;;) {
    const next = pool.ready.shift();
    if (next) {
      if (pool.ready.length < deps.config.addressPoolSize / 2) void pool.startFill(deps);
      return next;
    }
    await pool.deriveBatch(deps, true);
  }
}

/** Gives back an address a creation did not use (its statement failed, so nothing recorded it). */
export function returnDepositAddress(deps: Pick<Deps, "db">, isSandbox: boolean, a: DepositAddress) {
  poolOf(deps.db, isSandbox).ready.unshift(a);
}

/** Fills this process's pool of a mode to ADDRESS_POOL_SIZE now (at start, and for tests and benches). */
export async function fillAddressPool(deps: PoolDeps, isSandbox: boolean): Promise<number> {
  const pool = poolOf(deps.db, isSandbox);
  const before = pool.ready.length;
  while (pool.ready.length < deps.config.addressPoolSize) await pool.deriveBatch(deps, true);
  return pool.ready.length - before;
}

/** Addresses this process holds derived ahead, per mode (the /metrics gauge). */
export function addressPoolFree(db: Db): { live: number; sandbox: number } {
  const byMode = pools.get(db);
  return { live: byMode?.get(false)?.ready.length ?? 0, sandbox: byMode?.get(true)?.ready.length ?? 0 };
}

/** Resolves once no refill of `db`'s pools is running: tests and benches wait for it before closing `db`. */
export async function addressPoolSettled(db: Db): Promise<void> {
  for (const pool of pools.get(db)?.values() ?? []) await pool.filling;
}
