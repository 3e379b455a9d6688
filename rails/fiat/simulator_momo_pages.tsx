// The mobile money simulator's phone page. Server-rendered Preact, no script: approve and decline are
// plain form posts.
import { operatorInstruction } from "./operators.ts";
import type { OperatorCode } from "./provider.ts";
import { type Lang, LangSwitch, MESSAGES, page } from "./simulator_layout.tsx";

/** A simulated phone: the SMS with the code (OTP mode) or the request to approve (approval mode). */
export function renderPhone(p: {
  lang: Lang;
  path: string;
  operatorCode: OperatorCode;
  mode: "otp" | "approval";
  amount: string;
  pending: boolean;
}): string {
  const t = MESSAGES[p.lang];
  const instruction = operatorInstruction(p.operatorCode, p.amount)[p.lang];
  return page(
    p.lang,
    t.phoneTitle,
    <>
      <LangSwitch lang={p.lang} path={p.path} />
      <div class="card">
        <h1>{t.phoneTitle}</h1>
        <p class="note">{t.simulatorMomo}</p>
        <p>
          <strong>{p.operatorCode}</strong>
        </p>
        {!p.pending ? <p>{t.done}</p> : p.mode === "otp"
          ? (
            <>
              <p>{t.sms} :</p>
              <p class="amount">{t.smsText}</p>
              <p>{instruction}</p>
            </>
          )
          : (
            <>
              <p>{instruction}</p>
              <form method="post" action={`${p.path}/approve?lang=${p.lang}`}>
                <button type="submit">{t.approve}</button>
              </form>
              <form method="post" action={`${p.path}/decline?lang=${p.lang}`}>
                <button type="submit" class="secondary">{t.decline}</button>
              </form>
            </>
          )}
      </div>
    </>,
  );
}
