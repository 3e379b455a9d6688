// What the simulators' pages share: the language choice, the French and English texts, the page shell
// with its inline style (no outside asset, readable at 360 px) and the not-found page.
import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import type { CardErrorCode } from "./card_simulator.ts";

export type Lang = "fr" | "en";

/** `?lang=` wins, then the first language of Accept-Language (by q) that we speak, then French. */
export function pickLang(acceptLanguage: string | undefined | null, query: string | undefined | null): Lang {
  if (query === "en" || query === "fr") return query;
  if (!acceptLanguage) return "fr";
  const ranked = acceptLanguage.split(",").map((part, i) => {
    const [tag, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q ? Number(q.slice(2)) : 1;
    return { base: tag.split("-")[0], weight: Number.isFinite(weight) ? weight : 0, i };
  }).filter((l) => l.weight > 0).sort((a, b) => b.weight - a.weight || a.i - b.i);
  const first = ranked.find((l) => l.base === "fr" || l.base === "en");
  return first ? first.base as Lang : "fr";
}

const fr = {
  cardTitle: "Paiement par carte",
  simulator: "Simulateur de test : aucune vraie carte n'est débitée.",
  simulatorMomo: "Simulateur de test : aucun vrai compte mobile money n'est débité.",
  amount: "Montant",
  number: "Numéro de carte",
  expiry: "Date d'expiration (MM/AA)",
  cvc: "Code de sécurité (CVC)",
  pay: "Payer",
  testCards: "Cartes de test",
  cardSuccess: "paiement accepté",
  cardDeclined: "paiement refusé",
  cardChallenge: "demande un code de vérification (123456)",
  cardNoAnswer: "aucune réponse (délai dépassé)",
  otherCards:
    "Tout autre numéro valide est accepté. Date : n'importe quel mois futur ; CVC : 3 ou 4 chiffres.",
  errors: {
    number_required: "Saisissez le numéro de carte.",
    number_length: "Le numéro de carte doit comporter de 12 à 19 chiffres.",
    number_luhn: "Ce numéro de carte n'est pas valide : vérifiez les chiffres.",
    expiry_required: "Saisissez la date d'expiration (MM/AA).",
    expiry_format: "Saisissez la date au format MM/AA, par exemple 08/29.",
    expiry_month: "Le mois doit être compris entre 01 et 12.",
    expiry_past: "Cette carte est expirée.",
    cvc_format: "Le code de sécurité comporte 3 ou 4 chiffres, au dos de la carte.",
    code_required: "Saisissez le code de vérification reçu.",
  } satisfies Record<CardErrorCode, string>,
  fixErrors: "Corrigez les champs signalés.",
  challengeTitle: "Vérification de la carte",
  challengeText: "Votre banque demande un code de vérification pour la carte se terminant par",
  challengeCode: "Code de vérification",
  challengeHint: "Test : le code 123456 est accepté, tout autre code est refusé.",
  confirm: "Valider",
  processingTitle: "Paiement en cours de traitement",
  processingText: "Merci. Vous allez être redirigé vers le marchand.",
  continue: "Retour au marchand",
  notFoundTitle: "Paiement introuvable",
  notFoundText: "Ce paiement simulé n'existe pas ou a été oublié au redémarrage du simulateur.",
  phoneTitle: "Téléphone simulé",
  sms: "SMS reçu",
  smsText: "Votre code de paiement est 123456. Il est valable 5 minutes.",
  approve: "Valider",
  decline: "Refuser",
  done: "Cette demande est terminée.",
  switchTo: "English",
};

type Messages = typeof fr;

const en: Messages = {
  cardTitle: "Card payment",
  simulator: "Test simulator: no real card is charged.",
  simulatorMomo: "Test simulator: no real mobile money account is debited.",
  amount: "Amount",
  number: "Card number",
  expiry: "Expiry date (MM/YY)",
  cvc: "Security code (CVC)",
  pay: "Pay",
  testCards: "Test cards",
  cardSuccess: "payment accepted",
  cardDeclined: "payment declined",
  cardChallenge: "asks for a verification code (123456)",
  cardNoAnswer: "no answer (timeout)",
  otherCards: "Any other valid number is accepted. Expiry: any future month; CVC: 3 or 4 digits.",
  errors: {
    number_required: "Enter the card number.",
    number_length: "The card number must have 12 to 19 digits.",
    number_luhn: "This card number is not valid: check the digits.",
    expiry_required: "Enter the expiry date (MM/YY).",
    expiry_format: "Enter the date as MM/YY, for example 08/29.",
    expiry_month: "The month must be between 01 and 12.",
    expiry_past: "This card has expired.",
    cvc_format: "The security code has 3 or 4 digits, on the back of the card.",
    code_required: "Enter the verification code you received.",
  },
  fixErrors: "Correct the fields marked below.",
  challengeTitle: "Card verification",
  challengeText: "Your bank asks for a verification code for the card ending in",
  challengeCode: "Verification code",
  challengeHint: "Test: code 123456 is accepted, any other code is declined.",
  confirm: "Confirm",
  processingTitle: "Processing your payment",
  processingText: "Thank you. You are being sent back to the merchant.",
  continue: "Back to the merchant",
  notFoundTitle: "Payment not found",
  notFoundText: "This simulated payment does not exist or was forgotten when the simulator restarted.",
  phoneTitle: "Simulated phone",
  sms: "SMS received",
  smsText: "Your payment code is 123456. It is valid for 5 minutes.",
  approve: "Approve",
  decline: "Decline",
  done: "This request is finished.",
  switchTo: "Français",
};

export const MESSAGES: Record<Lang, Messages> = { fr, en };

const CSS =
  `*{box-sizing:border-box}body{font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;
background:#f2f4f7;color:#1a1a1a}main{max-width:26rem;margin:0 auto;padding:1rem}
.card{background:#fff;border:1px solid #d8dde4;border-radius:10px;padding:1rem}
h1{font-size:1.25rem;margin:.2rem 0 .8rem}.amount{font-size:1.5rem;font-weight:700;margin:.2rem 0 1rem}
.note{background:#fff7e0;border:1px solid #f0d48a;border-radius:6px;padding:.5rem .6rem;font-size:.9rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:.8rem 0 .25rem}
input{width:100%;font-size:16px;padding:.65rem .7rem;border:1px solid #9aa4b2;border-radius:6px}
input[aria-invalid=true]{border-color:#b42318;background:#fff5f5}
.err{color:#b42318;font-size:.9rem;margin:.25rem 0 0}.summary{color:#b42318;font-weight:600}
button,.btn{display:block;width:100%;margin-top:1.1rem;font-size:1rem;font-weight:600;padding:.75rem;border:0;
border-radius:6px;background:#1f4f99;color:#fff;text-align:center;text-decoration:none;cursor:pointer}
.secondary{background:#6b7280}details{margin-top:1rem;font-size:.9rem}code{font-size:.95em}
ul{padding-left:1.1rem}.lang{text-align:right;font-size:.9rem;margin:0 0 .5rem}a{color:#1f4f99}`;

export function page(
  lang: Lang,
  title: string,
  body: ComponentChildren,
  opts: { refreshTo?: string } = {},
): string {
  const html = renderToString(<main>{body}</main>);
  const refresh = opts.refreshTo
    ? `<meta http-equiv="refresh" content="2;url=${escapeAttr(opts.refreshTo)}">`
    : "";
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">` +
    `${refresh}<title>${escapeAttr(title)}</title><style>${CSS}</style></head><body>${html}</body></html>`;
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Only http(s) URLs and same-site paths may be followed automatically. */
export function safeReturnUrl(url: string): string | undefined {
  if (url.startsWith("/") && !url.startsWith("//")) return url;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

export function LangSwitch(props: { lang: Lang; path: string }) {
  const other = props.lang === "fr" ? "en" : "fr";
  return (
    <p class="lang">
      <a href={`${props.path}?lang=${other}`} hreflang={other}>{MESSAGES[props.lang].switchTo}</a>
    </p>
  );
}

export function renderNotFound(lang: Lang): string {
  const t = MESSAGES[lang];
  return page(
    lang,
    t.notFoundTitle,
    <div class="card">
      <h1>{t.notFoundTitle}</h1>
      <p>{t.notFoundText}</p>
    </div>,
  );
}
