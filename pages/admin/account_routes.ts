// /admin/account: the signed-in operator's own password, authenticator app and backup codes. Every form is
// CSRF-checked and asks for the current password; each change is audited (domain/operators/self_service.ts).
import { type Context, Hono } from "hono";
import { deleteCookie } from "hono/cookie";
import { AppError } from "../../domain/errors.ts";
import {
  changeOwnPassword,
  confirmTotpEnrolment,
  renewBackupCodes,
  startTotpEnrolment,
} from "../../domain/operators/self_service.ts";
import type { ResumedSession } from "../../domain/operators/sessions.ts";
import type { AppEnv } from "../../http/env.ts";
import { secureCookies, sessionCookieName } from "../../http/operator_session.ts";
import { newNonce } from "../layout.tsx";
import { renderAccount } from "./account_views.tsx";
import { field, forgedForm, formOf, langOf, page, refused, sessionOf, toSignIn } from "./common.ts";
import { adminWords, errorLine } from "./i18n.ts";

type Shown = Omit<Parameters<typeof renderAccount>[0], "lang" | "nonce" | "actor" | "csrf">;

function show(c: Context<AppEnv>, session: ResumedSession, shown: Shown = {}, status = 200) {
  const nonce = newNonce();
  const frame = { lang: langOf(c), nonce, actor: session.actor, csrf: session.csrfToken };
  return page(c, renderAccount({ ...frame, ...shown }), nonce, status);
}

export function adminAccountRoutes() {
  const r = new Hono<AppEnv>();

  r.get("/admin/account", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const t = adminWords(langOf(c));
    return show(c, session, { notice: c.req.query("done") === "totp" ? t.totpChanged : undefined });
  });

  /** A posted account form: session, same origin and CSRF token, then `act`; a refusal shows the page. */
  const posted =
    (act: (c: Context<AppEnv>, s: ResumedSession, form: Record<string, unknown>) => Promise<Response>) =>
    async (c: Context<AppEnv>) => {
      const session = await sessionOf(c);
      if (!session) return toSignIn(c);
      const form = await formOf(c);
      if (forgedForm(c, session, form)) return refused(c, 403, errorLine(langOf(c), "FORBIDDEN"));
      try {
        return await act(c, session, form);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
        return show(c, session, { error: `${errorLine(langOf(c), err.code)} ${err.message}` }, err.status);
      }
    };

  r.post(
    "/admin/account/password",
    posted(async (c, session, form) => {
      const deps = c.get("deps");
      await changeOwnPassword(deps, session.actor, {
        currentPassword: field(form, "currentPassword", 200) ?? "",
        newPassword: field(form, "newPassword", 200) ?? "",
      });
      // Every session ended, this one too: back to sign-in with the new password.
      deleteCookie(c, sessionCookieName(deps.config), { path: "/", secure: secureCookies(deps.config) });
      return toSignIn(c);
    }),
  );

  r.post(
    "/admin/account/totp",
    posted(async (c, session, form) => {
      const enrolment = await startTotpEnrolment(
        c.get("deps"),
        session.actor,
        field(form, "password", 200) ?? "",
      );
      return show(c, session, { enrolment });
    }),
  );

  r.post(
    "/admin/account/totp/confirm",
    posted(async (c, session, form) => {
      await confirmTotpEnrolment(c.get("deps"), session.actor, {
        sealed: field(form, "sealed", 1000) ?? "",
        code: field(form, "code", 64) ?? "",
      });
      return c.redirect(`/admin/account?lang=${langOf(c)}&done=totp`, 303);
    }),
  );

  r.post(
    "/admin/account/backup-codes",
    posted(async (c, session, form) => {
      const codes = await renewBackupCodes(c.get("deps"), session.actor, field(form, "password", 200) ?? "");
      return show(c, session, { codes });
    }),
  );
  return r;
}
