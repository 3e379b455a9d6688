// GET /pay/link/:slug: the hosted paylink page (the paylink's paymentUrl). Public: the slug is the
// address the merchant shares. Each render counts one view for the paylink's stats.
import { Hono } from "hono";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../domain/errors.ts";
import { getShopView } from "../domain/shop/storefront.ts";
import { pickLang } from "./i18n.ts";
import { newNonce, securityHeaders } from "./layout.tsx";
import { renderPaylinkNotFound, renderPaylinkPage } from "./paylink.tsx";

export function shopPageRoutes() {
  const r = new Hono<AppEnv>();
  r.get("/pay/link/:slug", async (c) => {
    const deps = c.get("deps");
    const lang = pickLang(c.req.header("accept-language"), c.req.query("lang"));
    const nonce = newNonce();
    // Product and cover images are served by this gateway (/v1/images/...) under its public URL.
    const headers = {
      ...securityHeaders(nonce, { imageOrigins: ["'self'", new URL(deps.config.publicUrl).origin] }),
      "Content-Language": lang,
      Vary: "Accept-Language",
    };
    try {
      const view = await getShopView(deps, c.req.param("slug"), { countView: true });
      // A merchant that takes no payments: the page says so, 403 while suspended, 410 once closed.
      const status = view.merchantAvailable ? 200 : view.merchantStatus === "CLOSED" ? 410 : 403;
      return c.html(renderPaylinkPage(view, lang, nonce), status, headers);
    } catch (err) {
      if (err instanceof AppError && err.code === "NOT_FOUND") {
        return c.html(renderPaylinkNotFound(lang, nonce), 404, headers);
      }
      throw err;
    }
  });
  return r;
}
