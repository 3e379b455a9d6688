// The delivery pump: one per process, between the queue listener and the receivers. A `webhook.deliver`
// message names one delivery, but the pump treats it as a wake-up too: each claim takes the named ones
// and, while slots are free, the oldest due deliveries in the database (one UPDATE for many), so the rate
// is not bound by how fast the KV queue hands out messages. It sends at most `concurrency` at once and
// records outcomes in batches (one statement for all that finished meanwhile: group commit), so a
// delivery costs a fraction of a round trip at volume and the latency of one when idle.
//
// Fairness: a claim leases at most `perEndpoint` deliveries of one endpoint beside those this process
// has in flight, and passes over the backlog of an endpoint at its cap. A hanging receiver holds that
// many slots until its timeout; other endpoints' deliveries go on through the rest.
import * as eventsDb from "../../db/events.ts";
import {
  type Attempt,
  attemptDelivery,
  type DeliveryDeps,
  type DeliveryResult,
  leaseUntil,
  recordAttempts,
} from "./attempt.ts";

export type PumpOptions = { concurrency: number; perEndpoint: number };

/** How long a claim may wait for more slots to free while attempts are in flight. */
const BATCH_WAIT_MS = 5;
/** Stale queue messages wake a pull at most this often. */
const WAKE_PULL_MS = 50;
/** How many delivered ids a process remembers, to drop their late queue messages without a query. */
const REMEMBER_SUCCEEDED = 50_000;

type Waiter = { resolve(r: DeliveryResult): void; reject(e: unknown): void };

export class DeliveryPump {
  #deps: DeliveryDeps;
  #opts: PumpOptions;
  /** Named deliveries handed in, not yet claimed, with whoever waits for each one's result. */
  #queued = new Map<string, Waiter[]>();
  /** More due deliveries may be waiting in the database: pull at the next claim. */
  #pull = false;
  /** The last claim left due deliveries behind: pull again whenever a slot frees. */
  #moreBehind = false;
  #inFlight = 0;
  #inFlightByEndpoint = new Map<string, number>();
  #claiming = false;
  #finished: Array<{ attempt: Attempt; waiters: Waiter[] }> = [];
  #recording = false;
  #closed = false;
  #batchTimer: ReturnType<typeof setTimeout> | undefined;
  #changeWaiters: Array<() => void> = [];
  #inFlightIds = new Set<string>();
  #lastPullAt = -Infinity;
  /** Deliveries this process sent with success lately (bounded, oldest forgotten first). */
  #succeeded = new Set<string>();
  /** Decrypted endpoint secrets, keyed by ciphertext (a rotation changes it), shared by attempts. */
  #secrets = new Map<string, Promise<string | null>>();

  constructor(deps: DeliveryDeps, opts: PumpOptions) {
    this.#deps = deps;
    this.#opts = opts;
  }

  /** One attempt of `deliveryId` if it is due and unclaimed; resolves once its outcome is recorded. */
  submit(deliveryId: string): Promise<DeliveryResult> {
    // The message of a delivery a pull already took (in flight, or sent with success): nothing to do,
    // and no round trip to find that out. A delivery that failed is not remembered: its retry counts.
    if (this.#inFlightIds.has(deliveryId) || this.#succeeded.has(deliveryId)) {
      // Still a wake-up (the queue is first in, first out: newer deliveries may wait behind stale
      // messages), at most one pull per WAKE_PULL_MS from these.
      if (performance.now() - this.#lastPullAt > WAKE_PULL_MS) {
        this.#pull = true;
        this.#kick();
      }
      return Promise.resolve({ outcome: "not_claimed" });
    }
    return new Promise((resolve, reject) => {
      const waiters = this.#queued.get(deliveryId);
      if (waiters) waiters.push({ resolve, reject });
      else this.#queued.set(deliveryId, [{ resolve, reject }]);
      this.#pull = true;
      this.#kick();
    });
  }

  /**
   * Takes `deliveryId` and resolves at once, so the queue listener hands over the next message while
   * this one waits for a slot. Waits instead while more than `maxQueued` are held in memory, so a
   * backlog stays in the queue, not here. Anything lost with the process is still due in the database,
   * where the next pull or the sweep finds it.
   */
  async accept(deliveryId: string, maxQueued = this.#opts.concurrency * 4): Promise<void> {
    while (this.#queued.size >= maxQueued && !this.#closed) await this.#changed();
    this.submit(deliveryId).catch(() => {}); // failures are logged where they happen
  }

  /** Resolves when nothing is queued, claimed, in flight or being recorded. */
  async idle(): Promise<void> {
    while (
      this.#hasWork() || this.#claiming || this.#inFlight > 0 || this.#recording ||
      this.#finished.length > 0 || this.#batchTimer !== undefined
    ) {
      await this.#changed();
    }
  }

  /** Stops claiming; attempts under way finish and are recorded. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#batchTimer);
    for (const waiters of this.#queued.values()) {
      for (const w of waiters) w.resolve({ outcome: "not_claimed" });
    }
    this.#queued.clear();
    this.#notify();
  }

  #changed(): Promise<void> {
    return new Promise((resolve) => this.#changeWaiters.push(resolve));
  }

  #notify(): void {
    for (const resolve of this.#changeWaiters.splice(0)) resolve();
  }

  #minBatch(): number {
    return Math.max(1, Math.floor(this.#opts.concurrency / 8));
  }

  #free(): number {
    return this.#opts.concurrency - this.#inFlight;
  }

  #hasWork(): boolean {
    return !this.#closed && this.#free() > 0 && (this.#queued.size > 0 || this.#pull);
  }

  #kick(): void {
    if (this.#claiming || !this.#hasWork()) return;
    // While attempts are in flight, let a few slots free up before claiming again: one claim for many
    // deliveries instead of one each. A short wait, so a named delivery is never held back long.
    if (this.#inFlight > 0 && this.#free() < this.#minBatch()) {
      this.#batchTimer ??= setTimeout(() => {
        this.#batchTimer = undefined;
        this.#kick();
      }, BATCH_WAIT_MS);
      return;
    }
    clearTimeout(this.#batchTimer);
    this.#batchTimer = undefined;
    this.#claiming = true;
    this.#claimRounds().catch((err) => {
      this.#deps.log.error("webhook claim failed", { error: String(err) });
    }).finally(() => {
      this.#claiming = false;
      // Work may have arrived while the last round was in the database.
      if (this.#hasWork()) queueMicrotask(() => this.#kick());
      this.#notify();
    });
  }

  async #claimRounds(): Promise<void> {
    while (this.#hasWork()) {
      const free = this.#free();
      const ids = [...this.#queued.keys()].slice(0, free);
      const waiters = new Map(ids.map((id) => [id, this.#queued.get(id)!]));
      for (const id of ids) this.#queued.delete(id);
      const pull = this.#pull ? free * 2 : 0;
      this.#pull = false;
      if (pull > 0) this.#lastPullAt = performance.now();
      const cappedAtStart = [...this.#inFlightByEndpoint.values()].some((n) => n >= this.#opts.perEndpoint);
      const now = this.#deps.clock.now();
      const lease = leaseUntil(this.#deps, now);
      let claimed: eventsDb.ClaimedDelivery[];
      try {
        claimed = await eventsDb.claimDeliveries(this.#deps.db, {
          ids,
          pull,
          busy: this.#inFlightByEndpoint,
          now,
          leaseUntil: lease,
          perEndpoint: this.#opts.perEndpoint,
          limit: free,
        });
      } catch (err) {
        for (const ws of waiters.values()) for (const w of ws) w.reject(err);
        throw err;
      }
      const claimedIds = new Set(claimed.map((d) => d.id));
      for (const d of claimed) this.#start(d, lease, waiters.get(d.id) ?? []);
      // Every slot filled: more may be due now. Anything found, a named delivery left, or an endpoint
      // passed over at its cap: more may be due once a slot frees, so each attempt that finishes pulls
      // again, until a pull finds nothing with no endpoint at its cap.
      if (claimed.length >= free) this.#pull = true;
      this.#moreBehind = claimed.length > 0 || cappedAtStart || ids.some((id) => !claimedIds.has(id));
      for (const id of ids) {
        if (claimedIds.has(id)) continue;
        // Not due, taken by another worker, or held back by its endpoint's cap (then pulled later).
        for (const w of waiters.get(id)!) w.resolve({ outcome: "not_claimed" });
      }
    }
  }

  #start(d: eventsDb.ClaimedDelivery, lease: Date, waiters: Waiter[]): void {
    this.#inFlight++;
    this.#inFlightIds.add(d.id);
    const endpoint = d.endpoint_id;
    this.#inFlightByEndpoint.set(endpoint, (this.#inFlightByEndpoint.get(endpoint) ?? 0) + 1);
    attemptDelivery(this.#deps, d, lease, this.#secrets).then(
      (attempt) => {
        this.#finished.push({ attempt, waiters });
        void this.#record();
      },
      (err) => {
        // attemptDelivery catches what the network throws; this is a bug, not a receiver's failure.
        this.#deps.log.error("webhook attempt crashed", { deliveryId: d.id, error: String(err) });
        this.#inFlightIds.delete(d.id);
        for (const w of waiters) w.reject(err);
      },
    ).finally(() => {
      this.#inFlight--;
      const n = this.#inFlightByEndpoint.get(endpoint)! - 1;
      if (n === 0) this.#inFlightByEndpoint.delete(endpoint);
      else this.#inFlightByEndpoint.set(endpoint, n);
      // A slot freed: what the last claim left behind (a cap, a full batch) can be pulled now.
      if (this.#moreBehind) this.#pull = true;
      this.#kick();
      this.#notify();
    });
  }

  #rememberSucceeded(id: string): void {
    if (this.#succeeded.size >= REMEMBER_SUCCEEDED) {
      for (const old of [...this.#succeeded].slice(0, REMEMBER_SUCCEEDED / 2)) this.#succeeded.delete(old);
    }
    this.#succeeded.add(id);
  }

  async #record(): Promise<void> {
    if (this.#recording) return;
    this.#recording = true;
    try {
      while (this.#finished.length > 0) {
        const batch = this.#finished.splice(0);
        try {
          const results = await recordAttempts(this.#deps, batch.map((b) => b.attempt));
          for (const b of batch) {
            const result = results.get(b.attempt.id)!;
            if (result.outcome === "succeeded") this.#rememberSucceeded(b.attempt.id);
            this.#inFlightIds.delete(b.attempt.id);
            for (const w of b.waiters) w.resolve(result);
          }
        } catch (err) {
          // Unrecorded: the leases run out and the sweep sends these again (same event ids).
          this.#deps.log.error("webhook outcomes not recorded", { count: batch.length, error: String(err) });
          for (const b of batch) {
            this.#inFlightIds.delete(b.attempt.id);
            for (const w of b.waiters) w.reject(err);
          }
        }
      }
      if (this.#secrets.size > 1000) this.#secrets.clear();
    } finally {
      this.#recording = false;
      this.#notify();
    }
  }
}
