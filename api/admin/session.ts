// Operator sign-in under /admin/api/session: e-mail, password and a TOTP code (or a backup code) in one
// request give a session cookie (HttpOnly, SameSite=Strict, Secure but on plain-http development) and the
// session's CSRF token; GET tells who is signed in, DELETE signs out.
import { createRoute, z } from "@hono/zod-openapi";
import { deleteCookie, setCookie } from "hono/cookie";
import { AppError } from "../../domain/errors.ts";
import { signIn } from "../../domain/operators/sign_in.ts";
import { endSession } from "../../domain/operators/sessions.ts";
import { clientAddress } from "../../http/client_address.ts";
import { newRouter } from "../router.ts";
import { errorResponses, iso, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireViewer } from "../middleware/admin_auth.ts";
import { secureCookies, sessionCookieName, sessionCookieOptions } from "../../http/operator_session.ts";

const tags = ["Admin"];

const SignInBody = z.strictObject({
  email: z.string().max(254).openapi({ example: "awa@example.com" }),
  password: z.string().min(1).max(200),
  totp: z.string().max(16).optional().openapi({ description: "the 6-digit code of the authenticator app" }),
  backupCode: z.string().max(64).optional().openapi({
    description: "instead of totp: one of the backup codes given at creation (each works once)",
  }),
}).openapi({ description: "totp or backupCode, not both (VALIDATION_ERROR once the password is right)" });

const SignedInOperator = z.object({
  id: z.string().openapi({ description: 'an operator id, or "token" for ADMIN_TOKEN' }),
  email: z.string().nullable(),
  role: z.enum(["viewer", "reviewer", "admin"]),
});

const SessionSchema = z.object({
  operator: SignedInOperator,
  csrfToken: z.string().nullable().openapi({
    description: "send it as X-CSRF-Token on every request that changes something (null for the token)",
  }),
  expiresAt: z.string().nullable().openapi({ description: "the session's end, however busy" }),
  idleExpiresAt: z.string().nullable().openapi({ description: "the session's end if unused until then" }),
}).openapi("OperatorSession");

export function adminSessionRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "post",
      path: "/session",
      operationId: "adminSignIn",
      tags,
      summary: "Sign in as an operator (password and two-factor code); sets the session cookie",
      description: "Without `totp` or `backupCode` a right password answers TOTP_REQUIRED. A wrong code is " +
        "TOTP_INVALID (a code already used as well), a wrong backup code BACKUP_CODE_INVALID. Failures in a " +
        "row slow the next try down and lock the account for 15 minutes at the fifth (RATE_LIMIT_EXCEEDED " +
        "with Retry-After).",
      security: [],
      request: { body: { required: true, content: { "application/json": { schema: SignInBody } } } },
      responses: {
        201: {
          ...jsonContent(successSchema(SessionSchema), "Signed in"),
          headers: { "Set-Cookie": { description: "the session cookie", schema: { type: "string" } } },
        },
        ...errorResponses,
      },
    }),
    async (c) => {
      const deps = c.get("deps");
      const body = c.req.valid("json");
      const { operator, session } = await signIn(deps, { ...body, clientAddress: clientAddress(c) });
      setCookie(c, sessionCookieName(deps.config), session.token, sessionCookieOptions(deps.config));
      const idle = deps.clock.now().getTime() + deps.config.operators.sessionIdleMinutes * 60_000;
      return ok(c, {
        operator: { id: operator.id, email: operator.email, role: operator.role },
        csrfToken: session.csrfToken,
        expiresAt: iso(session.expiresAt),
        idleExpiresAt: iso(new Date(Math.min(idle, session.expiresAt.getTime()))),
      }, 201);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/session",
      operationId: "adminGetSession",
      tags,
      summary: "Who is signed in (and the session's CSRF token)",
      security: OPERATOR_SECURITY,
      middleware: [requireViewer],
      responses: { 200: jsonContent(successSchema(SessionSchema), "The caller"), ...errorResponses },
    }),
    (c) => {
      const actor = c.get("operator");
      const session = c.get("operatorSession");
      return ok(c, {
        operator: { id: actor.id, email: actor.kind === "token" ? null : actor.label, role: actor.role },
        csrfToken: session?.csrfToken ?? null,
        expiresAt: iso(session?.expiresAt),
        idleExpiresAt: iso(session?.idleExpiresAt),
      });
    },
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/session",
      operationId: "adminSignOut",
      tags,
      summary: "Sign out: the session ends and its cookie is cleared",
      security: OPERATOR_SECURITY,
      middleware: [requireViewer],
      responses: {
        200: jsonContent(successSchema(z.object({ signedOut: z.literal(true) })), "Signed out"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const deps = c.get("deps");
      const session = c.get("operatorSession");
      if (!session) throw new AppError("BAD_REQUEST", "The operator token has no session to end");
      await endSession(deps, session.actor);
      deleteCookie(c, sessionCookieName(deps.config), { path: "/", secure: secureCookies(deps.config) });
      return ok(c, { signedOut: true as const });
    },
  );
  return r;
}
