// An operator's own account: change the password, re-enrol the authenticator (a new TOTP secret), renew the
// backup codes. Each asks for the current password (a stolen session alone changes nothing; a wrong one
// counts against the client address like a failed sign-in) and is one audit record without its secrets.
// Re-enrolment takes two requests and keeps no state in between: the new secret travels sealed (AES-GCM
// under APP_SECRET, bound to the operator and 10 minutes) and is stored only when a code of it is given.
import * as store from "../../db/operators.ts";
import { appendAudit } from "../audit/trail.ts";
import { sha256Hex } from "../crypto.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { assertAuthNotThrottled, throttleAuthFailure } from "../limits/rate_limit.ts";
import { BACKUP_CODES, newBackupCode, normalBackupCode } from "./accounts.ts";
import { hashPassword, passwordProblem, verifyPassword } from "./password.ts";
import type { Actor } from "./roles.ts";
import { newTotpSecret, totpStep, totpUri } from "./totp.ts";

type SelfDeps = Pick<Deps, "db" | "kv" | "clock" | "config" | "secrets">;
const ENROL_MINUTES = 10;

/** The signed-in operator's row once the current password is right; UNAUTHORIZED (counted) otherwise. */
async function withPassword(deps: SelfDeps, actor: Actor, password: string): Promise<store.OperatorRow> {
  if (actor.kind !== "operator") throw new AppError("FORBIDDEN", "Only a signed-in operator has an account");
  await assertAuthNotThrottled(deps, "operator", actor.address);
  const row = await store.findOperator(deps.db, actor.id);
  if (!row || !await verifyPassword(password, row.password_hash)) {
    await throttleAuthFailure(deps, "operator", actor.address);
    throw new AppError("UNAUTHORIZED", "Current password wrong");
  }
  return row;
}

async function record(
  deps: SelfDeps,
  actor: Actor,
  action: string,
  after: unknown,
  run: (tx: Deps["db"]) => Promise<void>,
) {
  await deps.db.tx(async (tx) => {
    await run(tx);
    await appendAudit({ db: tx, clock: deps.clock }, actor, {
      action,
      itemType: "operator",
      itemId: actor.id,
      after,
    });
  });
}

/** A new password; every session of the operator ends (this one too): sign in again with it. */
export async function changeOwnPassword(
  deps: SelfDeps,
  actor: Actor,
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  await withPassword(deps, actor, input.currentPassword);
  const problem = passwordProblem(input.newPassword);
  if (problem) {
    throw new AppError("VALIDATION_ERROR", `new password: ${problem}`, {
      details: [{ field: "newPassword", reason: problem }],
    });
  }
  const hash = await hashPassword(input.newPassword, deps.config.operators.scryptLogN);
  const now = deps.clock.now();
  await record(deps, actor, "operator.password_change", { sessionsEnded: true }, async (tx) => {
    await store.setPasswordHash(tx, actor.id, hash, now);
    await store.endOperatorSessions(tx, actor.id, now);
  });
}

export type TotpEnrolment = { secret: string; uri: string; sealed: string };

/** Step 1: a new secret to add to the authenticator app; nothing changes until step 2. */
export async function startTotpEnrolment(
  deps: SelfDeps,
  actor: Actor,
  password: string,
): Promise<TotpEnrolment> {
  const row = await withPassword(deps, actor, password);
  const secret = newTotpSecret();
  const until = deps.clock.now().getTime() + ENROL_MINUTES * 60_000;
  const sealed = await deps.secrets.encrypt(
    JSON.stringify({ p: "totp-enrol", o: row.id, s: secret, u: until }),
  );
  return { secret, uri: totpUri(secret, row.email), sealed };
}

/** Step 2: a code of the new secret proves the app has it; the secret replaces the old one. */
export async function confirmTotpEnrolment(
  deps: SelfDeps,
  actor: Actor,
  input: { sealed: string; code: string },
): Promise<void> {
  if (actor.kind !== "operator") throw new AppError("FORBIDDEN", "Only a signed-in operator has an account");
  let opened: { p?: string; o?: string; s?: string; u?: number };
  try {
    opened = JSON.parse(await deps.secrets.decrypt(input.sealed.slice(0, 1000)));
  } catch {
    throw new AppError("VALIDATION_ERROR", "The enrolment form was altered: start again");
  }
  const now = deps.clock.now();
  if (
    opened.p !== "totp-enrol" || opened.o !== actor.id || !opened.s || !(Number(opened.u) > now.getTime())
  ) {
    throw new AppError("VALIDATION_ERROR", "This enrolment expired or is another operator's: start again");
  }
  const step = totpStep(opened.s, input.code.trim(), now);
  if (step === undefined) throw new AppError("TOTP_INVALID", "Code of the new secret wrong or expired");
  const sealedSecret = await deps.secrets.encrypt(opened.s);
  await record(deps, actor, "operator.totp_reenrol", { enrolled: now.toISOString() }, async (tx) => {
    await store.setTotpSecret(tx, actor.id, sealedSecret, step, now);
  });
}

/** Ten new one-time backup codes, shown once; the old ones (used or not) stop working. */
export async function renewBackupCodes(deps: SelfDeps, actor: Actor, password: string): Promise<string[]> {
  await withPassword(deps, actor, password);
  const codes = Array.from({ length: BACKUP_CODES }, newBackupCode);
  const hashes = await Promise.all(codes.map((c) => sha256Hex(normalBackupCode(c))));
  await record(deps, actor, "operator.backup_codes_renew", { codes: BACKUP_CODES }, async (tx) => {
    await store.replaceBackupCodes(tx, actor.id, hashes);
  });
  return codes;
}
