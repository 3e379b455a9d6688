// The console's merchant and treasury screens: list and search merchants, one merchant's settings, keys
// and webhook health, suspend / reactivate (note required) and key revocation for admins, and the
// treasury. Reads are for every signed-in operator; every change goes through the audited domain action.
import { type Context, Hono } from "hono";
import { AppError } from "../../domain/errors.ts";
import { isWellFormedId } from "../../domain/ids.ts";
import { revokeKeyAs, setMerchantStatusAs } from "../../domain/operators/merchant_actions.ts";
import { merchantOverview } from "../../domain/operators/merchant_overview.ts";
import { roleAllows } from "../../domain/operators/roles.ts";
import { merchantsPage, readCursor } from "../../domain/operators/console_lists.ts";
import type { ResumedSession } from "../../domain/operators/sessions.ts";
import { treasuryReport } from "../../domain/treasury/reconcile.ts";
import type { AppEnv } from "../../http/env.ts";
import { newNonce } from "../layout.tsx";
import { field, forgedForm, formOf, langOf, page, refused, sessionOf, toSignIn } from "./common.ts";
import { adminWords, errorLine } from "./i18n.ts";
import { renderMerchant, renderMerchants } from "./merchant_views.tsx";
import { renderTreasury } from "./treasury_views.tsx";

const STATUSES = new Set(["ACTIVE", "SUSPENDED", "CLOSED"]);

function frameOf(c: Context<AppEnv>, session: ResumedSession) {
  return { lang: langOf(c), nonce: newNonce(), actor: session.actor, csrf: session.csrfToken };
}

export function adminConsoleRoutes() {
  const r = new Hono<AppEnv>();

  r.get("/admin/merchants", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const frame = frameOf(c, session);
    const raw = c.req.query("q") ?? "";
    const q = raw.length <= 200 && !raw.includes("\u0000") && raw.isWellFormed() ? raw : "";
    const status = STATUSES.has(c.req.query("status") ?? "") ? c.req.query("status")! : "";
    let error: string | undefined;
    let after = null;
    try {
      after = readCursor(c.req.query("after"));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      error = `${errorLine(frame.lang, err.code)} ${err.message}`;
    }
    // A page at a time, newest first, by keyset: the next page starts after this page's last merchant.
    const { rows, next, total } = await merchantsPage(
      c.get("deps"),
      { q, status: status || undefined },
      after,
    );
    const html = renderMerchants({ ...frame, q, status, rows, total, next, paged: after !== null, error });
    return page(c, html, frame.nonce, error ? 400 : 200);
  });

  const showMerchant = async (
    c: Context<AppEnv>,
    session: ResumedSession,
    id: string,
    extra: { error?: string; notice?: string; status?: number } = {},
  ) => {
    const frame = frameOf(c, session);
    const view = await merchantOverview(c.get("deps"), id);
    const canAdmin = roleAllows(session.actor.role, "admin");
    const { status, ...shown } = extra;
    return page(c, renderMerchant({ ...frame, view, canAdmin, ...shown }), frame.nonce, status ?? 200);
  };

  r.get("/admin/merchants/:id", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const id = c.req.param("id");
    if (!isWellFormedId("mch", id)) return c.text("Not found", 404);
    const t = adminWords(langOf(c));
    const done = c.req.query("done");
    const notice = done === "status" ? t.statusChanged : done === "revoked" ? t.keyRevoked : undefined;
    try {
      return await showMerchant(c, session, id, { notice });
    } catch (err) {
      if (err instanceof AppError && err.code === "MERCHANT_NOT_FOUND") return c.text("Not found", 404);
      throw err;
    }
  });

  /** A posted admin change: session, same origin, CSRF token and the admin role, else refused. */
  const adminChange = async (
    c: Context<AppEnv>,
    merchantId: (form: Record<string, unknown>) => string,
    act: (session: ResumedSession, form: Record<string, unknown>) => Promise<string>,
  ) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const lang = langOf(c);
    const form = await formOf(c);
    if (forgedForm(c, session, form)) return refused(c, 403, errorLine(lang, "FORBIDDEN"));
    const id = merchantId(form);
    if (!isWellFormedId("mch", id)) return c.text("Not found", 404);
    try {
      if (!roleAllows(session.actor.role, "admin")) {
        throw new AppError("FORBIDDEN", adminWords(lang).adminOnly, { reason: "INSUFFICIENT_ROLE" });
      }
      const done = await act(session, form);
      return c.redirect(`/admin/merchants/${id}?lang=${lang}&done=${done}`, 303);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === "MERCHANT_NOT_FOUND" || err.code === "NOT_FOUND") return c.text("Not found", 404);
      return await showMerchant(c, session, id, {
        error: `${errorLine(lang, err.code)} ${err.message}`,
        status: err.status,
      });
    }
  };

  r.post(
    "/admin/merchants/:id/status",
    (c) =>
      adminChange(c, () => c.req.param("id"), async (session, form) => {
        const status = form.status === "ACTIVE" ? "ACTIVE" : form.status === "SUSPENDED" ? "SUSPENDED" : null;
        if (!status) throw new AppError("VALIDATION_ERROR", "status: ACTIVE or SUSPENDED");
        const note = field(form, "note", 1000);
        await setMerchantStatusAs(c.get("deps"), session.actor, { id: c.req.param("id"), status, note });
        return "status";
      }),
  );

  r.post(
    "/admin/keys/:id/revoke",
    (c) =>
      adminChange(
        c,
        (form) => typeof form.merchant === "string" ? form.merchant : "",
        async (session, form) => {
          const keyId = c.req.param("id");
          if (!isWellFormedId("key", keyId)) {
            throw new AppError("NOT_FOUND", "No such key");
          }
          const deps = c.get("deps");
          // The key must be the shown merchant's: a form naming another merchant's key is refused unchanged.
          const view = await merchantOverview(deps, form.merchant as string);
          if (!view.keys.some((k) => k.id === keyId)) throw new AppError("NOT_FOUND", "No such key");
          await revokeKeyAs(deps, session.actor, keyId);
          return "revoked";
        },
      ),
  );

  r.get("/admin/treasury", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const frame = frameOf(c, session);
    const report = await treasuryReport(c.get("deps"));
    return page(c, renderTreasury({ ...frame, report }), frame.nonce);
  });
  return r;
}
