// Operator sessions live in Postgres: the cookie carries a random token, the table its SHA-256, the
// operator, a CSRF token, when it was last used and when it ends whatever happens. A request finds and
// touches its session in one statement; one unused for OPERATOR_SESSION_IDLE_MINUTES has ended.
import * as store from "../../db/operators.ts";
import type { Db } from "../../db/mod.ts";
import type { Deps } from "../deps.ts";
import { sha256Hex, timingSafeEqual } from "../crypto.ts";
import { AppError } from "../errors.ts";
import { newId, randomToken } from "../ids.ts";
import type { Actor } from "./roles.ts";
import { appendAudit } from "../audit/trail.ts";

export type StartedSession = {
  /** The cookie's value: shown to the browser only. */
  token: string;
  id: string;
  csrfToken: string;
  expiresAt: Date;
};

export async function startSession(
  deps: Pick<Deps, "clock" | "config"> & { db: Db },
  operatorId: string,
  clientAddress: string,
): Promise<StartedSession> {
  const now = deps.clock.now();
  const token = randomToken(32);
  const session = {
    token,
    id: newId("ses", now.getTime()),
    csrfToken: randomToken(24),
    expiresAt: new Date(now.getTime() + deps.config.operators.sessionMaxHours * 3_600_000),
  };
  await store.insertSession(deps.db, {
    tokenHash: await sha256Hex(token),
    id: session.id,
    operatorId,
    csrfToken: session.csrfToken,
    clientAddress,
    now,
    expiresAt: session.expiresAt,
  });
  return session;
}

export type ResumedSession = { actor: Actor; csrfToken: string; expiresAt: Date; idleExpiresAt: Date };

/** The operator behind a session cookie, or UNAUTHORIZED (ended, expired, idle, or another address). */
export async function resumeSession(
  deps: Pick<Deps, "db" | "clock" | "config">,
  token: string,
  clientAddress: string,
): Promise<ResumedSession> {
  const now = deps.clock.now();
  const idleMs = deps.config.operators.sessionIdleMinutes * 60_000;
  const row = token.length <= 128
    ? await store.touchSession(deps.db, await sha256Hex(token), {
      now,
      idleSince: new Date(now.getTime() - idleMs),
    })
    : undefined;
  if (!row) throw new AppError("UNAUTHORIZED", "Session ended or expired: sign in again");
  if (deps.config.operators.sessionBindAddress && row.client_address !== clientAddress) {
    throw new AppError("UNAUTHORIZED", "This session belongs to another client address: sign in again");
  }
  return {
    actor: {
      kind: "operator",
      id: row.operator_id,
      label: row.email,
      role: row.role,
      address: clientAddress,
      sessionId: row.id,
    },
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
    idleExpiresAt: new Date(Math.min(now.getTime() + idleMs, row.expires_at.getTime())),
  };
}

/** Whether a presented CSRF token is the session's own. */
export function csrfMatches(session: ResumedSession, presented: string | undefined): boolean {
  return presented !== undefined && timingSafeEqual(presented, session.csrfToken);
}

/** Signing out: the session ends, recorded in the audit trail. */
export async function endSession(deps: Pick<Deps, "db" | "clock">, actor: Actor): Promise<void> {
  await deps.db.tx(async (tx) => {
    await store.endSession(tx, actor.sessionId!, deps.clock.now());
    await appendAudit({ db: tx, clock: deps.clock }, actor, {
      action: "operator.sign_out",
      itemType: "operator",
      itemId: actor.id,
      after: { session: actor.sessionId },
    });
  });
}
