// French and English for the customer pages. French is the default: the customers are in Burkina Faso.
export type Lang = "fr" | "en";

/**
 * `?lang=` wins, then the first language of Accept-Language (by q) that we speak, then French.
 * "en-US,en;q=0.9" is English; "de, en;q=0.5" is English too; "de" alone is French.
 */
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
  title: "Paiement",
  sandbox: "Mode test : aucun vrai fonds",
  sendExactly: "Envoyez exactement",
  network: "Réseau : USDT TRC20 (TRON). N'utilisez aucun autre réseau.",
  toAddress: "À cette adresse",
  copy: "Copier",
  copyAmount: "Copier le montant",
  copyAddress: "Copier l'adresse",
  copied: "Copié ✓",
  copyFailed: "Sélectionnez le texte et copiez-le",
  qrAlt: "QR code de l'adresse de paiement",
  timeLeft: "Temps restant",
  waiting: "En attente du paiement…",
  waitingHint: "Cette page se met à jour toute seule. Gardez-la ouverte.",
  confirming: "Paiement reçu, confirmation :",
  confirmingHint: "Encore quelques secondes : le réseau confirme la transaction.",
  received: "Reçu :",
  paidTitle: "Paiement reçu",
  paidText: "Merci ! Votre paiement est confirmé.",
  backToShop: "Retour au marchand",
  redirecting: "Redirection automatique dans quelques secondes…",
  expiredTitle: "Délai dépassé",
  expiredText: "Le délai de paiement est écoulé. N'envoyez plus de fonds à cette adresse.",
  underpaidTitle: "Montant insuffisant",
  underpaidText: "Vous avez envoyé moins que le montant demandé. Contactez le marchand pour la suite.",
  overpaidTitle: "Montant supérieur",
  overpaidText:
    "Vous avez envoyé plus que le montant demandé. Le marchand a reçu la totalité ; contactez-le pour le surplus.",
  failedTitle: "Paiement échoué",
  failedText: "Le paiement n'a pas abouti. Contactez le marchand si vous avez envoyé des fonds.",
  returnLink: "Retour au marchand",
  unavailableTitle: "Paiement indisponible",
  unavailableText:
    "Ce marchand n'accepte pas de paiements pour le moment : n'envoyez rien pour ce paiement. Un paiement déjà envoyé n'est pas perdu.",
  notFoundTitle: "Paiement introuvable",
  notFoundText: "Ce lien de paiement n'existe pas ou n'est plus valide. Vérifiez le lien reçu du marchand.",
  noScript: "Cette page se recharge toutes les 15 secondes.",
  switchTo: "English",
  reference: "Référence :",
  amountToPay: "Montant à payer",
  otpLabel: "Code reçu par SMS",
  otpSubmit: "Valider le code",
  otpInvalid: "Code incorrect. Vérifiez le SMS et réessayez.",
  otpExpired: "Ce code a expiré. Recommencez le paiement depuis le site du marchand.",
  otpNotApplicable: "Ce paiement n'attend plus de code : il est déjà validé ou terminé.",
  otpTooMany: "Trop d'essais. Attendez une minute, puis saisissez à nouveau le code reçu par SMS.",
  processing: "Code accepté. En attente de la confirmation de l'opérateur…",
  processingHint: "Cela prend quelques secondes. Cette page se met à jour toute seule.",
  approvalWaiting: "En attente de votre validation sur le téléphone…",
  approvalHint:
    "Ouvrez la demande de votre opérateur et validez avec votre code secret. Cette page se met à jour toute seule.",
  cardProcessing: "Paiement par carte en cours…",
  cardHint:
    "Si vous venez de saisir votre carte, la réponse de la banque arrive dans quelques secondes : cette page se met à jour toute seule.",
  cardNotYet: "Pas encore payé ?",
  cardContinue: "Continuer vers la page de carte sécurisée",
  simulatedPhone: "Test : ouvrir le téléphone simulé",
  fiatExpiredText: "Le délai de paiement est écoulé. Recommencez depuis le site du marchand.",
  fiatFailedText: "Le paiement n'a pas abouti. Vous pouvez réessayer depuis le site du marchand.",
  reasonCardDeclined: "Carte refusée par la banque.",
  reasonInsufficientFunds: "Solde insuffisant sur le compte mobile money.",
  reasonCustomerRejected: "La demande a été refusée sur le téléphone.",
  reasonTooManyAttempts: "Trop de codes incorrects.",
  reasonOther: "La banque ou l'opérateur n'a pas validé le paiement.",
  payingTo: "Vous payez",
  orderRef: "Pour :",
  paymentId: "N° de paiement :",
  downloads: "Vos téléchargements :",
};

export type Messages = typeof fr;

const en: Messages = {
  title: "Payment",
  sandbox: "Test mode: no real funds",
  sendExactly: "Send exactly",
  network: "Network: USDT TRC20 (TRON). Do not use any other network.",
  toAddress: "To this address",
  copy: "Copy",
  copyAmount: "Copy amount",
  copyAddress: "Copy address",
  copied: "Copied ✓",
  copyFailed: "Select the text and copy it",
  qrAlt: "QR code of the payment address",
  timeLeft: "Time left",
  waiting: "Waiting for payment…",
  waitingHint: "This page updates by itself. Keep it open.",
  confirming: "Payment seen, confirming:",
  confirmingHint: "A few more seconds: the network is confirming the transaction.",
  received: "Received:",
  paidTitle: "Payment received",
  paidText: "Thank you! Your payment is confirmed.",
  backToShop: "Back to the merchant",
  redirecting: "Redirecting automatically in a few seconds…",
  expiredTitle: "Time is up",
  expiredText: "The time to pay has run out. Do not send funds to this address any more.",
  underpaidTitle: "Amount too low",
  underpaidText: "You sent less than the amount requested. Contact the merchant about what happens next.",
  overpaidTitle: "Amount too high",
  overpaidText:
    "You sent more than the amount requested. The merchant received all of it; contact them about the surplus.",
  failedTitle: "Payment failed",
  failedText: "The payment did not go through. Contact the merchant if you sent funds.",
  returnLink: "Back to the merchant",
  unavailableTitle: "Payment unavailable",
  unavailableText:
    "This merchant is not taking payments right now: do not send anything for this payment. A payment already sent is not lost.",
  notFoundTitle: "Payment not found",
  notFoundText:
    "This payment link does not exist or is no longer valid. Check the link the merchant gave you.",
  noScript: "This page reloads every 15 seconds.",
  switchTo: "Français",
  reference: "Reference:",
  amountToPay: "Amount to pay",
  otpLabel: "Code received by SMS",
  otpSubmit: "Confirm the code",
  otpInvalid: "Wrong code. Check the SMS and try again.",
  otpExpired: "This code has expired. Start the payment again from the merchant's site.",
  otpNotApplicable: "This payment no longer takes a code: it is already confirmed or finished.",
  otpTooMany: "Too many attempts. Wait a minute, then enter the code from the SMS again.",
  processing: "Code accepted. Waiting for the operator's confirmation…",
  processingHint: "This takes a few seconds. This page updates by itself.",
  approvalWaiting: "Waiting for your approval on the phone…",
  approvalHint: "Open your operator's request and approve it with your PIN. This page updates by itself.",
  cardProcessing: "Card payment in progress…",
  cardHint:
    "If you have just entered your card, the bank's answer arrives in a few seconds: this page updates by itself.",
  cardNotYet: "Not paid yet?",
  cardContinue: "Continue to the secure card page",
  simulatedPhone: "Test: open the simulated phone",
  fiatExpiredText: "The time to pay has run out. Start again from the merchant's site.",
  fiatFailedText: "The payment did not go through. You can try again from the merchant's site.",
  reasonCardDeclined: "Card declined by the bank.",
  reasonInsufficientFunds: "Insufficient balance on the mobile money account.",
  reasonCustomerRejected: "The request was declined on the phone.",
  reasonTooManyAttempts: "Too many wrong codes.",
  reasonOther: "The bank or the operator did not accept the payment.",
  payingTo: "You are paying",
  orderRef: "For:",
  paymentId: "Payment no.:",
  downloads: "Your downloads:",
};

export const MESSAGES: Record<Lang, Messages> = { fr, en };
