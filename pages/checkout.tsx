// The hosted checkout page of a pay-in, rendered on the server. Every view (waiting, confirming, paid,
// expired, under/overpaid, failed) is in the HTML, translated; the inline script only shows the one that
// matches the polled status. Without JavaScript the page reloads itself until the pay-in is final (but
// not while the customer types an SMS code). Card and mobile money views are in checkout_fiat.tsx.
import {
  type CheckoutPhase,
  type CheckoutView,
  displayAmount,
  displayAmountIn,
} from "../domain/payins/checkout.ts";
import { FailureReasons, FiatWaiting, type OtpNotice, Section } from "./checkout_fiat.tsx";
import { CHECKOUT_SCRIPT } from "./checkout_script.ts";
import { type Lang, MESSAGES, type Messages } from "./i18n.ts";
import { renderDocument } from "./layout.tsx";
import { Payee } from "./payee.tsx";
import type { DigitalDelivery } from "../domain/shop/delivery.ts";

/** Reload interval of the no-script fallback, in seconds. */
export const NOSCRIPT_REFRESH_SECONDS = 15;
/** Seconds before the success view sends the customer back to the merchant (no-script fallback). */
const NOSCRIPT_REDIRECT_SECONDS = 10;

const UNIT: Record<CheckoutView["currency"], string> = { USDT_TRC20: "USDT", XOF: "XOF" };

/** mm:ss, or h:mm:ss past an hour; the script formats the same way. */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const pad = (n: number) => String(n).padStart(2, "0");
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h ? `${h}:${pad(m)}` : pad(m)}:${pad(s % 60)}`;
}

function LangSwitch(props: { lang: Lang; t: Messages }) {
  const other: Lang = props.lang === "fr" ? "en" : "fr";
  return (
    <a href={`?lang=${other}`} hreflang={other} lang={other}>
      {props.t.switchTo}
    </a>
  );
}

function Outcome(props: {
  phase: CheckoutPhase;
  current: CheckoutPhase;
  good: boolean;
  title: string;
  text: string;
  link: string | null;
  linkText: string;
  children?: unknown;
}) {
  return (
    <Section phases={[props.phase]} current={props.current} class="done">
      <span class={props.good ? "mark" : "mark bad"} aria-hidden="true">{props.good ? "✓" : "!"}</span>
      <h1>{props.title}</h1>
      <p>{props.text}</p>
      {props.children as never}
      {props.link && <a class="btn" href={props.link}>{props.linkText}</a>}
    </Section>
  );
}

/**
 * The phase the page opens in: a mobile money pay-in whose SMS code was just accepted shows "processing"
 * (the pay-in stays AWAITING_PAYMENT until the operator's callback).
 */
export function pagePhase(v: CheckoutView, notice: OtpNotice | null): CheckoutPhase {
  return v.phase === "waiting" && v.rail === "momo_otp" && notice === "sent" ? "processing" : v.phase;
}

function CheckoutBody(
  props: { v: CheckoutView; lang: Lang; notice: OtpNotice | null; delivery: DigitalDelivery | null },
) {
  const { v, lang } = props;
  const t = MESSAGES[lang];
  const unit = UNIT[v.currency];
  const fiat = v.rail !== "usdt";
  const amount = displayAmountIn(v.amountExpected, v.currency, lang);
  const received = displayAmount(v.amountReceived);
  const phase = pagePhase(v, props.notice);
  return (
    <main
      id="co"
      data-cur={v.currency}
      data-status={`/checkout/${v.id}/status`}
      data-left={String(v.secondsLeft)}
      data-at={phase}
      data-final={v.final ? "1" : "0"}
      data-copied={t.copied}
      data-failed={t.copyFailed}
      data-reload={props.delivery?.waiting ? "1" : undefined}
    >
      <div class="bar">
        <span>{t.title}</span>
        <LangSwitch lang={lang} t={t} />
      </div>
      <div class="card">
        {v.isSandbox && <p class="sbx">{t.sandbox}</p>}
        <Payee merchant={v.merchant} reference={v.reference} t={t} />
        {fiat && (
          <FiatWaiting
            v={v}
            lang={lang}
            t={t}
            phase={phase}
            amount={amount}
            countdown={formatCountdown(v.secondsLeft)}
            notice={props.notice}
          />
        )}
        {!fiat && (
          <Section phases={["waiting"]} current={phase}>
            <p class="lbl">{t.sendExactly}</p>
            <div class="amt">
              <span class="big">
                <span id="amt">{amount}</span> <small>{unit}</small>
              </span>
              <button type="button" data-copy="amt" hidden aria-label={t.copyAmount}>{t.copy}</button>
            </div>
            {v.currency === "USDT_TRC20" && <p class="net">{t.network}</p>}
            {v.address && (
              <>
                <p class="lbl">{t.toAddress}</p>
                <p class="adr" id="adr">{v.address}</p>
                <button type="button" class="wide" data-copy="adr" hidden>{t.copyAddress}</button>
              </>
            )}
            {v.qrPng && <img class="qr" src={v.qrPng} alt={t.qrAlt} width={220} height={220} />}
            <div class="cd">
              <span>{t.timeLeft}</span>
              <b data-cd="">{formatCountdown(v.secondsLeft)}</b>
            </div>
            <div class="st">
              <p>{t.waiting}</p>
              <p class="hint">{t.waitingHint}</p>
            </div>
          </Section>
        )}
        <Section phases={["confirming"]} current={phase} class="st good">
          <p>
            {t.confirming} <b data-conf="">{v.confirmations}</b> /{" "}
            <b data-req="">{v.requiredConfirmations}</b>
          </p>
          <progress data-conf="" max={v.requiredConfirmations} value={v.confirmations} />
          <p class="hint">
            {t.received} <b data-recv="">{received}</b> {unit}
          </p>
          <p class="hint">{t.confirmingHint}</p>
        </Section>
        <Outcome
          phase="paid"
          current={phase}
          good
          title={t.paidTitle}
          text={t.paidText}
          link={null}
          linkText=""
        >
          <p class="big">
            {fiat ? amount : <span data-recv="">{received}</span>} <small>{unit}</small>
          </p>
          {props.delivery && props.delivery.links.length > 0 && (
            <div class="st good" data-downloads="">
              <p>{t.downloads}</p>
              {props.delivery.links.map((l) => (
                <a key={l.url} class="btn" href={l.url} rel="noopener noreferrer" target="_blank">{l.name}</a>
              ))}
            </div>
          )}
          {v.successUrl && (
            <>
              <a class="btn" id="succ" href={v.successUrl}>{t.backToShop}</a>
              <p class="small">{t.redirecting}</p>
            </>
          )}
        </Outcome>
        <Outcome
          phase="expired"
          current={phase}
          good={false}
          title={t.expiredTitle}
          text={fiat ? t.fiatExpiredText : t.expiredText}
          link={v.cancelUrl}
          linkText={t.returnLink}
        />
        <Outcome
          phase="underpaid"
          current={phase}
          good={false}
          title={t.underpaidTitle}
          text={t.underpaidText}
          link={v.cancelUrl ?? v.successUrl}
          linkText={t.returnLink}
        >
          <p>
            {t.received} <b data-recv="">{received}</b> / {amount} {unit}
          </p>
        </Outcome>
        <Outcome
          phase="overpaid"
          current={phase}
          good
          title={t.overpaidTitle}
          text={t.overpaidText}
          link={v.successUrl ?? v.cancelUrl}
          linkText={t.returnLink}
        >
          <p>
            {t.received} <b data-recv="">{received}</b> / {amount} {unit}
          </p>
        </Outcome>
        <Outcome
          phase="failed"
          current={phase}
          good={false}
          title={t.failedTitle}
          text={fiat ? t.fiatFailedText : t.failedText}
          link={v.cancelUrl}
          linkText={t.returnLink}
        >
          {fiat && <FailureReasons v={v} t={t} />}
        </Outcome>
      </div>
      {!(v.rail === "momo_otp" && phase === "waiting") && (
        <noscript>
          <p class="small">{t.noScript}</p>
        </noscript>
      )}
      <p class="small">{t.paymentId} {v.id}</p>
    </main>
  );
}

export function renderCheckoutPage(
  v: CheckoutView,
  lang: Lang,
  nonce: string,
  notice: OtpNotice | null = null,
  delivery: DigitalDelivery | null = null,
): string {
  const typingCode = v.rail === "momo_otp" && pagePhase(v, notice) === "waiting";
  const refresh = v.final
    ? (v.phase === "paid" && v.successUrl ? `${NOSCRIPT_REDIRECT_SECONDS};url=${v.successUrl}` : null)
    : typingCode
    ? null
    : String(NOSCRIPT_REFRESH_SECONDS);
  return renderDocument({
    lang,
    nonce,
    title: `${v.merchant.displayName} · ${displayAmountIn(v.amountExpected, v.currency, lang)} ${
      UNIT[v.currency]
    }`,
    head: refresh && (
      <noscript>
        <meta http-equiv="refresh" content={refresh} />
      </noscript>
    ),
    script: CHECKOUT_SCRIPT,
    children: <CheckoutBody v={v} lang={lang} notice={notice} delivery={delivery} />,
  });
}

/**
 * A pay-in still waiting for money whose merchant is suspended or closed: nothing to pay with (no address,
 * no QR code, no card or SMS step), only whom it was for and that nothing should be sent.
 */
export function renderCheckoutUnavailable(v: CheckoutView, lang: Lang, nonce: string): string {
  const t = MESSAGES[lang];
  return renderDocument({
    lang,
    nonce,
    title: t.unavailableTitle,
    children: (
      <main>
        <div class="bar">
          <span>{t.title}</span>
          <LangSwitch lang={lang} t={t} />
        </div>
        <div class="card">
          <Payee merchant={v.merchant} reference={v.reference} t={t} />
          <div class="done" data-unavailable="">
            <span class="mark bad" aria-hidden="true">!</span>
            <h1>{t.unavailableTitle}</h1>
            <p>{t.unavailableText}</p>
          </div>
        </div>
        <p class="small">{t.paymentId} {v.id}</p>
      </main>
    ),
  });
}

export function renderCheckoutNotFound(lang: Lang, nonce: string): string {
  const t = MESSAGES[lang];
  return renderDocument({
    lang,
    nonce,
    title: t.notFoundTitle,
    children: (
      <main>
        <div class="bar">
          <span>{t.title}</span>
          <LangSwitch lang={lang} t={t} />
        </div>
        <div class="card done">
          <span class="mark bad" aria-hidden="true">?</span>
          <h1>{t.notFoundTitle}</h1>
          <p>{t.notFoundText}</p>
        </div>
      </main>
    ),
  });
}
