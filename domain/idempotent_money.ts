// The one helper for writes that move money (payouts, withdrawals, conversions, bulk execution): the
// idempotency record is claimed, the movement booked and the record completed with its answer in ONE
// Postgres transaction. Either all of it commits, and a retry replays the answer, or none of it does,
// and a retry runs afresh: no crash can make a retry move money a second time.
import * as store from "../db/idempotency.ts";
import type { Db } from "../db/mod.ts";
import type { Deps } from "./deps.ts";
import { AppError } from "./errors.ts";
import {
  type IdempotentRequest,
  isKeptAnswer,
  judgeExisting,
  recordTimes,
  type StoredAnswer,
} from "./idempotency.ts";

export type MoneyAnswer = StoredAnswer & { replayed: boolean };

function stillRunning(): AppError {
  return new AppError(
    "CONFLICT",
    "A request with this Idempotency-Key is still being processed; retry shortly",
  );
}

/**
 * Runs `work` inside one transaction together with the idempotency record of `request`. `work` books
 * through postJournal on the `tx` it is given and returns the answer to send and keep. A request whose
 * key is already being run by another transaction gets CONFLICT at once (an advisory lock, not a wait);
 * a finished one is replayed (`replayed: true`); other parameters under the same key are
 * IDEMPOTENCY_KEY_MISMATCH. When `work` throws, everything rolls back, the key stays free and the error
 * propagates; the route may then keep a refusal with rememberRefusal.
 */
export async function withIdempotentMoney(
  deps: Pick<Deps, "db" | "clock">,
  request: IdempotentRequest,
  work: (tx: Db) => Promise<StoredAnswer>,
): Promise<MoneyAnswer> {
  return await deps.db.tx(async (tx) => {
    if (!(await store.tryLockKey(tx, request))) throw stillRunning();
    const times = recordTimes(deps.clock.now());
    const existing = await store.findRecord(tx, request);
    if (existing && existing.expires_at > times.now) {
      const verdict = judgeExisting(existing, request.fingerprint, times.now);
      if (verdict !== "take-over") return { ...verdict, replayed: true };
    }
    // A leftover row (expired, or RUNNING from a crashed after-commit request) is taken over; otherwise
    // the key is claimed. Neither is visible to anyone else before this transaction commits.
    const claimed = existing
      ? await store.takeOver(tx, { ...request, ...times })
      : await store.insertRunning(tx, { ...request, ...times });
    // Lost to an after-commit request on the same key that took no advisory lock.
    if (!claimed) throw stillRunning();
    const answer = await work(tx);
    if (isKeptAnswer(answer.status, answer.body)) {
      await store.completeRecord(tx, { ...request, ...answer });
    } else {
      await store.deleteRunning(tx, request);
    }
    return { ...answer, replayed: false };
  });
}

/**
 * Keeps a refusal that `work` threw (its transaction rolled back, so nothing moved) as the key's outcome,
 * when the policy keeps that kind of answer. Nothing moved, so a crash before this runs only means a
 * retry decides again; and a concurrent retry that already claimed the key wins (insert-if-absent).
 */
export async function rememberRefusal(
  deps: Pick<Deps, "db" | "clock">,
  request: IdempotentRequest,
  answer: StoredAnswer,
): Promise<void> {
  if (!isKeptAnswer(answer.status, answer.body)) return;
  const { now, expiresAt } = recordTimes(deps.clock.now());
  await store.insertDone(deps.db, { ...request, ...answer, now, expiresAt });
}
