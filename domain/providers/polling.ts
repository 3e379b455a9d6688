// Never trust a callback alone: the reconciliation sweeps (reconcileFiatPayins, sweepDisbursements) ask
// the aggregator about every open pay-in and disbursement. A live aggregator is asked on a backoff
// (its PollPolicy) rather than on every tick, and a status the gateway cannot map is held: recorded for an
// operator (provider_polls.held_status, an error log line), nothing moved, still asked on the backoff in
// case the aggregator later answers a status it knows.
import { findPoll, type PollSubject, recordPoll } from "../../db/provider_polls.ts";
import type { PollPolicy } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";

type PollDeps = Pick<Deps, "db" | "clock" | "log">;

/** True when the subject may be asked now (no policy: always; otherwise its next poll is due). */
export async function pollDue(deps: PollDeps, subject: PollSubject, policy?: PollPolicy): Promise<boolean> {
  if (!policy) return true;
  const row = await findPoll(deps.db, subject);
  return !row || new Date(row.next_poll_at).getTime() <= deps.clock.now().getTime();
}

/** The wait before the next poll after `attempts` unanswered ones: firstMs doubling, at most maxMs. */
export function backoffMs(policy: PollPolicy, attempts: number): number {
  return Math.min(policy.maxMs, policy.firstMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
}

/** Records an answer that settled nothing (still pending) and schedules the next poll. */
export async function pollAnswered(
  deps: PollDeps,
  subject: PollSubject,
  provider: { name: string; polling?: PollPolicy },
): Promise<void> {
  if (!provider.polling) return;
  const now = deps.clock.now();
  const before = await findPoll(deps.db, subject);
  const wait = backoffMs(provider.polling, (before?.attempts ?? 0) + 1);
  await recordPoll(deps.db, subject, {
    provider: provider.name,
    nextPollAt: new Date(now.getTime() + wait),
    now,
  });
}

/**
 * Holds a subject whose aggregator answered a status the gateway does not know: nothing moves, an operator
 * is told (error log, provider_polls.held_status), and polling continues on the backoff.
 */
export async function holdUnknownStatus(
  deps: PollDeps,
  subject: PollSubject,
  provider: { name: string; polling?: PollPolicy },
  answered: string,
): Promise<void> {
  const now = deps.clock.now();
  const before = await findPoll(deps.db, subject);
  const wait = provider.polling ? backoffMs(provider.polling, (before?.attempts ?? 0) + 1) : 60_000;
  await recordPoll(deps.db, subject, {
    provider: provider.name,
    nextPollAt: new Date(now.getTime() + wait),
    held: answered.slice(0, 500) || "(empty)",
    now,
  });
  deps.log.error("aggregator answered a status the gateway does not know: held for an operator", {
    subject: `${subject.kind}:${subject.id}`,
    provider: provider.name,
    answered: answered.slice(0, 200),
  });
}
