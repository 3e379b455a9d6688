// Public subscriber pages. The renewal page's id (80 random bits) is its capability, like a pay-in's
// checkout; the cancel link carries an HMAC token of the subscription id, so nobody cancels another
// customer's subscription by guessing. Unknown ids and bad tokens look the same: a 404 page.
import { type Context, Hono } from "hono";
import type { AppEnv } from "../http/env.ts";
import { clientAddress } from "../http/client_address.ts";
import { AppError } from "../domain/errors.ts";
import { brandingOf } from "../domain/merchants/branding.ts";
import { findMerchantById, RAILS } from "../domain/merchants/mod.ts";
import { takeTokens } from "../domain/limits/rate_limit.ts";
import { cancelByCustomer, findByCancelToken } from "../domain/subscriptions/actions.ts";
import {
  getRenewalPage,
  type RenewalPageView,
  startRenewalPayin,
} from "../domain/subscriptions/renewal_payin.ts";
import { type Lang, pickLang } from "./i18n.ts";
import { newNonce, securityHeaders } from "./layout.tsx";
import { renderCancelPage, renderRenewalPage, renderSubscriptionNotFound } from "./subscriptions.tsx";

function langOf(c: Context<AppEnv>): Lang {
  return pickLang(c.req.header("accept-language"), c.req.query("lang"));
}

function headersFor(lang: Lang, nonce: string) {
  return { ...securityHeaders(nonce, { forms: true }), "Content-Language": lang, Vary: "Accept-Language" };
}

/** A renewal still to pay whose merchant takes no payments: 403 while suspended, 410 once closed. */
function unavailableStatus(view: RenewalPageView): 403 | 410 | undefined {
  if (view.merchantAvailable || view.renewal.status !== "PENDING") return undefined;
  return view.merchantStatus === "CLOSED" ? 410 : 403;
}

function notFound(c: Context<AppEnv>, lang: Lang) {
  const nonce = newNonce();
  return c.html(renderSubscriptionNotFound(lang, nonce), 404, headersFor(lang, nonce));
}

/** A form body's text fields; anything unreadable is empty. */
async function formOf(c: Context<AppEnv>): Promise<Record<string, string>> {
  try {
    const body = await c.req.parseBody();
    return Object.fromEntries(
      Object.entries(body).filter(([, v]) => typeof v === "string").map((
        [k, v],
      ) => [k, (v as string).slice(0, 200)]),
    );
  } catch {
    return {};
  }
}

/** Posts on these pages start pay-ins or cancel: limited per client address like the public shop routes. */
async function limited(c: Context<AppEnv>, route: string): Promise<boolean> {
  const deps = c.get("deps");
  const [decision] = await takeTokens(deps, [{
    bucket: ["public", route, clientAddress(c)],
    limit: deps.config.publicRateLimit,
  }]);
  if (!decision.allowed) c.header("Retry-After", String(decision.retryAfterSeconds));
  return !decision.allowed;
}

export function subscriptionPageRoutes() {
  const r = new Hono<AppEnv>();

  r.get("/subscriptions/renewals/:id", async (c) => {
    const lang = langOf(c);
    const view = await getRenewalPage(c.get("deps"), c.req.param("id"));
    if (!view) return notFound(c, lang);
    const nonce = newNonce();
    return c.html(
      renderRenewalPage(view, lang, nonce),
      unavailableStatus(view) ?? 200,
      headersFor(lang, nonce),
    );
  });

  // Starts (or finds) the renewal's pay-in and sends the customer to its checkout.
  r.post("/subscriptions/renewals/:id/pay", async (c) => {
    const lang = langOf(c);
    const deps = c.get("deps");
    const id = c.req.param("id");
    const view = await getRenewalPage(deps, id);
    if (!view) return notFound(c, lang);
    const form = await formOf(c);
    const rail = RAILS.find((x) => x === form.paymentMethod);
    let problem: string;
    let status: 400 | 403 = 400;
    if (await limited(c, "renewal-pay")) {
      problem = lang === "fr"
        ? "trop de tentatives, réessayez dans une minute"
        : "too many attempts, retry in a minute";
    } else if (!rail) {
      problem = lang === "fr" ? "choisissez un moyen de paiement" : "choose a payment method";
    } else {
      try {
        const phone = form.customerPhone?.replace(/[\s.-]/g, "") || undefined;
        const payinId = await startRenewalPayin(deps, id, { paymentMethod: rail, customerPhone: phone });
        c.header("Cache-Control", "no-store");
        return c.redirect(`/checkout/${payinId}?lang=${lang}`, 303);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        problem = err.message;
        if (err.code === "MERCHANT_STATUS_INVALID" || err.code === "ACCOUNT_CLOSED") status = 403;
      }
    }
    const nonce = newNonce();
    const fresh = (await getRenewalPage(deps, id)) ?? view;
    return c.html(
      renderRenewalPage(fresh, lang, nonce, problem),
      unavailableStatus(fresh) ?? status,
      headersFor(lang, nonce),
    );
  });

  r.get("/subscriptions/:id/cancel", async (c) => {
    const lang = langOf(c);
    const deps = c.get("deps");
    const token = c.req.query("token") ?? "";
    const s = await findByCancelToken(deps, c.req.param("id"), token);
    const merchant = s && await findMerchantById(deps, s.merchant_id);
    if (!s || !merchant) return notFound(c, lang);
    const nonce = newNonce();
    return c.html(
      renderCancelPage(s, brandingOf(merchant), token, lang, nonce),
      200,
      headersFor(lang, nonce),
    );
  });

  r.post("/subscriptions/:id/cancel", async (c) => {
    const lang = langOf(c);
    const deps = c.get("deps");
    const id = c.req.param("id");
    const token = (await formOf(c)).token ?? "";
    if (!await findByCancelToken(deps, id, token)) return notFound(c, lang);
    if (await limited(c, "subscription-cancel")) return notFound(c, lang);
    await cancelByCustomer(deps, id, token);
    c.header("Cache-Control", "no-store");
    return c.redirect(`/subscriptions/${id}/cancel?token=${token}&lang=${lang}`, 303);
  });

  return r;
}
