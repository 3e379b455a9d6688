// The console's review screens: refunds awaiting approval, disputes to decide and held bulk batches, each
// a list (linked from the queue's counts), one item's story and a posted decision with a required note.
// Every decision calls the same audited domain function as its /admin/api route (four eyes and the state
// tables live there); the page only checks the session, the CSRF token, the origin and the role.
import { type Context, Hono } from "hono";
import { approveBatch, rejectBatch } from "../../domain/bulk/review.ts";
import { batchesPage, readCursor, refundsPage } from "../../domain/operators/console_lists.ts";
import { decideDispute } from "../../domain/disputes/decide.ts";
import { listDisputesForOperator } from "../../domain/disputes/queries.ts";
import { DISPUTE_STATUSES } from "../../domain/disputes/states.ts";
import { AppError } from "../../domain/errors.ts";
import { isWellFormedId } from "../../domain/ids.ts";
import { batchStory, disputeStory, refundStory } from "../../domain/operators/review_stories.ts";
import { roleAllows } from "../../domain/operators/roles.ts";
import type { ResumedSession } from "../../domain/operators/sessions.ts";
import { approveRefund, rejectRefund } from "../../domain/refunds/review.ts";
import type { AppEnv } from "../../http/env.ts";
import { newNonce } from "../layout.tsx";
import { field, forgedForm, formOf, langOf, page, refused, sessionOf, toSignIn } from "./common.ts";
import { renderBatch, renderBatches, renderDispute, renderDisputes } from "./dispute_views.tsx";
import { adminWords, errorLine } from "./i18n.ts";
import { reviewWords } from "./review_i18n.ts";
import { renderRefund, renderRefunds, type Shown } from "./review_views.tsx";
import type { Frame } from "./views.tsx";

type Shown2 = Shown & { status?: number };
type Screen = {
  /** The path under /admin and the id's prefix. */
  path: "refunds" | "disputes" | "bulk";
  prefix: "rfd" | "dsp" | "blk";
  /** The item's story page. */
  show: (c: Context<AppEnv>, frame: Frame, id: string, canDecide: boolean, shown: Shown) => Promise<string>;
  /** The decision, through the domain; "first" when it waits for a second reviewer. */
  decide: (
    c: Context<AppEnv>,
    session: ResumedSession,
    input: { id: string; action: string; note: string },
  ) => Promise<"first" | "decided">;
};

const UNDECIDED = ["OPEN", "UNDER_REVIEW", "ESCALATED"] as const;

const SCREENS: Screen[] = [
  {
    path: "refunds",
    prefix: "rfd",
    show: async (c, frame, id, canDecide, shown) =>
      renderRefund({ ...frame, ...shown, canDecide, story: await refundStory(c.get("deps"), id) }),
    decide: async (c, session, { id, action, note }) => {
      const input = { id, note, actor: session.actor };
      const row = await (action === "reject" ? rejectRefund : approveRefund)(c.get("deps"), input);
      return row.status === "PENDING_APPROVAL" ? "first" : "decided";
    },
  },
  {
    path: "disputes",
    prefix: "dsp",
    show: async (c, frame, id, canDecide, shown) =>
      renderDispute({ ...frame, ...shown, canDecide, story: await disputeStory(c.get("deps"), id) }),
    decide: async (c, session, { id, action, note }) => {
      if (action !== "resolve" && action !== "reject" && action !== "escalate") {
        throw new AppError("VALIDATION_ERROR", "action: resolve, reject or escalate");
      }
      await decideDispute(c.get("deps"), id, { action, note, actor: session.actor });
      return "decided";
    },
  },
  {
    path: "bulk",
    prefix: "blk",
    show: async (c, frame, id, canDecide, shown) =>
      renderBatch({ ...frame, ...shown, canDecide, story: await batchStory(c.get("deps"), id) }),
    decide: async (c, session, { id, action, note }) => {
      const input = { id, note, actor: session.actor };
      if (action === "reject") {
        await rejectBatch(c.get("deps"), input);
        return "decided";
      }
      // The page asks a note for every decision; the domain asks it only to reject.
      if (!note.trim()) throw new AppError("REASON_NOTE_REQUIRED", "A note saying why is required");
      const row = await approveBatch(c.get("deps"), input);
      return row.status === "PENDING_REVIEW" ? "first" : "decided";
    },
  },
];

function frameOf(c: Context<AppEnv>, session: ResumedSession): Frame {
  return { lang: langOf(c), nonce: newNonce(), actor: session.actor, csrf: session.csrfToken };
}

/** The catalogue's code in the operator's words, four eyes and a wrong state said plainly. */
function answerOf(c: Context<AppEnv>, err: AppError): string {
  const lang = langOf(c);
  const r = reviewWords(lang);
  if (err.reason === "SAME_APPROVER") return `${r.sameApprover} (SAME_APPROVER)`;
  if (err.code === "INVALID_TRANSACTION_STATUS" || err.code === "INVALID_STATE") {
    return `${r.wrongState}: ${err.message} (${err.code})`;
  }
  return `${errorLine(lang, err.code)} ${err.message} (${err.code})`;
}

/** The page cursor of a list (`after`), or the answer to a malformed one (the first page is shown). */
function cursorOf(c: Context<AppEnv>): { after: ReturnType<typeof readCursor>; error?: string } {
  try {
    return { after: readCursor(c.req.query("after")) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { after: null, error: answerOf(c, err) };
  }
}

export function adminReviewScreens() {
  const r = new Hono<AppEnv>();

  r.get("/admin/refunds", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const frame = frameOf(c, session);
    const { after, error } = cursorOf(c);
    const { rows, next } = await refundsPage(c.get("deps"), after);
    const html = renderRefunds({ ...frame, rows, next, paged: after !== null, error });
    return page(c, html, frame.nonce, error ? 400 : 200);
  });

  r.get("/admin/disputes", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const frame = frameOf(c, session);
    const deps = c.get("deps");
    const asked = c.req.query("status") ?? "";
    const status = (DISPUTE_STATUSES as readonly string[]).includes(asked) ? asked : "";
    const statuses = status ? [status] : UNDECIDED;
    const lists = await Promise.all(
      statuses.map((s) => listDisputesForOperator(deps, { status: s, limit: 100 })),
    );
    // Undecided ones by their deadline, the nearest first: that is the order an operator works in.
    const rows = lists.flat().sort((a, b) => a.evidenceDueAt.localeCompare(b.evidenceDueAt));
    return page(c, renderDisputes({ ...frame, rows, status }), frame.nonce);
  });

  r.get("/admin/bulk", async (c) => {
    const session = await sessionOf(c);
    if (!session) return toSignIn(c);
    const frame = frameOf(c, session);
    const { after, error } = cursorOf(c);
    const { rows, next } = await batchesPage(c.get("deps"), after);
    const html = renderBatches({ ...frame, rows, next, paged: after !== null, error });
    return page(c, html, frame.nonce, error ? 400 : 200);
  });

  for (const screen of SCREENS) {
    const show = async (c: Context<AppEnv>, session: ResumedSession, id: string, shown: Shown2 = {}) => {
      const frame = frameOf(c, session);
      const canDecide = roleAllows(session.actor.role, "reviewer");
      const { status, ...rest } = shown;
      return page(c, await screen.show(c, frame, id, canDecide, rest), frame.nonce, status ?? 200);
    };

    r.get(`/admin/${screen.path}/:id`, async (c) => {
      const session = await sessionOf(c);
      if (!session) return toSignIn(c);
      const id = c.req.param("id");
      if (!isWellFormedId(screen.prefix, id)) return c.text("Not found", 404);
      const words = reviewWords(langOf(c));
      const done = c.req.query("done");
      const notice = done === "first" ? words.firstApproval : done === "decided" ? words.decided : undefined;
      try {
        return await show(c, session, id, { notice });
      } catch (err) {
        if (err instanceof AppError && err.code === "NOT_FOUND") return c.text("Not found", 404);
        throw err;
      }
    });

    r.post(`/admin/${screen.path}/:id/decide`, async (c) => {
      const session = await sessionOf(c);
      if (!session) return toSignIn(c);
      const lang = langOf(c);
      const form = await formOf(c);
      if (forgedForm(c, session, form)) return refused(c, 403, errorLine(lang, "FORBIDDEN"));
      const id = c.req.param("id");
      if (!isWellFormedId(screen.prefix, id)) return c.text("Not found", 404);
      try {
        if (!roleAllows(session.actor.role, "reviewer")) {
          throw new AppError("FORBIDDEN", adminWords(lang).viewerOnly, { reason: "INSUFFICIENT_ROLE" });
        }
        const note = field(form, "note", 1000) ?? "";
        const action = typeof form.action === "string" ? form.action : "approve";
        const done = await screen.decide(c, session, { id, action, note });
        return c.redirect(`/admin/${screen.path}/${id}?lang=${lang}&done=${done}`, 303);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === "NOT_FOUND") return c.text("Not found", 404);
        return await show(c, session, id, { error: answerOf(c, err), status: err.status });
      }
    });
  }
  return r;
}
