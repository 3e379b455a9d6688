// The decision bodies' `reviewer` and `note`: who decides is resolved in the domain once the item is found
// (recordedReviewer): with a session, the signed-in operator; with ADMIN_TOKEN, this field, else "token".
import { z } from "@hono/zod-openapi";

export const ReviewerField = z.string().trim().min(1).max(100).optional().openapi({
  description: "who decides, recorded with the decision: with ADMIN_TOKEN, the name given (default " +
    '"token"); with a session, the signed-in operator (if given, it must be their e-mail)',
});

export const NoteField = z.string().max(1000).optional().openapi({ description: "why; required to reject" });
