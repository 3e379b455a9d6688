// Who acts on the operator side: an operator signed in with a session, or automation holding ADMIN_TOKEN
// (recorded as "token" and treated as an admin). Roles are ordered: a reviewer may do what a viewer may.
export const ROLES = ["viewer", "reviewer", "admin"] as const;
export type Role = typeof ROLES[number];

export type Actor = {
  kind: "token" | "operator";
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

/** Whether `role` may do what `needed` allows. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}
