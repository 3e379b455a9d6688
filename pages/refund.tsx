// The hosted USDT refund page: the customer sees the amount coming back and gives a TRON address once (a
// plain form post: no script, no outside assets). French by default, English with ?lang=en.
import type { RefundPageView } from "../domain/refunds/usdt.ts";
import type { Lang } from "./i18n.ts";
import { renderDocument } from "./layout.tsx";

const fr = {
  title: "Remboursement",
  from: (name: string) => `Remboursement de ${name}`,
  amount: "Montant remboursé",
  network: "En USDT sur le réseau TRON (TRC20)",
  address: "Votre adresse TRON (commence par T)",
  hint: "Vérifiez-la bien : un envoi sur une mauvaise adresse ne peut pas être annulé.",
  submit: "Recevoir le remboursement",
  sending: "Votre remboursement est en route vers :",
  done: "Remboursement envoyé à :",
  tx: "Transaction :",
  waiting: "Ce remboursement n'est pas encore validé. Réessayez plus tard.",
  closed: "Ce remboursement est clos ; rien n'est à faire ici.",
  failed: "L'envoi a échoué ; le marchand a été prévenu et vous recontactera.",
  notFoundTitle: "Lien introuvable",
  notFound: "Ce lien n'existe pas ou n'est plus valide. Vérifiez le message reçu du marchand.",
  expiredTitle: "Lien expiré",
  expired: "Ce lien a expiré. Demandez-en un nouveau au marchand.",
  errors: {
    INVALID_ADDRESS: "Cette adresse n'est pas une adresse TRON à vous (34 caractères commençant par T).",
    CONFLICT: "Une autre adresse a déjà été donnée pour ce remboursement.",
    INVALID_TRANSACTION_STATUS: "Ce remboursement ne prend plus d'adresse.",
  } as Record<string, string>,
  other: "Une erreur est survenue. Réessayez.",
};
type Messages = typeof fr;
const en: Messages = {
  title: "Refund",
  from: (name: string) => `Refund from ${name}`,
  amount: "Amount refunded",
  network: "In USDT on the TRON network (TRC20)",
  address: "Your TRON address (starts with T)",
  hint: "Check it carefully: money sent to a wrong address cannot be recalled.",
  submit: "Receive the refund",
  sending: "Your refund is on its way to:",
  done: "Refund sent to:",
  tx: "Transaction:",
  waiting: "This refund is not approved yet. Please try again later.",
  closed: "This refund is closed; there is nothing to do here.",
  failed: "Sending failed; the merchant has been told and will contact you.",
  notFoundTitle: "Link not found",
  notFound: "This link does not exist or is no longer valid. Check the merchant's message.",
  expiredTitle: "Link expired",
  expired: "This link has expired. Ask the merchant for a new one.",
  errors: {
    INVALID_ADDRESS: "This is not a TRON address of yours (34 characters starting with T).",
    CONFLICT: "Another address was already given for this refund.",
    INVALID_TRANSACTION_STATUS: "This refund no longer takes an address.",
  },
  other: "Something went wrong. Please try again.",
};
export const REFUND_MESSAGES: Record<Lang, Messages> = { fr, en };

const PAGE_CSS = `form{margin:14px 0 0}.card .big{margin:0}label{display:block;font-weight:600;margin:0 0 6px}
input{width:100%;min-height:44px;font:16px ui-monospace,Menlo,Consolas,monospace;padding:8px 10px;border:1px solid #8a96a3;border-radius:8px}
.muted{color:#47525e;font-size:14px;margin:6px 0 12px}.err{color:#8a1c13;background:#fdecea;border-radius:8px;padding:8px 10px}
button.wide{margin-top:12px}`;

function Frame(props: { lang: Lang; nonce: string; title: string; children: unknown }) {
  return renderDocument({
    lang: props.lang,
    title: props.title,
    nonce: props.nonce,
    head: <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: PAGE_CSS }} />,
    children: (
      <main>
        <div class="card">{props.children as never}</div>
      </main>
    ),
  });
}

export function renderRefundPage(props: {
  lang: Lang;
  nonce: string;
  view: RefundPageView;
  action: string;
  error?: string;
  address?: string;
}): string {
  const t = REFUND_MESSAGES[props.lang];
  const v = props.view;
  const unit = v.currency === "USDT_TRC20" ? "USDT" : v.currency;
  let body;
  if (v.address) {
    body = (
      <div class={v.status === "FAILED" ? "st bad" : v.status === "COMPLETED" ? "st good" : "st"}>
        <p>{v.status === "FAILED" ? t.failed : v.status === "COMPLETED" ? t.done : t.sending}</p>
        <p class="adr" data-address="">{v.address}</p>
        {v.txHash && (
          <p class="hint">
            {t.tx} <span class="adr">{v.txHash}</span>
          </p>
        )}
      </div>
    );
  } else if (v.status === "APPROVED") {
    body = (
      <form method="post" action={props.action}>
        {props.error && <p class="err" role="alert">{props.error}</p>}
        <label for="address">{t.address}</label>
        <input
          id="address"
          name="address"
          required
          minLength={34}
          maxLength={34}
          autocomplete="off"
          autocapitalize="off"
          spellcheck={false}
          value={props.address ?? ""}
        />
        <p class="muted">{t.hint}</p>
        <button class="wide ok" type="submit">{t.submit}</button>
      </form>
    );
  } else {
    body = <p class="st">{v.status === "PENDING_APPROVAL" ? t.waiting : t.closed}</p>;
  }
  return Frame({
    lang: props.lang,
    nonce: props.nonce,
    title: t.title,
    children: (
      <>
        <h1>{v.merchantName ? t.from(v.merchantName) : t.title}</h1>
        <p class="lbl">{t.amount}</p>
        <p class="big" data-amount="">
          {v.amount} <small>{unit}</small>
        </p>
        <p class="muted">{t.network}</p>
        {body}
      </>
    ),
  });
}

export function renderRefundLinkProblem(props: { lang: Lang; nonce: string; expired: boolean }): string {
  const t = REFUND_MESSAGES[props.lang];
  return Frame({
    lang: props.lang,
    nonce: props.nonce,
    title: props.expired ? t.expiredTitle : t.notFoundTitle,
    children: (
      <>
        <h1>{props.expired ? t.expiredTitle : t.notFoundTitle}</h1>
        <p>{props.expired ? t.expired : t.notFound}</p>
      </>
    ),
  });
}
