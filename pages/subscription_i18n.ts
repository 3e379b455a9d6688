// French and English of the subscription pages (renewal, cancel link). French is the default.
import type { Lang } from "./i18n.ts";

const fr = {
  renewalTitle: "Renouvellement de l'abonnement",
  period: (from: string, to: string) => `Période du ${from} au ${to}`,
  payBefore: (d: string) => `À payer avant le ${d}.`,
  choose: "Choisissez comment payer",
  rails: { USDT_TRC20: "USDT (TRON)", CARD: "Carte bancaire", MOBILE_MONEY: "Mobile money" },
  phone: "Numéro mobile money (ex. +22670123456)",
  continue: "Reprendre le paiement en cours",
  paidTitle: "Renouvellement payé",
  paidText: "Merci ! Votre abonnement continue.",
  failedTitle: "Renouvellement échoué",
  failedText:
    "Ce renouvellement n'a pas été payé à temps. Contactez le marchand pour reprendre votre abonnement.",
  closedTitle: "Abonnement résilié",
  closedText: "Cet abonnement est résilié : plus rien ne vous sera demandé.",
  unavailableTitle: "Paiement indisponible",
  unavailableText: "Ce marchand n'accepte pas de paiements pour le moment. Rien ne peut être payé ici.",
  cancelLink: "Résilier l'abonnement",
  cancelTitle: "Résilier votre abonnement ?",
  cancelText: "Plus aucun renouvellement ne vous sera demandé. La période déjà payée n'est pas remboursée.",
  cancelConfirm: "Oui, résilier",
  cancelledTitle: "Abonnement résilié",
  cancelledText: "C'est fait : plus aucun paiement ne vous sera demandé pour cet abonnement.",
  notFoundTitle: "Lien introuvable",
  notFoundText: "Ce lien n'existe pas ou n'est plus valide. Vérifiez le message reçu du marchand.",
  error: "Le paiement n'a pas pu démarrer :",
  sandbox: "Mode test : aucun vrai fonds",
  switchTo: "English",
  payingTo: "Vous payez",
  orderRef: "Pour :",
  perPeriod: { WEEKLY: "par semaine", MONTHLY: "par mois", YEARLY: "par an" },
};

export type SubscriptionMessages = typeof fr;

const en: SubscriptionMessages = {
  renewalTitle: "Subscription renewal",
  period: (from, to) => `Period from ${from} to ${to}`,
  payBefore: (d) => `Pay before ${d}.`,
  choose: "Choose how to pay",
  rails: { USDT_TRC20: "USDT (TRON)", CARD: "Bank card", MOBILE_MONEY: "Mobile money" },
  phone: "Mobile money number (e.g. +22670123456)",
  continue: "Continue the payment in progress",
  paidTitle: "Renewal paid",
  paidText: "Thank you! Your subscription goes on.",
  failedTitle: "Renewal failed",
  failedText: "This renewal was not paid in time. Contact the merchant to resume your subscription.",
  closedTitle: "Subscription cancelled",
  closedText: "This subscription is cancelled: nothing more will be asked of you.",
  unavailableTitle: "Payment unavailable",
  unavailableText: "This merchant is not taking payments right now. Nothing can be paid here.",
  cancelLink: "Cancel the subscription",
  cancelTitle: "Cancel your subscription?",
  cancelText: "No further renewal will be asked of you. The period already paid is not refunded.",
  cancelConfirm: "Yes, cancel",
  cancelledTitle: "Subscription cancelled",
  cancelledText: "Done: no further payment will be asked of you for this subscription.",
  notFoundTitle: "Link not found",
  notFoundText: "This link does not exist or is no longer valid. Check the message from the merchant.",
  error: "The payment could not start:",
  sandbox: "Test mode: no real funds",
  switchTo: "Français",
  payingTo: "You are paying",
  orderRef: "For:",
  perPeriod: { WEEKLY: "per week", MONTHLY: "per month", YEARLY: "per year" },
};

export const SUBSCRIPTION_MESSAGES: Record<Lang, SubscriptionMessages> = { fr, en };

export function formatDay(d: Date, lang: Lang): string {
  return d.toLocaleDateString(lang === "fr" ? "fr-FR" : "en-GB", {
    timeZone: "UTC",
    day: "numeric",
    month: "long",
    year: "numeric",
  });
}
