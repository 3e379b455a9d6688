// Who a decision is recorded under. With a session, the operator signed in (a `reviewer` in the body, if
// any, must name them). With ADMIN_TOKEN, the body's `reviewer` (required): automation names itself, and
// the audit trail records the caller as "token".
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError } from "../../domain/errors.ts";
import type { Actor } from "../../domain/operators/roles.ts";
import type { AppEnv } from "../../http/env.ts";

export const ReviewerField = z.string().trim().min(1).max(100).optional().openapi({
  description: "who decides, recorded with the decision: required with ADMIN_TOKEN; with a session, the " +
    "signed-in operator (if given, it must be their e-mail)",
});

export const NoteField = z.string().max(1000).optional().openapi({ description: "why; required to reject" });

export function decidedBy(
  c: Context<AppEnv>,
  reviewer: string | undefined,
): { reviewer: string; actor: Actor } {
  const actor = c.get("operator");
  if (actor.kind === "token") {
    if (!reviewer) {
      throw new AppError("VALIDATION_ERROR", "reviewer is required with the operator token", {
        details: [{ field: "reviewer", reason: "required with ADMIN_TOKEN: who decides" }],
      });
    }
    return { reviewer, actor };
  }
  if (reviewer !== undefined && reviewer.toLowerCase() !== actor.label) {
    throw new AppError("VALIDATION_ERROR", "reviewer must be the operator signed in (or left out)", {
      details: [{ field: "reviewer", reason: "the signed-in operator's e-mail, or absent" }],
    });
  }
  return { reviewer: actor.label, actor };
}
