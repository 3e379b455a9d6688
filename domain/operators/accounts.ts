// Operator accounts: created by an admin (or `deno task cli operator create`) with an e-mail, a role and a
// password, a TOTP secret and ten one-time backup codes, all shown once. The TOTP secret is sealed with
// APP_SECRET's SecretBox; passwords are scrypt hashes; backup codes are SHA-256 hashes.
import * as store from "../../db/operators.ts";
import type { Deps } from "../deps.ts";
import { sha256Hex } from "../crypto.ts";
import { AppError } from "../errors.ts";
import { newId, randomToken } from "../ids.ts";
import { hashPassword, passwordProblem } from "./password.ts";
import { appendAudit } from "../audit/trail.ts";
import type { Actor, Role } from "./roles.ts";
import { newTotpSecret, totpUri } from "./totp.ts";

export const BACKUP_CODES = 10;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}\.[^\s@]{2,63}$/;

export type OperatorView = {
  id: string;
  email: string;
  role: Role;
  status: "ACTIVE" | "DISABLED" | "LOCKED";
  lockedUntil: string | null;
  createdAt: string;
};

export type CreatedOperator = OperatorView & {
  /** Only when the gateway chose it (no password given). */
  password?: string;
  totpSecret: string;
  totpUri: string;
  backupCodes: string[];
};

export function operatorView(row: store.OperatorRow, now: Date): OperatorView {
  const locked = row.locked_until !== null && row.locked_until > now;
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: row.disabled_at ? "DISABLED" : locked ? "LOCKED" : "ACTIVE",
    lockedUntil: locked ? row.locked_until!.toISOString() : null,
    createdAt: row.created_at.toISOString(),
  };
}

/** The form an e-mail is stored and looked up in; undefined when it is not one. */
export function normalEmail(email: string): string | undefined {
  const e = email.trim().toLowerCase();
  return EMAIL.test(e) && e.length <= 254 ? e : undefined;
}

/** A backup code as typed (any case, dashes or spaces) reduced to what was hashed. */
export function normalBackupCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, "");
}

export function newBackupCode(): string {
  return randomToken(10).match(/.{4}/g)!.join("-"); // 16 characters, 80 bits
}

/** Creates an account, recorded in the audit trail as done by `actor` (never with its secrets). */
export async function createOperator(
  deps: Pick<Deps, "db" | "clock" | "config" | "secrets">,
  actor: Actor,
  input: { email: string; role: Role; password?: string; totpSecret?: string },
): Promise<CreatedOperator> {
  const email = normalEmail(input.email);
  if (!email) {
    throw new AppError("VALIDATION_ERROR", "email is not an e-mail address", {
      details: [{ field: "email", reason: "an e-mail address" }],
    });
  }
  const password = input.password ?? randomToken(18);
  const problem = passwordProblem(password);
  if (problem) {
    throw new AppError("VALIDATION_ERROR", `password: ${problem}`, {
      details: [{ field: "password", reason: problem }],
    });
  }
  // A given secret is the development demo operator's (domain/operators/demo.ts); others get a new one.
  const secret = input.totpSecret ?? newTotpSecret();
  const codes = Array.from({ length: BACKUP_CODES }, newBackupCode);
  const passwordHash = await hashPassword(password, deps.config.operators.scryptLogN);
  const hashes = await Promise.all(codes.map((c) => sha256Hex(normalBackupCode(c))));
  const now = deps.clock.now();
  const id = newId("opr", now.getTime());
  const sealed = await deps.secrets.encrypt(secret);
  const row = await deps.db.tx(async (tx) => {
    const inserted = await store.insertOperator(tx, {
      id,
      email,
      role: input.role,
      passwordHash,
      totpSecret: sealed,
      now,
    });
    if (!inserted) throw new AppError("DUPLICATE_RESOURCE", "An operator with this e-mail exists");
    await store.insertBackupCodes(tx, id, hashes);
    await appendAudit({ db: tx, clock: deps.clock }, actor, {
      action: "operator.create",
      itemType: "operator",
      itemId: id,
      after: { email, role: input.role },
    });
    return (await store.findOperator(tx, id))!;
  });
  return {
    ...operatorView(row, now),
    ...(input.password === undefined ? { password } : {}),
    totpSecret: secret,
    totpUri: totpUri(secret, email),
    backupCodes: codes,
  };
}

export async function listOperators(deps: Pick<Deps, "db" | "clock">): Promise<OperatorView[]> {
  const now = deps.clock.now();
  return (await store.listOperators(deps.db)).map((r) => operatorView(r, now));
}

/** An admin changes a role, disables an account, or re-enables it (which also lifts a lock). */
export async function updateOperator(
  deps: Pick<Deps, "db" | "clock">,
  actor: Actor,
  id: string,
  patch: { role?: Role; status?: "ACTIVE" | "DISABLED" },
): Promise<{ before: OperatorView; after: OperatorView }> {
  const now = deps.clock.now();
  return await deps.db.tx(async (tx) => {
    const before = await store.findOperator(tx, id);
    if (!before) throw new AppError("NOT_FOUND", "No operator with this id");
    const row = await store.updateOperatorRow(tx, id, {
      role: patch.role,
      disabled: patch.status === undefined ? undefined : patch.status === "DISABLED",
      unlock: patch.status === "ACTIVE",
    }, now);
    // A role change applies at the next request (each reads the role); a disabled account's sessions end.
    if (patch.status === "DISABLED") await store.endOperatorSessions(tx, id, now);
    const change = { before: operatorView(before, now), after: operatorView(row!, now) };
    await appendAudit({ db: tx, clock: deps.clock }, actor, {
      action: "operator.update",
      itemType: "operator",
      itemId: id,
      ...change,
    });
    return change;
  });
}
