// The operator's own account: change the password, enrol a new authenticator app (the new secret is shown
// with a form for a code of it), renew the backup codes (shown once).
import type { TotpEnrolment } from "../../domain/operators/self_service.ts";
import { adminWords } from "./i18n.ts";
import { type Frame, Header, shell } from "./views.tsx";

export function renderAccount(
  p: Frame & { error?: string; notice?: string; enrolment?: TotpEnrolment; codes?: string[] },
): string {
  const t = adminWords(p.lang);
  const action = (path: string) => `/admin/account/${path}?lang=${p.lang}`;
  const Csrf = () => <input type="hidden" name="_csrf" value={p.csrf} />;
  return shell(
    p.lang,
    p.nonce,
    `${t.myAccount} · ${t.title}`,
    <>
      <Header lang={p.lang} actor={p.actor} csrf={p.csrf} />
      <main>
        {p.error && <p class="err" role="alert">{p.error}</p>}
        {p.notice && <p class="ok" role="status">{p.notice}</p>}
        {p.codes && (
          <div class="card" id="codes">
            <p>{t.codesShownOnce}</p>
            <p class="mono">{p.codes.join("  ")}</p>
          </div>
        )}
        <div class="card">
          <h1>{t.myAccount}: {p.actor.label}</h1>
          <h2>{t.changePassword}</h2>
          <form method="post" action={action("password")}>
            <Csrf />
            <label for="pw-current">{t.currentPassword}</label>
            <input
              id="pw-current"
              name="currentPassword"
              type="password"
              autocomplete="current-password"
              required
            />
            <label for="pw-new">{t.newPassword}</label>
            <input
              id="pw-new"
              name="newPassword"
              type="password"
              autocomplete="new-password"
              minLength={12}
              required
            />
            <button type="submit">{t.changePassword}</button>
          </form>
        </div>
        <div class="card" id="totp">
          <h2>{t.reenrolTotp}</h2>
          {p.enrolment
            ? (
              <form method="post" action={action("totp/confirm")}>
                <Csrf />
                <input type="hidden" name="sealed" value={p.enrolment.sealed} />
                <p>{t.newSecret}</p>
                <p class="mono" id="new-secret">{p.enrolment.secret}</p>
                <p class="mono muted">{p.enrolment.uri}</p>
                <label for="totp-code">{t.code}</label>
                <input id="totp-code" name="code" autocomplete="one-time-code" inputmode="numeric" required />
                <button type="submit">{t.confirmEnrol}</button>
              </form>
            )
            : (
              <form method="post" action={action("totp")}>
                <Csrf />
                <label for="totp-password">{t.currentPassword}</label>
                <input
                  id="totp-password"
                  name="password"
                  type="password"
                  autocomplete="current-password"
                  required
                />
                <button type="submit">{t.startEnrol}</button>
              </form>
            )}
        </div>
        <div class="card">
          <h2>{t.renewCodes}</h2>
          <form method="post" action={action("backup-codes")}>
            <Csrf />
            <label for="codes-password">{t.currentPassword}</label>
            <input
              id="codes-password"
              name="password"
              type="password"
              autocomplete="current-password"
              required
            />
            <button type="submit">{t.renewCodes}</button>
          </form>
        </div>
      </main>
    </>,
  );
}
