// The subscriber's pages: the hosted renewal page (whom they pay, for which period, the rails to pay on,
// then the pay-in's own checkout) and the signed cancel link's confirm and done pages. Server-rendered,
// no script: each choice is a plain form post, so the pages work on any phone.
import type { RenewalPageView } from "../domain/subscriptions/renewal_payin.ts";
import type { SubscriptionRow } from "../db/subscriptions.ts";
import { type Lang, MESSAGES } from "./i18n.ts";
import { renderDocument } from "./layout.tsx";
import { Payee } from "./payee.tsx";
import { formatDay, SUBSCRIPTION_MESSAGES, type SubscriptionMessages } from "./subscription_i18n.ts";
import type { MerchantBranding } from "../domain/merchants/branding.ts";

const UNIT = { USDT_TRC20: "USDT", XOF: "FCFA" } as const;

const EXTRA_CSS =
  `.rails{display:grid;gap:10px;margin:12px 0 0}.rails button{width:100%;min-height:52px;text-align:left;
font-size:17px}.muted{color:#47525e;font-size:15px;margin:4px 0}.foot{margin:16px 0 0;font-size:15px}
.foot a{color:#0b57a4;display:inline-block;padding:10px 0}input.ph{display:block;width:100%;min-height:48px;padding:8px 12px;
border:2px solid #8795a3;border-radius:10px;font:inherit;margin:0 0 4px}form.inline{margin:0}`;

/** The paylink's brand colour on the main buttons, when it is a plain hex colour. */
function brandCss(color: string | null): string {
  if (!color || !/^#[0-9a-fA-F]{6}$/.test(color)) return "";
  return `.rails button,button.go{border-color:${color};color:${color}}button.go{background:${color};color:#fff}`;
}

function Shell(props: {
  lang: Lang;
  nonce: string;
  title: string;
  t: SubscriptionMessages;
  sandbox?: boolean;
  brandColor?: string | null;
  /** Query kept by the language switch (the cancel page's token). */
  keep?: string;
  children: unknown;
}) {
  const other: Lang = props.lang === "fr" ? "en" : "fr";
  return renderDocument({
    lang: props.lang,
    title: props.title,
    nonce: props.nonce,
    head: (
      <style
        nonce={props.nonce}
        dangerouslySetInnerHTML={{ __html: EXTRA_CSS + brandCss(props.brandColor ?? null) }}
      />
    ),
    children: (
      <main>
        <div class="bar">
          <span>{props.title}</span>
          <a href={`?${props.keep ? `${props.keep}&` : ""}lang=${other}`} hreflang={other} lang={other}>
            {props.t.switchTo}
          </a>
        </div>
        {props.sandbox && <p class="sbx">{props.t.sandbox}</p>}
        <div class="card">{props.children as never}</div>
      </main>
    ),
  });
}

function Outcome(props: { good: boolean; title: string; text: string }) {
  return (
    <div class="done">
      <span class={props.good ? "mark" : "mark bad"} aria-hidden="true">{props.good ? "✓" : "!"}</span>
      <h1>{props.title}</h1>
      <p>{props.text}</p>
    </div>
  );
}

export function renderRenewalPage(
  v: RenewalPageView,
  lang: Lang,
  nonce: string,
  error: string | null = null,
): string {
  const t = SUBSCRIPTION_MESSAGES[lang];
  const r = v.renewal;
  const s = v.subscription;
  const closed = s.status === "CANCELLED" || r.status === "CANCELLED";
  const unavailable = r.status === "PENDING" && !closed && !v.merchantAvailable;
  const payable = r.status === "PENDING" && !closed && v.merchantAvailable;
  const every = s.interval_count === 1 ? t.perPeriod[s.billing_interval] : null;
  return Shell({
    lang,
    nonce,
    t,
    title: t.renewalTitle,
    sandbox: r.is_sandbox,
    brandColor: v.brandColor,
    children: (
      <>
        <Payee merchant={v.merchant} reference={s.description} t={MESSAGES[lang]} />
        {r.status === "PAID" && <Outcome good title={t.paidTitle} text={t.paidText} />}
        {r.status === "FAILED" && <Outcome good={false} title={t.failedTitle} text={t.failedText} />}
        {closed && r.status !== "PAID" && <Outcome good={false} title={t.closedTitle} text={t.closedText} />}
        {unavailable && <Outcome good={false} title={t.unavailableTitle} text={t.unavailableText} />}
        {payable && (
          <>
            <h1>{t.renewalTitle}</h1>
            <p class="big" data-amount="">
              {v.amount} <small>{UNIT[r.currency]}{every ? ` ${every}` : ""}</small>
            </p>
            <p class="muted">{t.period(formatDay(r.period_start, lang), formatDay(r.period_end, lang))}</p>
            <p class="muted">{t.payBefore(formatDay(r.grace_until, lang))}</p>
            {error && <p class="err" role="alert">{t.error} {error}</p>}
            {v.runningPayinId && (
              <a class="btn" href={`/checkout/${v.runningPayinId}?lang=${lang}`}>{t.continue}</a>
            )}
            <form method="post" action={`/subscriptions/renewals/${r.id}/pay?lang=${lang}`}>
              <p class="lbl">{t.choose}</p>
              {v.rails.includes("MOBILE_MONEY") && (
                <>
                  <label for="phone" class="muted">{t.phone}</label>
                  <input
                    id="phone"
                    class="ph"
                    name="customerPhone"
                    type="tel"
                    inputmode="tel"
                    autocomplete="tel"
                    value={s.customer_phone ?? ""}
                  />
                </>
              )}
              <div class="rails">
                {v.rails.map((rail) => (
                  <button type="submit" name="paymentMethod" value={rail} data-rail={rail}>
                    {t.rails[rail]}
                  </button>
                ))}
              </div>
            </form>
          </>
        )}
        {!closed && (
          <p class="foot">
            <a href={v.cancelUrl.replace(/^https?:\/\/[^/]+/, "") + `&lang=${lang}`} data-cancel="">
              {t.cancelLink}
            </a>
          </p>
        )}
      </>
    ),
  });
}

export function renderCancelPage(
  s: SubscriptionRow,
  merchant: MerchantBranding,
  token: string,
  lang: Lang,
  nonce: string,
): string {
  const t = SUBSCRIPTION_MESSAGES[lang];
  const done = s.status === "CANCELLED";
  return Shell({
    lang,
    nonce,
    t,
    title: done ? t.cancelledTitle : t.cancelTitle,
    sandbox: s.is_sandbox,
    keep: `token=${encodeURIComponent(token)}`,
    children: (
      <>
        <Payee merchant={merchant} reference={s.description} t={MESSAGES[lang]} />
        {done ? <Outcome good title={t.cancelledTitle} text={t.cancelledText} /> : (
          <>
            <h1>{t.cancelTitle}</h1>
            <p>{t.cancelText}</p>
            <form method="post" class="inline" action={`/subscriptions/${s.id}/cancel?lang=${lang}`}>
              <input type="hidden" name="token" value={token} />
              <button type="submit" class="go" data-confirm-cancel="">{t.cancelConfirm}</button>
            </form>
          </>
        )}
      </>
    ),
  });
}

export function renderSubscriptionNotFound(lang: Lang, nonce: string): string {
  const t = SUBSCRIPTION_MESSAGES[lang];
  return Shell({
    lang,
    nonce,
    t,
    title: t.notFoundTitle,
    children: <Outcome good={false} title={t.notFoundTitle} text={t.notFoundText} />,
  });
}
