// The hosted USDT refund page: GET shows the refund behind a signed link, POST (a plain form) gives the
// address once. No authentication: the signed, expiring link is the capability.
import { type Context, Hono } from "hono";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../domain/errors.ts";
import { getRefundPage, submitRefundAddress } from "../domain/refunds/usdt.ts";
import type { PageLink } from "../domain/refunds/usdt_link.ts";
import { type Lang, pickLang } from "./i18n.ts";
import { newNonce, securityHeaders } from "./layout.tsx";
import { REFUND_MESSAGES, renderRefundLinkProblem, renderRefundPage } from "./refund.tsx";

const REFUND_ID = /^rfd_[0-9a-z]{10,40}$/;

function langOf(c: Context<AppEnv>): Lang {
  return pickLang(c.req.header("accept-language"), c.req.query("lang"));
}

function headersFor(lang: Lang, nonce: string) {
  return { ...securityHeaders(nonce, { forms: true }), "Content-Language": lang, Vary: "Accept-Language" };
}

function linkOf(c: Context<AppEnv>): PageLink | undefined {
  const refundId = c.req.param("id") ?? "";
  const exp = c.req.query("exp") ?? "";
  const sig = c.req.query("sig") ?? "";
  if (!REFUND_ID.test(refundId) || exp.length > 20 || sig.length > 100) return undefined;
  return { refundId, exp, sig };
}

/** A bad or expired link: its own page (404 / 410); any other error goes to the app's error handler. */
function linkProblem(c: Context<AppEnv>, lang: Lang, nonce: string, err: unknown) {
  const expired = err instanceof AppError && err.reason === "LINK_EXPIRED";
  if (err instanceof AppError && (err.code === "NOT_FOUND" || expired)) {
    return c.html(
      renderRefundLinkProblem({ lang, nonce, expired }),
      expired ? 410 : 404,
      headersFor(lang, nonce),
    );
  }
  throw err;
}

/** The address field of a form post; "" when absent or unreadable. NULs and the like fail validation later. */
async function readAddress(c: Context<AppEnv>): Promise<string> {
  try {
    const body = await c.req.parseBody();
    return typeof body.address === "string" ? body.address.slice(0, 100) : "";
  } catch {
    return "";
  }
}

export function refundPageRoutes() {
  const r = new Hono<AppEnv>();

  r.get("/refunds/:id", async (c) => {
    const lang = langOf(c);
    const nonce = newNonce();
    const link = linkOf(c);
    if (!link) return linkProblem(c, lang, nonce, new AppError("NOT_FOUND"));
    try {
      const view = await getRefundPage(c.get("deps"), link);
      const action = `/refunds/${link.refundId}?exp=${link.exp}&sig=${link.sig}&lang=${lang}`;
      return c.html(renderRefundPage({ lang, nonce, view, action }), 200, headersFor(lang, nonce));
    } catch (err) {
      return linkProblem(c, lang, nonce, err);
    }
  });

  r.post("/refunds/:id", async (c) => {
    const lang = langOf(c);
    const nonce = newNonce();
    const link = linkOf(c);
    if (!link) return linkProblem(c, lang, nonce, new AppError("NOT_FOUND"));
    const address = await readAddress(c);
    const deps = c.get("deps");
    const action = `/refunds/${link.refundId}?exp=${link.exp}&sig=${link.sig}&lang=${lang}`;
    try {
      const view = await submitRefundAddress(deps, link, address);
      return c.html(renderRefundPage({ lang, nonce, view, action }), 200, headersFor(lang, nonce));
    } catch (err) {
      if (
        err instanceof AppError &&
        ["INVALID_ADDRESS", "CONFLICT", "INVALID_TRANSACTION_STATUS"].includes(err.code)
      ) {
        const view = await getRefundPage(deps, link);
        const t = REFUND_MESSAGES[lang];
        const error = t.errors[err.code] ?? t.other;
        return c.html(
          renderRefundPage({
            lang,
            nonce,
            view,
            action,
            error,
            address: address.replace(/[^\x20-\x7e]/g, ""),
          }),
          err.status as 400 | 409,
          headersFor(lang, nonce),
        );
      }
      return linkProblem(c, lang, nonce, err);
    }
  });

  return r;
}
