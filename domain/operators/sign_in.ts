// Signing in: e-mail and password, then a TOTP code (or a one-time backup code), in one request. Every
// wrong answer counts against the account: from the 2nd failure in a row the next try must wait (1 s,
// then 2, 4...), at the 5th the account locks for 15 minutes, and each failure after a lock locks it
// again. Wrong answers also count against the client address (AUTH_FAILURE_LIMIT a minute), checked before
// the password is hashed. An unknown e-mail costs the same hash as a known one.
import * as store from "../../db/operators.ts";
import { appendAudit } from "../audit/trail.ts";
import type { Deps } from "../deps.ts";
import { sha256Hex } from "../crypto.ts";
import { AppError } from "../errors.ts";
import { assertAuthNotThrottled, throttleAuthFailure } from "../limits/rate_limit.ts";
import { normalBackupCode, normalEmail, type OperatorView, operatorView } from "./accounts.ts";
import { hashPassword, verifyPassword } from "./password.ts";
import { type StartedSession, startSession } from "./sessions.ts";
import { totpStep } from "./totp.ts";

export const LOCK_AFTER_FAILURES = 5;
export const LOCK_MINUTES = 15;
const SLOW_DOWN_MAX_SECONDS = 60;

type SignInDeps = Pick<Deps, "db" | "kv" | "clock" | "config" | "secrets">;

export type SignInInput = {
  email: string;
  password: string;
  totp?: string;
  backupCode?: string;
  clientAddress: string;
};

/** A hash of nothing, with the configured cost, verified when the e-mail is unknown. */
const decoys = new Map<number, Promise<string>>();
function decoyHash(logN: number): Promise<string> {
  let h = decoys.get(logN);
  if (!h) decoys.set(logN, h = hashPassword("decoy password, never matches", logN));
  return h;
}

/** When the next attempt may come after `failures` failures in a row (slow-down before the lock). */
export function nextAttemptAt(row: Pick<store.OperatorRow, "failed_attempts" | "last_failed_at">): number {
  if (row.failed_attempts < 2 || !row.last_failed_at) return 0;
  const wait = Math.min(2 ** (row.failed_attempts - 2), SLOW_DOWN_MAX_SECONDS);
  return row.last_failed_at.getTime() + wait * 1000;
}

function tooSoon(untilMs: number, nowMs: number, why: string): AppError {
  const seconds = Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
  return new AppError("RATE_LIMIT_EXCEEDED", `${why}; retry in ${seconds} s`, {
    headers: { "Retry-After": String(seconds) },
  });
}

export async function signIn(
  deps: SignInDeps,
  input: SignInInput,
): Promise<{ operator: OperatorView; session: StartedSession }> {
  const now = deps.clock.now();
  await assertAuthNotThrottled(deps, "operator", input.clientAddress);
  const email = normalEmail(input.email);
  const row = email ? await store.findOperatorByEmail(deps.db, email) : undefined;
  if (row?.locked_until && row.locked_until > now) {
    throw tooSoon(row.locked_until.getTime(), now.getTime(), "Account locked after repeated failed sign-ins");
  }
  if (row && nextAttemptAt(row) > now.getTime()) {
    throw tooSoon(nextAttemptAt(row), now.getTime(), "Too many failed sign-ins in a row");
  }
  const logN = deps.config.operators.scryptLogN;
  const passwordOk = await verifyPassword(input.password, row?.password_hash ?? await decoyHash(logN));
  const fail = async (error: AppError): Promise<never> => {
    if (row) {
      await store.recordFailedSignIn(deps.db, row.id, {
        now,
        lockAfter: LOCK_AFTER_FAILURES,
        lockUntil: new Date(now.getTime() + LOCK_MINUTES * 60_000),
      });
    }
    await throttleAuthFailure(deps, "operator", input.clientAddress);
    throw error;
  };
  if (!row || row.disabled_at || !passwordOk) {
    return await fail(new AppError("UNAUTHORIZED", "E-mail or password wrong"));
  }
  if (input.backupCode !== undefined && input.totp !== undefined) {
    throw new AppError("VALIDATION_ERROR", "Send totp or backupCode, not both", {
      details: [{ field: "backupCode", reason: "not with totp" }],
    });
  }
  if (input.backupCode !== undefined) {
    const hash = await sha256Hex(normalBackupCode(input.backupCode));
    if (!await store.useBackupCode(deps.db, row.id, hash, now)) {
      return await fail(new AppError("BACKUP_CODE_INVALID", "Backup code unknown or already used"));
    }
  } else if (input.totp !== undefined) {
    const step = totpStep(await deps.secrets.decrypt(row.totp_secret), input.totp.trim(), now);
    if (step === undefined) {
      return await fail(new AppError("TOTP_INVALID", "Two-factor code wrong or expired"));
    }
    if (!await store.takeTotpStep(deps.db, row.id, step, now)) {
      return await fail(
        new AppError("TOTP_INVALID", "This two-factor code was already used: wait for the next"),
      );
    }
  } else {
    throw new AppError("TOTP_REQUIRED", "Two-factor code required: send totp (or a backupCode)");
  }
  return await deps.db.tx(async (tx) => {
    // Failures racing this sign-in may have locked the account meanwhile: the lock wins.
    const current = await store.lockOperatorRow(tx, row.id);
    if (current?.locked_until && current.locked_until > now) {
      throw tooSoon(
        current.locked_until.getTime(),
        now.getTime(),
        "Account locked after repeated failed sign-ins",
      );
    }
    await store.clearFailedSignIns(tx, row.id, now);
    const session = await startSession({ ...deps, db: tx }, row.id, input.clientAddress);
    await appendAudit({ db: tx, clock: deps.clock }, {
      kind: "operator",
      id: row.id,
      label: row.email,
      role: row.role,
      address: input.clientAddress,
      sessionId: session.id,
    }, {
      action: "operator.sign_in",
      itemType: "operator",
      itemId: row.id,
      after: { session: session.id, with: input.backupCode !== undefined ? "backup code" : "totp" },
    });
    return { operator: operatorView({ ...row, failed_attempts: 0, locked_until: null }, now), session };
  });
}
