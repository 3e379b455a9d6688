// The simulators' HTTP side, as a Hono app with routes under /simulators:
//   GET  /simulators/card/:ref              the acquirer's hosted page: card form, challenge or processing
//   POST /simulators/card/:ref              card form (number, expiry, cvc)
//   POST /simulators/card/:ref/challenge    challenge code (code)
//   GET  /simulators/momo/:ref              a simulated phone: the SMS code, or approve/decline buttons
//   POST /simulators/momo/:ref/approve      the customer approves (approval mode)
//   POST /simulators/momo/:ref/decline      the customer declines (approval mode)
// Pages take `?lang=fr|en`, else Accept-Language, else French. approve/decline answer JSON, or redirect
// back to the phone page when posted from its HTML form.
import { type Context, Hono } from "hono";
import type { CardSimulator } from "./card_simulator.ts";
import type { MomoSimulator } from "./momo_simulator.ts";
import { renderCardForm, renderChallenge, renderProcessing } from "./simulator_card_pages.tsx";
import { type Lang, pickLang, renderNotFound } from "./simulator_layout.tsx";
import { renderPhone } from "./simulator_momo_pages.tsx";

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

function html(body: string, status = 200): Response {
  return new Response(body, { status, headers: PAGE_HEADERS });
}

function langOf(c: Context): Lang {
  return pickLang(c.req.header("accept-language"), c.req.query("lang"));
}

async function formField(c: Context, ...names: string[]): Promise<Record<string, string>> {
  let body: Record<string, unknown> = {};
  try {
    body = await c.req.parseBody();
  } catch {
    // an unreadable body is an empty form
  }
  return Object.fromEntries(names.map((n) => [n, typeof body[n] === "string" ? body[n] as string : ""]));
}

function seeOther(c: Context, path: string, lang: Lang): Response {
  return c.redirect(`${path}?lang=${lang}`, 303);
}

export function simulatorRoutes(card: CardSimulator, momo: MomoSimulator): Hono {
  const app = new Hono();

  const cardPage = (ref: string, lang: Lang): Response => {
    const p = card.get(ref);
    if (!p) return html(renderNotFound(lang), 404);
    const path = `/simulators/card/${ref}`;
    const base = { lang, path, amount: p.amount, isSandbox: p.isSandbox };
    if (p.step === "card") return html(renderCardForm(base));
    if (p.step === "challenge") return html(renderChallenge({ ...base, last4: p.last4 ?? "" }));
    return html(renderProcessing({ lang, returnUrl: p.returnUrl }));
  };

  app.get("/simulators/card/:ref", (c) => cardPage(c.req.param("ref"), langOf(c)));

  app.post("/simulators/card/:ref", async (c) => {
    const ref = c.req.param("ref");
    const lang = langOf(c);
    const p = card.get(ref);
    if (!p) return html(renderNotFound(lang), 404);
    const fields = await formField(c, "number", "expiry", "cvc");
    const result = card.submitCard(ref, { number: fields.number, expiry: fields.expiry, cvc: fields.cvc });
    if (!result.ok) {
      const path = `/simulators/card/${ref}`;
      return html(
        renderCardForm({
          lang,
          path,
          amount: p.amount,
          isSandbox: p.isSandbox,
          values: { number: fields.number, expiry: fields.expiry },
          errors: result.errors,
        }),
        422,
      );
    }
    return seeOther(c, `/simulators/card/${ref}`, lang);
  });

  app.post("/simulators/card/:ref/challenge", async (c) => {
    const ref = c.req.param("ref");
    const lang = langOf(c);
    const p = card.get(ref);
    if (!p) return html(renderNotFound(lang), 404);
    const { code } = await formField(c, "code");
    const result = card.submitChallenge(ref, code);
    if (!result.ok) {
      const path = `/simulators/card/${ref}`;
      return html(
        renderChallenge({
          lang,
          path,
          amount: p.amount,
          isSandbox: p.isSandbox,
          last4: p.last4 ?? "",
          error: result.errors.code,
        }),
        422,
      );
    }
    return seeOther(c, `/simulators/card/${ref}`, lang);
  });

  app.get("/simulators/momo/:ref", (c) => {
    const ref = c.req.param("ref");
    const lang = langOf(c);
    const p = momo.get(ref);
    if (!p) return html(renderNotFound(lang), 404);
    return html(renderPhone({
      lang,
      path: `/simulators/momo/${ref}`,
      operatorCode: p.operatorCode,
      mode: p.mode,
      amount: p.amount,
      pending: p.step === "otp" || p.step === "approval",
    }));
  });

  for (const action of ["approve", "decline"] as const) {
    app.post(`/simulators/momo/:ref/${action}`, (c) => {
      const ref = c.req.param("ref");
      const result = momo[action](ref);
      const fromForm = (c.req.header("content-type") ?? "").startsWith("application/x-www-form-urlencoded");
      if (fromForm && result.ok) return seeOther(c, `/simulators/momo/${ref}`, langOf(c));
      if (result.ok) return c.json({ ok: true, providerRef: ref, action });
      return c.json({ ok: false, code: result.code }, result.code === "NOT_FOUND" ? 404 : 409);
    });
  }

  return app;
}
