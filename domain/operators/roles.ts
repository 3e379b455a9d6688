// Who acts on the operator side: an operator signed in with a session, or automation holding ADMIN_TOKEN
// (recorded as "token" and treated as an admin). Roles are ordered: a reviewer may do what a viewer may.
import { AppError } from "../errors.ts";

export const ROLES = ["viewer", "reviewer", "admin"] as const;
export type Role = typeof ROLES[number];

export type Actor = {
  /** `cli`: `deno task cli` on the server's own machine. */
  kind: "token" | "operator" | "cli";
  /** "token", or the operator's id (opr_...): what four eyes compares. */
  id: string;
  /** "token", or the operator's e-mail: what the trail shows. */
  label: string;
  role: Role;
  /** The client's address as the socket reports it. */
  address: string;
  /** The session's id (ses_...), for an operator. */
  sessionId?: string;
};

export function tokenActor(address: string): Actor {
  return { kind: "token", id: "token", label: "token", role: "admin", address };
}

/** The command line: whoever runs it holds the server's configuration, so an admin. */
export function cliActor(user: string): Actor {
  return { kind: "cli", id: "cli", label: `cli:${user}`.slice(0, 100), role: "admin", address: "local" };
}

/**
 * The name a decision is recorded under. With a session, the operator signed in (a `given` name must be
 * their e-mail); with ADMIN_TOKEN or the CLI, the name the caller gives, else "token" (or "cli:<user>"):
 * automation may name who it acts for, while the audit trail records the caller itself.
 */
export function recordedReviewer(actor: Actor, given: string | undefined): string {
  if (actor.kind !== "operator") return given?.trim() || actor.label;
  if (given !== undefined && given.trim().toLowerCase() !== actor.label) {
    throw new AppError("VALIDATION_ERROR", "reviewer must be the operator signed in (or left out)", {
      details: [{ field: "reviewer", reason: "the signed-in operator's e-mail, or absent" }],
    });
  }
  return actor.label;
}

/** Whether `role` may do what `needed` allows. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}
