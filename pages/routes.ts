// Public customer pages: the hosted checkout of a pay-in and its live status. No authentication: the
// pay-in id (80 random bits) is the capability, and the page shows nothing merchant-internal.
import { Hono } from "hono";
import type { AppEnv } from "../api/env.ts";
import { getCheckoutStatus, getCheckoutView } from "../domain/payins/checkout.ts";
import { renderCheckoutNotFound, renderCheckoutPage } from "./checkout.tsx";
import { pickLang } from "./i18n.ts";
import { newNonce, securityHeaders } from "./layout.tsx";

/** Ids look like `pay_` + 26 base32 characters; anything else is not looked up. */
const PAYIN_ID = /^pay_[0-9a-z]{10,40}$/;

export function checkoutRoutes() {
  const r = new Hono<AppEnv>();

  r.get("/checkout/:id", async (c) => {
    const lang = pickLang(c.req.header("accept-language"), c.req.query("lang"));
    const nonce = newNonce();
    const headers = { ...securityHeaders(nonce), "Content-Language": lang, Vary: "Accept-Language" };
    const id = c.req.param("id");
    const view = PAYIN_ID.test(id) ? await getCheckoutView(c.get("deps"), id) : null;
    if (!view) return c.html(renderCheckoutNotFound(lang, nonce), 404, headers);
    return c.html(renderCheckoutPage(view, lang, nonce), 200, headers);
  });

  r.get("/checkout/:id/status", async (c) => {
    const id = c.req.param("id");
    const status = PAYIN_ID.test(id) ? await getCheckoutStatus(c.get("deps"), id) : null;
    const headers = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };
    if (!status) {
      return c.json(
        { success: false, error: { code: "NOT_FOUND", message: "Payment not found" }, statusCode: 404 },
        404,
        headers,
      );
    }
    return c.json(status, 200, headers);
  });

  return r;
}
