// The acquirer's hosted card page as the card simulator shows it: card form, challenge step, processing.
// Server-rendered Preact, no script.
import type { CardErrorCode, CardFieldErrors, CardFields } from "./card_simulator.ts";
import { formatXof } from "./operators.ts";
import { type Lang, LangSwitch, MESSAGES, page, safeReturnUrl } from "./simulator_layout.tsx";

function Field(
  props: {
    id: string;
    label: string;
    value?: string;
    error?: string;
    autocomplete: string;
    placeholder?: string;
    maxlength: number;
  },
) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.id}
        type="text"
        inputmode="numeric"
        autocomplete={props.autocomplete}
        placeholder={props.placeholder}
        maxlength={props.maxlength}
        value={props.value ?? ""}
        required
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={props.error ? `${props.id}-err` : undefined}
      />
      {props.error && <p class="err" id={`${props.id}-err`}>{props.error}</p>}
    </div>
  );
}

export type CardPageInput = {
  lang: Lang;
  path: string;
  amount: string;
  isSandbox: boolean;
};

export function renderCardForm(
  p: CardPageInput & { values?: Partial<CardFields>; errors?: CardFieldErrors },
): string {
  const t = MESSAGES[p.lang];
  const e = p.errors ?? {};
  const hasErrors = Object.keys(e).length > 0;
  return page(
    p.lang,
    t.cardTitle,
    <>
      <LangSwitch lang={p.lang} path={p.path} />
      <div class="card">
        <h1>{t.cardTitle}</h1>
        <p class="note">{t.simulator}</p>
        <p>{t.amount}</p>
        <p class="amount">{formatXof(p.amount, p.lang)} XOF</p>
        {hasErrors && <p class="summary" role="alert">{t.fixErrors}</p>}
        <form method="post" action={`${p.path}?lang=${p.lang}`} novalidate>
          <Field
            id="number"
            label={t.number}
            value={p.values?.number}
            error={e.number && t.errors[e.number]}
            autocomplete="cc-number"
            placeholder="4242 4242 4242 4242"
            maxlength={23}
          />
          <Field
            id="expiry"
            label={t.expiry}
            value={p.values?.expiry}
            error={e.expiry && t.errors[e.expiry]}
            autocomplete="cc-exp"
            placeholder="MM/YY"
            maxlength={7}
          />
          <Field
            id="cvc"
            label={t.cvc}
            error={e.cvc && t.errors[e.cvc]}
            autocomplete="cc-csc"
            placeholder="123"
            maxlength={4}
          />
          <button type="submit">{t.pay} {formatXof(p.amount, p.lang)} XOF</button>
        </form>
        <details open={p.isSandbox}>
          <summary>{t.testCards}</summary>
          <ul>
            <li>
              <code>4242 4242 4242 4242</code> : {t.cardSuccess}
            </li>
            <li>
              <code>4000 0000 0000 0002</code> : {t.cardDeclined}
            </li>
            <li>
              <code>4000 0000 0000 3220</code> : {t.cardChallenge}
            </li>
            <li>
              <code>4000 0000 0000 0119</code> : {t.cardNoAnswer}
            </li>
          </ul>
          <p>{t.otherCards}</p>
        </details>
      </div>
    </>,
  );
}

export function renderChallenge(p: CardPageInput & { last4: string; error?: CardErrorCode }): string {
  const t = MESSAGES[p.lang];
  return page(
    p.lang,
    t.challengeTitle,
    <>
      <LangSwitch lang={p.lang} path={p.path} />
      <div class="card">
        <h1>{t.challengeTitle}</h1>
        <p class="note">{t.simulator}</p>
        <p>
          {t.challengeText} <strong>{p.last4}</strong> ({formatXof(p.amount, p.lang)} XOF).
        </p>
        <form method="post" action={`${p.path}/challenge?lang=${p.lang}`} novalidate>
          <Field
            id="code"
            label={t.challengeCode}
            error={p.error && t.errors[p.error]}
            autocomplete="one-time-code"
            maxlength={8}
          />
          <button type="submit">{t.confirm}</button>
        </form>
        <p>{t.challengeHint}</p>
      </div>
    </>,
  );
}

export function renderProcessing(p: { lang: Lang; returnUrl: string }): string {
  const t = MESSAGES[p.lang];
  const to = safeReturnUrl(p.returnUrl);
  return page(
    p.lang,
    t.processingTitle,
    <div class="card" role="status">
      <h1>{t.processingTitle}</h1>
      <p>{t.processingText}</p>
      {to && <a class="btn" href={to}>{t.continue}</a>}
    </div>,
    { refreshTo: to },
  );
}
