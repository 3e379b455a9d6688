// The e-mails a subscriber receives, in French then English (we do not know the customer's language):
// the welcome (with the cancel link) and each renewal's payment request (the renewal page and the
// cancel link). Plain text: no remote images, nothing a mail client must fetch.
import type { Config } from "../../config.ts";
import type { RenewalRow, SubscriptionRow } from "../../db/subscriptions.ts";
import type { Deps } from "../deps.ts";
import { queueMail } from "../mail/outbox.ts";
import { cancelUrl, formatAmount, renewalUrl } from "./view.ts";

const UNIT = { USDT_TRC20: "USDT", XOF: "FCFA" } as const;

function day(d: Date, lang: "fr" | "en"): string {
  return d.toLocaleDateString(lang === "fr" ? "fr-FR" : "en-GB", {
    timeZone: "UTC",
    day: "numeric",
    month: "long",
    year: "numeric",
  });
}

function price(s: { amount: string; currency: "USDT_TRC20" | "XOF" }): string {
  return `${formatAmount(s.amount, s.currency)} ${UNIT[s.currency]}`;
}

export async function queueWelcomeMail(
  deps: Pick<Deps, "db" | "clock" | "queue" | "config">,
  s: SubscriptionRow,
  merchantName: string,
) {
  const cancel = await cancelUrl(deps.config, s.id);
  const text = [
    `Bonjour${s.customer_name ? ` ${s.customer_name}` : ""},`,
    ``,
    `Votre abonnement « ${s.description} » chez ${merchantName} a commencé : ${
      price(s)
    }, période payée jusqu'au ${day(s.current_period_end, "fr")}.`,
    `Avant chaque nouvelle période, vous recevrez un lien pour payer.`,
    `Pour résilier à tout moment : ${cancel}`,
    ``,
    `---`,
    ``,
    `Hello${s.customer_name ? ` ${s.customer_name}` : ""},`,
    ``,
    `Your subscription "${s.description}" with ${merchantName} has started: ${price(s)}, paid until ${
      day(s.current_period_end, "en")
    }.`,
    `Before each new period you will receive a link to pay.`,
    `To cancel at any time: ${cancel}`,
  ].join("\n");
  await queueMail(deps, {
    merchantId: s.merchant_id,
    isSandbox: s.is_sandbox,
    to: s.customer_email,
    subject: `${merchantName} : abonnement confirmé / subscription confirmed`,
    text,
    kind: "subscription.created",
    refId: s.id,
  });
}

export async function queueRenewalMail(
  deps: Pick<Deps, "db" | "clock" | "queue" | "config">,
  s: SubscriptionRow,
  r: RenewalRow,
  merchantName: string,
) {
  const pay = renewalUrl(deps.config, r.id);
  const cancel = await cancelUrl(deps.config as Pick<Config, "publicUrl" | "appSecret">, s.id);
  const text = [
    `Bonjour${s.customer_name ? ` ${s.customer_name}` : ""},`,
    ``,
    `Votre abonnement « ${s.description} » chez ${merchantName} se renouvelle : ${
      price(r)
    } pour la période du ${day(r.period_start, "fr")} au ${day(r.period_end, "fr")}.`,
    `Payer : ${pay}`,
    `Sans paiement avant le ${day(r.grace_until, "fr")}, le renouvellement échouera.`,
    `Résilier : ${cancel}`,
    ``,
    `---`,
    ``,
    `Hello${s.customer_name ? ` ${s.customer_name}` : ""},`,
    ``,
    `Your subscription "${s.description}" with ${merchantName} renews: ${price(r)} for ${
      day(r.period_start, "en")
    } to ${day(r.period_end, "en")}.`,
    `Pay: ${pay}`,
    `Unpaid by ${day(r.grace_until, "en")}, the renewal fails.`,
    `Cancel: ${cancel}`,
  ].join("\n");
  await queueMail(deps, {
    merchantId: s.merchant_id,
    isSandbox: s.is_sandbox,
    to: s.customer_email,
    subject: `${merchantName} : renouvellement à payer / renewal due`,
    text,
    kind: "subscription.renewal",
    refId: r.id,
  });
}
