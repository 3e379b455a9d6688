// Who acts on the operator side: an operator signed in with a session, or automation holding ADMIN_TOKEN
// (recorded as "token" and treated as an admin). Roles are ordered: a reviewer may do what a viewer may.
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

/** Whether `role` may do what `needed` allows. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}
