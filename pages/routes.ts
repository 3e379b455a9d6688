// Public customer pages: the hosted checkout of a pay-in, its live status, and the mobile money SMS code
// form. No authentication: the pay-in id (80 random bits) is the capability, and the page shows nothing
// merchant-internal.
import { type Context, Hono } from "hono";
import type { AppEnv } from "../http/env.ts";
import { getCheckoutStatus, getCheckoutView } from "../domain/payins/checkout.ts";
import { digitalDeliveryOf } from "../domain/shop/delivery.ts";
import { submitCheckoutOtp } from "../domain/payins/otp.ts";
import { AppError } from "../domain/errors.ts";
import { renderCheckoutNotFound, renderCheckoutPage, renderCheckoutUnavailable } from "./checkout.tsx";
import { OTP_NOTICES, type OtpNotice } from "./checkout_fiat.tsx";
import { type Lang, pickLang } from "./i18n.ts";
import { newNonce, securityHeaders } from "./layout.tsx";

/** Ids look like `pay_` + 26 base32 characters; anything else is not looked up. */
const PAYIN_ID = /^pay_[0-9a-z]{10,40}$/;

const JSON_HEADERS = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

/** The answers of the SMS code form a customer can act on; anything else is an internal error. */
const OTP_CODES = ["OTP_INVALID", "OTP_EXPIRED", "OTP_NOT_APPLICABLE", "RATE_LIMITED", "NOT_FOUND"] as const;

function langOf(c: Context<AppEnv>): Lang {
  return pickLang(c.req.header("accept-language"), c.req.query("lang"));
}

function pageHeaders(lang: Lang, nonce: string) {
  return {
    ...securityHeaders(nonce, { forms: true }),
    "Content-Language": lang,
    Vary: "Accept-Language",
  };
}

function notFoundJson(c: Context<AppEnv>) {
  return c.json(
    { success: false, error: { code: "NOT_FOUND", message: "Payment not found" }, statusCode: 404 },
    404,
    JSON_HEADERS,
  );
}

/** The code from a form post or from the page's script (JSON); "" when absent or unreadable. */
async function readOtp(c: Context<AppEnv>, isJson: boolean): Promise<string> {
  try {
    const body: Record<string, unknown> = isJson ? await c.req.json() : await c.req.parseBody();
    return typeof body?.otp === "string" ? body.otp.replace(/\s+/g, "").slice(0, 32) : "";
  } catch {
    return "";
  }
}

export function checkoutRoutes() {
  const r = new Hono<AppEnv>();

  r.get("/checkout/:id", async (c) => {
    const lang = langOf(c);
    const nonce = newNonce();
    const headers = pageHeaders(lang, nonce);
    const id = c.req.param("id");
    const view = PAYIN_ID.test(id) ? await getCheckoutView(c.get("deps"), id) : null;
    if (!view) return c.html(renderCheckoutNotFound(lang, nonce), 404, headers);
    if (!view.merchantAvailable && view.phase === "waiting") {
      // Nothing to pay: 403 while the merchant is suspended, 410 once it is closed.
      const status = view.merchantStatus === "CLOSED" ? 410 : 403;
      return c.html(renderCheckoutUnavailable(view, lang, nonce), status, headers);
    }
    const delivery = await digitalDeliveryOf(c.get("deps"), id);
    const asked = c.req.query("otp");
    const notice = (OTP_NOTICES as readonly string[]).includes(asked ?? "") ? asked as OtpNotice : null;
    return c.html(renderCheckoutPage(view, lang, nonce, notice, delivery), 200, headers);
  });

  r.get("/checkout/:id/status", async (c) => {
    const id = c.req.param("id");
    const status = PAYIN_ID.test(id) ? await getCheckoutStatus(c.get("deps"), id) : null;
    if (!status) return notFoundJson(c);
    return c.json(status, 200, JSON_HEADERS);
  });

  // The SMS code of a mobile money pay-in (OTP mode). A form post answers 303 back to the page, which
  // shows "processing" or the refusal inline; the page's script sends JSON and gets JSON. The pay-in
  // stays AWAITING_PAYMENT: the operator's callback decides.
  r.post("/checkout/:id/otp", async (c) => {
    const id = c.req.param("id");
    const isJson = (c.req.header("content-type") ?? "").startsWith("application/json");
    const lang = langOf(c);
    if (!PAYIN_ID.test(id)) {
      if (isJson) return notFoundJson(c);
      const nonce = newNonce();
      return c.html(renderCheckoutNotFound(lang, nonce), 404, pageHeaders(lang, nonce));
    }
    const otp = await readOtp(c, isJson);
    let outcome: OtpNotice | "NOT_FOUND";
    try {
      // A merchant that takes no payments is paid no SMS code either (the page says it is unavailable).
      const merchant = await getCheckoutView(c.get("deps"), id);
      if (merchant && !merchant.merchantAvailable) {
        throw new AppError("OTP_NOT_APPLICABLE", "This merchant is not taking payments");
      }
      await submitCheckoutOtp(c.get("deps"), id, otp);
      outcome = "sent";
    } catch (err) {
      if (!(err instanceof AppError) || !(OTP_CODES as readonly string[]).includes(err.code)) throw err;
      outcome = err.code as typeof OTP_CODES[number];
    }
    if (isJson) {
      if (outcome === "NOT_FOUND") return notFoundJson(c);
      if (outcome === "sent") {
        return c.json({ status: "AWAITING_PAYMENT", phase: "processing" }, 200, JSON_HEADERS);
      }
      const message = {
        OTP_INVALID: "OTP incorrect",
        OTP_EXPIRED: "OTP expired",
        OTP_NOT_APPLICABLE: "OTP not applicable",
        RATE_LIMITED: "Too many codes for this payment; wait a minute",
      }[outcome];
      const status = outcome === "RATE_LIMITED" ? 429 : 400;
      return c.json(
        { success: false, error: { code: outcome, message }, statusCode: status },
        status,
        JSON_HEADERS,
      );
    }
    if (outcome === "NOT_FOUND") {
      const nonce = newNonce();
      return c.html(renderCheckoutNotFound(lang, nonce), 404, pageHeaders(lang, nonce));
    }
    c.header("Cache-Control", "no-store");
    return c.redirect(`/checkout/${id}?lang=${lang}&otp=${outcome}`, 303);
  });

  return r;
}
