// The card and mobile money parts of the hosted checkout page: what the customer does while the pay-in
// awaits payment. Mobile money by SMS code gets a form (posted to /checkout/:id/otp, or sent as JSON by
// the inline script), mobile money by approval gets the operator's instruction and a waiting state, and
// a card gets "processing" with a way (back) to the acquirer's secure card page.
import type { CheckoutFailure, CheckoutPhase, CheckoutView } from "../domain/payins/checkout.ts";
import type { Lang, Messages } from "./i18n.ts";

/** What the OTP form route tells the page after a post without script: sent, or why the code was refused. */
export const OTP_NOTICES = [
  "sent",
  "OTP_INVALID",
  "OTP_EXPIRED",
  "OTP_NOT_APPLICABLE",
  "RATE_LIMITED",
] as const;
export type OtpNotice = typeof OTP_NOTICES[number];

/** A part of the page shown only in some phases; the inline script toggles `hidden`. */
export function Section(
  props: { phases: CheckoutPhase[]; current: CheckoutPhase; class?: string; children: unknown },
) {
  return (
    <div
      data-phase={props.phases.join(" ")}
      class={props.class}
      hidden={!props.phases.includes(props.current)}
    >
      {props.children as never}
    </div>
  );
}

function Countdown(props: { t: Messages; text: string }) {
  return (
    <div class="cd">
      <span>{props.t.timeLeft}</span>
      <b data-cd="">{props.text}</b>
    </div>
  );
}

function SimulatedPhone(props: { v: CheckoutView; lang: Lang; t: Messages }) {
  if (!props.v.simulatedPhoneUrl) return null;
  return (
    <a class="sim" id="simphone" href={`${props.v.simulatedPhoneUrl}?lang=${props.lang}`} target="_blank">
      {props.t.simulatedPhone}
    </a>
  );
}

const OTP_ERRORS: Array<[Exclude<OtpNotice, "sent">, keyof Messages]> = [
  ["OTP_INVALID", "otpInvalid"],
  ["OTP_EXPIRED", "otpExpired"],
  ["OTP_NOT_APPLICABLE", "otpNotApplicable"],
  ["RATE_LIMITED", "otpTooMany"],
];

/** The waiting view of a card or mobile money pay-in, and the "code accepted" view of the OTP mode. */
export function FiatWaiting(props: {
  v: CheckoutView;
  lang: Lang;
  t: Messages;
  phase: CheckoutPhase;
  amount: string;
  countdown: string;
  notice: OtpNotice | null;
}) {
  const { v, lang, t, phase } = props;
  // Shown in the waiting and the processing views; only the first carries the id.
  const amountOf = (withId: boolean) => (
    <>
      <p class="lbl">{t.amountToPay}</p>
      <p class="big fig">
        <span id={withId ? "amt" : undefined}>{props.amount}</span> <small>XOF</small>
      </p>
    </>
  );
  const amount = amountOf(true);
  if (v.rail === "card") {
    return (
      <Section phases={["waiting"]} current={phase}>
        {amount}
        <div class="st">
          <p>{t.cardProcessing}</p>
          <p class="hint">{t.cardHint}</p>
        </div>
        {v.cardPageUrl && (
          <>
            <p class="alt">{t.cardNotYet}</p>
            <a class="btn" id="cardpage" href={v.cardPageUrl}>{t.cardContinue}</a>
          </>
        )}
        <Countdown t={t} text={props.countdown} />
      </Section>
    );
  }
  const instruction = v.instruction && <p class="instr">{v.instruction[lang]}</p>;
  if (v.rail === "momo_approval") {
    return (
      <Section phases={["waiting"]} current={phase}>
        {amount}
        {instruction}
        <div class="st">
          <p>{t.approvalWaiting}</p>
          <p class="hint">{t.approvalHint}</p>
        </div>
        <Countdown t={t} text={props.countdown} />
        <SimulatedPhone v={v} lang={lang} t={t} />
      </Section>
    );
  }
  const error = props.notice === "sent" ? null : props.notice;
  return (
    <>
      <Section phases={["waiting"]} current={phase}>
        {amount}
        {instruction}
        <form id="otpf" method="post" action={`/checkout/${v.id}/otp?lang=${lang}`} novalidate>
          <label for="otp">{t.otpLabel}</label>
          <input
            class="otp"
            id="otp"
            name="otp"
            type="text"
            inputmode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9]{4,8}"
            minlength={4}
            maxlength={8}
            required
            aria-describedby="otperr"
          />
          <div id="otperr">
            {OTP_ERRORS.map(([code, key]) => (
              <p class="err" data-err={code} role="alert" hidden={error !== code}>{t[key] as string}</p>
            ))}
          </div>
          <button class="go" type="submit">{t.otpSubmit}</button>
        </form>
        <Countdown t={t} text={props.countdown} />
        <SimulatedPhone v={v} lang={lang} t={t} />
      </Section>
      <Section phases={["processing"]} current={phase}>
        {amountOf(false)}
        <div class="st good">
          <p>{t.processing}</p>
          <p class="hint">{t.processingHint}</p>
        </div>
      </Section>
    </>
  );
}

const REASONS: Array<[CheckoutFailure, keyof Messages]> = [
  ["card_declined", "reasonCardDeclined"],
  ["insufficient_funds", "reasonInsufficientFunds"],
  ["customer_rejected", "reasonCustomerRejected"],
  ["too_many_attempts", "reasonTooManyAttempts"],
  ["other", "reasonOther"],
];

/** Every reason a card or mobile money payment can fail for, the current one shown (the script swaps). */
export function FailureReasons(props: { v: CheckoutView; t: Messages }) {
  const reasons = props.v.rail === "card"
    ? REASONS.filter(([r]) => r === "card_declined" || r === "other")
    : REASONS.filter(([r]) => r !== "card_declined");
  return (
    <>
      {reasons.map(([reason, key]) => (
        <p class="st bad" data-reason={reason} hidden={props.v.failure !== reason}>
          {props.t[key] as string}
        </p>
      ))}
    </>
  );
}
