// What every operator page route shares: the language, the page's headers, the session behind the cookie,
// form fields PostgreSQL can store, and the CSRF check of a posted form.
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { AppError } from "../../domain/errors.ts";
import { csrfMatches, type ResumedSession, resumeSession } from "../../domain/operators/sessions.ts";
import { clientAddress } from "../../http/client_address.ts";
import type { AppEnv } from "../../http/env.ts";
import { crossOrigin, sessionCookieName } from "../../http/operator_session.ts";
import { type Lang, pickLang } from "../i18n.ts";
import { newNonce, securityHeaders } from "../layout.tsx";
import { renderSignIn } from "./views.tsx";

export const ITEM_ID = /^(pout|wdr)_[0-9a-z]{26}$/;

export function langOf(c: Context<AppEnv>): Lang {
  return pickLang(c.req.header("accept-language"), c.req.query("lang"));
}

export function page(c: Context<AppEnv>, html: string, nonce: string, status = 200) {
  return c.html(html, status as 200, {
    ...securityHeaders(nonce, { forms: true }),
    // With no-referrer, a browser posts this page's forms with `Origin: null`, which reads as another site.
    "Referrer-Policy": "same-origin",
    "Content-Language": langOf(c),
    Vary: "Accept-Language, Cookie",
  });
}

/** Text PostgreSQL can store, within `max` characters; anything else is refused before use. */
export function field(form: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = form[name];
  if (typeof value !== "string") return undefined;
  if (value.length > max || value.includes("\u0000") || !value.isWellFormed()) {
    throw new AppError("VALIDATION_ERROR", `${name}: at most ${max} characters, no NUL or lone surrogate`);
  }
  return value;
}

export async function formOf(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  try {
    return await c.req.parseBody();
  } catch {
    return {};
  }
}

/** The signed-in operator, or undefined (the page then shows sign-in). */
export async function sessionOf(c: Context<AppEnv>): Promise<ResumedSession | undefined> {
  const deps = c.get("deps");
  const cookie = getCookie(c, sessionCookieName(deps.config));
  if (!cookie) return undefined;
  try {
    return await resumeSession(deps, cookie, clientAddress(c));
  } catch (err) {
    if (err instanceof AppError) return undefined;
    throw err;
  }
}

export function toSignIn(c: Context<AppEnv>) {
  return c.redirect(`/admin/sign-in?lang=${langOf(c)}`, 303);
}

export function refused(c: Context<AppEnv>, status: 403 | 400, message: string) {
  const nonce = newNonce();
  return page(c, renderSignIn({ lang: langOf(c), nonce, error: message }), nonce, status);
}

/** A posted form from this origin carrying the session's CSRF token; anything else is refused. */
export function forgedForm(
  c: Context<AppEnv>,
  session: ResumedSession,
  form: Record<string, unknown>,
): boolean {
  return crossOrigin(c) || !csrfMatches(session, typeof form._csrf === "string" ? form._csrf : undefined);
}
