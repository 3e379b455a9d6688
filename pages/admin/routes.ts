// The operator page at /admin: sign-in (password and code), the queue with its counts, search, and one
// item's story with approve / reject. Server-rendered forms, no script; the same session cookie and CSRF
// token as the operator API, and the same domain functions (every decision in the audit trail).
import { type Context, Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { AppError } from "../../domain/errors.ts";
import { approveOutbound, rejectOutbound } from "../../domain/money_out/review.ts";
import { operatorQueue } from "../../domain/operators/queue.ts";
import { readCursor, reviewItemsPage } from "../../domain/operators/console_lists.ts";
import { roleAllows } from "../../domain/operators/roles.ts";
import { searchRecords } from "../../domain/operators/search.ts";
import { csrfMatches, endSession, type ResumedSession } from "../../domain/operators/sessions.ts";
import { signIn } from "../../domain/operators/sign_in.ts";
import { itemStory } from "../../domain/operators/story.ts";
import { clientAddress } from "../../http/client_address.ts";
import type { AppEnv } from "../../http/env.ts";
import {
  crossOrigin,
  secureCookies,
  sessionCookieName,
  sessionCookieOptions,
} from "../../http/operator_session.ts";
import { newNonce } from "../layout.tsx";
import { adminWords, errorLine } from "./i18n.ts";
import { field, formOf, ITEM_ID, langOf, page, refused, sessionOf, toSignIn } from "./common.ts";
import { renderItem, renderQueue, renderSearch, renderSignIn } from "./views.tsx";

export function adminPageRoutes() {
  const r = new Hono<AppEnv>();

  const home = async (c: Context<AppEnv>) =>
    await sessionOf(c) ? c.redirect(`/admin/queue?lang=${langOf(c)}`, 303) : toSignIn(c);
  r.get("/admin", home);
  r.get("/admin/", home);

  r.get("/admin/sign-in", (c) => {
    const nonce = newNonce();
    return page(c, renderSignIn({ lang: langOf(c), nonce }), nonce);
  });

  r.post("/admin/sign-in", async (c) => {
    const lang = langOf(c);
    if (crossOrigin(c)) return refused(c, 403, errorLine(lang, "FORBIDDEN"));
    const deps = c.get("deps");
    const form = await formOf(c);
    let email: string | undefined;
    try {
      email = field(form, "email", 254) ?? "";
      const password = field(form, "password", 200) ?? "";
      const code = (field(form, "code", 64) ?? "").trim();
      const { session } = await signIn(deps, {
        email,
        password,
        ...(/^\d{6}$/.test(code) ? { totp: code } : code ? { backupCode: code } : {}),
        clientAddress: clientAddress(c),
      });
      setCookie(c, sessionCookieName(deps.config), session.token, sessionCookieOptions(deps.config));
      return c.redirect(`/admin/queue?lang=${lang}`, 303);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const nonce = newNonce();
      for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
      const error = `${errorLine(lang, err.code)} ${err.code === "VALIDATION_ERROR" ? err.message : ""}`
        .trim();
      return page(c, renderSignIn({ lang, nonce, error, email }), nonce, err.status);
    }
  });

  r.post("/admin/sign-out", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const form = await formOf(c);
    if (crossOrigin(c) || !csrfMatches(session, typeof form._csrf === "string" ? form._csrf : undefined)) {
      return refused(c, 403, errorLine(langOf(c), "FORBIDDEN"));
    }
    const deps = c.get("deps");
    await endSession(deps, session.actor);
    deleteCookie(c, sessionCookieName(deps.config), { path: "/", secure: secureCookies(deps.config) });
    return toSignIn(c);
  });

  r.get("/admin/queue", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const nonce = newNonce();
    const deps = c.get("deps");
    const frame = { lang: langOf(c), nonce, actor: session.actor, csrf: session.csrfToken };
    let error: string | undefined;
    let after = null;
    try {
      after = readCursor(c.req.query("after"));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      error = `${errorLine(frame.lang, err.code)} ${err.message}`;
    }
    // The counts, then the payouts and withdrawals in review a page at a time (keyset, oldest first).
    const { counts } = await operatorQueue(deps, 0);
    const { rows, next } = await reviewItemsPage(deps, after);
    const queue = { counts, items: rows };
    return page(
      c,
      renderQueue({ ...frame, queue, next, paged: after !== null, error }),
      nonce,
      error ? 400 : 200,
    );
  });

  r.get("/admin/search", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const nonce = newNonce();
    const q = (c.req.query("q") ?? "").slice(0, 200);
    const frame = { lang: langOf(c), nonce, actor: session.actor, csrf: session.csrfToken };
    try {
      return page(c, renderSearch({ ...frame, q, found: await searchRecords(c.get("deps"), q) }), nonce);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return page(c, renderSearch({ ...frame, q, found: [], error: err.message }), nonce, err.status);
    }
  });

  const showItem = async (
    c: Context<AppEnv>,
    session: ResumedSession,
    extra: { error?: string; notice?: string; status?: number },
  ) => {
    const id = c.req.param("id") ?? "";
    const nonce = newNonce();
    const lang = langOf(c);
    const frame = { lang, nonce, actor: session.actor, csrf: session.csrfToken };
    const canDecide = roleAllows(session.actor.role, "reviewer");
    const story = await itemStory(c.get("deps"), ITEM_ID.test(id) ? id : "none");
    const { status, ...shown } = extra;
    return page(c, renderItem({ ...frame, story, canDecide, ...shown }), nonce, status ?? 200);
  };

  r.get("/admin/items/:id", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const t = adminWords(langOf(c));
    const done = c.req.query("done");
    const notice = done === "first" ? t.firstApproval : done === "decided" ? t.decided : undefined;
    try {
      return await showItem(c, session, { notice });
    } catch (err) {
      if (err instanceof AppError && err.code === "NOT_FOUND") return c.text("Not found", 404);
      throw err;
    }
  });

  r.post("/admin/items/:id/decide", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const lang = langOf(c);
    const form = await formOf(c);
    if (crossOrigin(c) || !csrfMatches(session, typeof form._csrf === "string" ? form._csrf : undefined)) {
      return refused(c, 403, errorLine(lang, "FORBIDDEN"));
    }
    const id = c.req.param("id");
    if (!ITEM_ID.test(id)) return c.text("Not found", 404);
    try {
      if (!roleAllows(session.actor.role, "reviewer")) {
        throw new AppError("FORBIDDEN", adminWords(lang).viewerOnly, { reason: "INSUFFICIENT_ROLE" });
      }
      const note = field(form, "note", 1000)?.trim() || undefined;
      const input = { id, note, actor: session.actor };
      const deps = c.get("deps");
      const action = form.action === "reject" ? "reject" : "approve";
      const row = await (action === "reject" ? rejectOutbound(deps, input) : approveOutbound(deps, input));
      const first = action === "approve" && (row.status === "PENDING" || row.status === "PENDING_REVIEW");
      return c.redirect(`/admin/items/${id}?lang=${lang}&done=${first ? "first" : "decided"}`, 303);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === "NOT_FOUND") return c.text("Not found", 404);
      const error = `${errorLine(lang, err.code)} ${err.message}`;
      return await showItem(c, session, { error, status: err.status });
    }
  });
  return r;
}
