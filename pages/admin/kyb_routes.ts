// The console's KYB and held-status screens. KYB: the reviews waiting (SUBMITTED), one review with its
// business details, documents and question threads; a reviewer approves or rejects (note required), asks
// a question, replies, resolves or dismisses a thread. Held statuses: what an aggregator answered that the
// gateway does not know; a reviewer settles it as the aggregator's back office shows (note required).
// Every change calls the same audited domain function as its /admin/api route; the page checks only the
// session, the origin, the CSRF token and the role (viewer reads, reviewer decides).
import { type Context, Hono } from "hono";
import { AppError } from "../../domain/errors.ts";
import { isWellFormedId } from "../../domain/ids.ts";
import { decideKyb, getKyb } from "../../domain/kyb/review.ts";
import { closeKybThread, openThread, operatorReply } from "../../domain/kyb/threads.ts";
import {
  heldStatusesPage,
  heldStory,
  kybStory,
  kybWaitingPage,
  readCursor,
} from "../../domain/operators/console_lists.ts";
import { roleAllows } from "../../domain/operators/roles.ts";
import type { ResumedSession } from "../../domain/operators/sessions.ts";
import { resolveHeldStatus } from "../../domain/providers/held_statuses.ts";
import type { AppEnv } from "../../http/env.ts";
import { newNonce } from "../layout.tsx";
import { field, forgedForm, formOf, langOf, page, refused, sessionOf, toSignIn } from "./common.ts";
import { consoleWords } from "./console_i18n.ts";
import { renderHeld, renderHeldList } from "./held_views.tsx";
import { adminWords, errorLine } from "./i18n.ts";
import { renderKybList, renderKybReview } from "./kyb_views.tsx";
import { reviewWords } from "./review_i18n.ts";
import type { Shown } from "./review_views.tsx";
import type { Frame } from "./views.tsx";

type Shown2 = Shown & { status?: number };

function frameOf(c: Context<AppEnv>, session: ResumedSession): Frame {
  return { lang: langOf(c), nonce: newNonce(), actor: session.actor, csrf: session.csrfToken };
}

/** The catalogue's code in the operator's words, with the domain's message and the code itself. */
function answerOf(c: Context<AppEnv>, err: AppError): string {
  const lang = langOf(c);
  if (err.code === "INVALID_STATE") return `${reviewWords(lang).wrongState}: ${err.message} (${err.code})`;
  const line = errorLine(lang, err.code);
  return `${line === err.code ? "" : `${line} `}${err.message} (${err.code})`;
}

const HELD_ID = (id: string) => isWellFormedId("pay", id) || isWellFormedId("fdis", id);
const STATUS_WORD = /^[A-Z_]{1,40}$/;

export function adminKybScreens() {
  const r = new Hono<AppEnv>();

  /** A posted change: signed in, same origin, the session's CSRF token, the reviewer role; else refused. */
  const change = async (
    c: Context<AppEnv>,
    validId: boolean,
    act: (session: ResumedSession, form: Record<string, unknown>) => Promise<string>,
    onError: (session: ResumedSession, shown: Shown2) => Promise<Response>,
  ) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const lang = langOf(c);
    const form = await formOf(c);
    if (forgedForm(c, session, form)) return refused(c, 403, errorLine(lang, "FORBIDDEN"));
    if (!validId) return c.text("Not found", 404);
    try {
      if (!roleAllows(session.actor.role, "reviewer")) {
        throw new AppError("FORBIDDEN", adminWords(lang).viewerOnly, { reason: "INSUFFICIENT_ROLE" });
      }
      return c.redirect(await act(session, form), 303);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === "NOT_FOUND" || err.code === "MERCHANT_NOT_FOUND") return c.text("Not found", 404);
      return await onError(session, { error: answerOf(c, err), status: err.status });
    }
  };

  /** The note a decision must carry: text PostgreSQL can store, 1 to 1000 characters once trimmed. */
  const noteOf = (form: Record<string, unknown>, name = "note", max = 1000) => {
    const note = (field(form, name, max) ?? "").trim();
    if (!note) throw new AppError("REASON_NOTE_REQUIRED", "A note saying why is required");
    return note;
  };

  // --- KYB -------------------------------------------------------------------------------------------

  const kybList = async (c: Context<AppEnv>, session: ResumedSession) => {
    const frame = frameOf(c, session);
    let error: string | undefined;
    let after = null;
    try {
      after = readCursor(c.req.query("after"));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      error = answerOf(c, err);
    }
    const { rows, next } = await kybWaitingPage(c.get("deps"), after);
    const html = renderKybList({ ...frame, error, rows, next, paged: after !== null });
    return page(c, html, frame.nonce, error ? 400 : 200);
  };

  r.get("/admin/kyb", async (c) => {
    const session = await sessionOf(c);
    return session ? await kybList(c, session) : toSignIn(c);
  });

  const showKyb = async (c: Context<AppEnv>, session: ResumedSession, id: string, shown: Shown2 = {}) => {
    const frame = frameOf(c, session);
    const canDecide = roleAllows(session.actor.role, "reviewer");
    const { status, ...rest } = shown;
    const story = await kybStory(c.get("deps"), id);
    return page(c, renderKybReview({ ...frame, ...rest, story, canDecide }), frame.nonce, status ?? 200);
  };

  r.get("/admin/kyb/:id", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const id = c.req.param("id");
    if (!isWellFormedId("mch", id)) return c.text("Not found", 404);
    const words = consoleWords(langOf(c));
    const notices: Record<string, string> = {
      decided: words.kybDecided,
      asked: words.threadOpened,
      replied: words.threadReplied,
      closed: words.threadClosed,
    };
    try {
      return await showKyb(c, session, id, { notice: notices[c.req.query("done") ?? ""] });
    } catch (err) {
      if (err instanceof AppError && err.code === "MERCHANT_NOT_FOUND") return c.text("Not found", 404);
      throw err;
    }
  });

  r.post("/admin/kyb/:id/decide", (c) => {
    const id = c.req.param("id");
    return change(c, isWellFormedId("mch", id), async (session, form) => {
      const note = noteOf(form);
      const decision = form.action === "reject" ? "REJECTED" : form.action === "approve" ? "APPROVED" : null;
      if (!decision) throw new AppError("VALIDATION_ERROR", "action: approve or reject");
      await decideKyb(c.get("deps"), session.actor, { merchantId: id, decision, note });
      return `/admin/kyb/${id}?lang=${langOf(c)}&done=decided`;
    }, (session, shown) => showKyb(c, session, id, shown));
  });

  r.post("/admin/kyb/:id/threads", (c) => {
    const id = c.req.param("id");
    return change(c, isWellFormedId("mch", id), async (session, form) => {
      const message = noteOf(form, "message", 4000);
      await openThread(c.get("deps"), session.actor, { merchantId: id, message });
      return `/admin/kyb/${id}?lang=${langOf(c)}&done=asked`;
    }, (session, shown) => showKyb(c, session, id, shown));
  });

  r.post("/admin/kyb/:id/threads/:threadId", (c) => {
    const id = c.req.param("id");
    const threadId = c.req.param("threadId");
    const valid = isWellFormedId("mch", id) && isWellFormedId("kth", threadId);
    return change(c, valid, async (session, form) => {
      const deps = c.get("deps");
      // The thread must be this merchant's: another merchant's thread id is NOT_FOUND, nothing changed.
      const review = await getKyb(deps, id);
      if (!review.threads.some((t) => t.id === threadId)) throw new AppError("NOT_FOUND", "No such thread");
      const message = noteOf(form, "message", 4000);
      const lang = langOf(c);
      if (form.action === "reply") {
        await operatorReply(deps, session.actor, { threadId, message });
        return `/admin/kyb/${id}?lang=${lang}&done=replied`;
      }
      if (form.action !== "resolve" && form.action !== "dismiss") {
        throw new AppError("VALIDATION_ERROR", "action: reply, resolve or dismiss");
      }
      const outcome = form.action === "resolve" ? "RESOLVED" : "DISMISSED";
      await closeKybThread(deps, session.actor, { threadId, outcome, note: message });
      return `/admin/kyb/${id}?lang=${lang}&done=closed`;
    }, (session, shown) => showKyb(c, session, id, shown));
  });

  // --- Held aggregator statuses ----------------------------------------------------------------------

  const heldList = async (c: Context<AppEnv>, session: ResumedSession, shown: Shown2 = {}) => {
    const frame = frameOf(c, session);
    const { status, ...rest } = shown;
    let code = status ?? 200;
    let after = null;
    try {
      after = readCursor(c.req.query("after"));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      rest.error = answerOf(c, err);
      code = 400;
    }
    const { rows, next } = await heldStatusesPage(c.get("deps"), after);
    return page(
      c,
      renderHeldList({ ...frame, ...rest, rows, next, paged: after !== null }),
      frame.nonce,
      code,
    );
  };

  r.get("/admin/provider-statuses", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const settled = c.req.query("settled") ?? "";
    const now = c.req.query("status") ?? "";
    const words = consoleWords(langOf(c));
    const notice = HELD_ID(settled) && STATUS_WORD.test(now)
      ? `${words.settled} ${settled} ${words.nowStatus} ${now}.`
      : undefined;
    return await heldList(c, session, { notice });
  });

  const showHeld = async (c: Context<AppEnv>, session: ResumedSession, id: string, shown: Shown2 = {}) => {
    const frame = frameOf(c, session);
    const canDecide = roleAllows(session.actor.role, "reviewer");
    const { status, ...rest } = shown;
    try {
      const story = await heldStory(c.get("deps"), id);
      return page(c, renderHeld({ ...frame, ...rest, story, canDecide }), frame.nonce, status ?? 200);
    } catch (err) {
      // Settled meanwhile (by another operator or a later known answer): the list says what happened.
      if (err instanceof AppError && err.code === "NOT_FOUND" && shown.error) {
        return await heldList(c, session, shown);
      }
      throw err;
    }
  };

  r.get("/admin/provider-statuses/:id", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const id = c.req.param("id");
    if (!HELD_ID(id)) return c.text("Not found", 404);
    try {
      return await showHeld(c, session, id);
    } catch (err) {
      if (err instanceof AppError && err.code === "NOT_FOUND") return c.text("Not found", 404);
      throw err;
    }
  });

  r.post("/admin/provider-statuses/:id/resolve", (c) => {
    const id = c.req.param("id");
    return change(c, HELD_ID(id), async (session, form) => {
      const note = noteOf(form);
      const outcome = form.outcome === "SUCCEEDED"
        ? "SUCCEEDED"
        : form.outcome === "FAILED"
        ? "FAILED"
        : null;
      if (!outcome) throw new AppError("VALIDATION_ERROR", "outcome: SUCCEEDED or FAILED");
      const done = await resolveHeldStatus(c.get("deps"), id, { outcome, note, actor: session.actor });
      return `/admin/provider-statuses?lang=${langOf(c)}&settled=${id}&status=${done.status}`;
    }, (session, shown) => showHeld(c, session, id, shown));
  });

  return r;
}
