// CinetPay collection (docs.cinetpay.com, "Payment API"): POST /v2/payment opens CinetPay's hosted page
// (card: channels CREDIT_CARD; mobile money: MOBILE_MONEY, the customer confirms with their operator there),
// POST /v2/payment/check answers a transaction's status, and CinetPay notifies `notify_url` with a form
// signed in the `x-token` header (HMAC-SHA256 with the site's secret key over the documented fields,
// concatenated in order). Even a well-signed notification is only a hint: the outcome is always the answer
// of /v2/payment/check for its cpm_trans_id, so a replayed or stale notification can move nothing new.
import type { AggregatorHttp } from "../aggregators/http.ts";
import { callJson, hmacSha256Hex, json, parseForm, sameText, text, wholeXof } from "../aggregators/http.ts";
import {
  type CallbackAuthenticator,
  type CallbackParser,
  type CardProvider,
  type InitiateInput,
  type MomoProvider,
  ProviderError,
  type ProviderOutcome,
  type StatusAnswer,
} from "../provider.ts";

export type CinetPayCollectOptions = AggregatorHttp & {
  apiUrl: string;
  apiKey: string;
  siteId: string;
  secretKey: string;
  now: () => number;
};

/** The form fields of a notification, in the order CinetPay concatenates them for the x-token HMAC. */
export const NOTIFICATION_FIELDS = [
  "cpm_site_id",
  "cpm_trans_id",
  "cpm_trans_date",
  "cpm_amount",
  "cpm_currency",
  "signature",
  "payment_method",
  "cel_phone_num",
  "cpm_phone_prefixe",
  "cpm_language",
  "cpm_version",
  "cpm_payment_config",
  "cpm_page_action",
  "cpm_custom",
  "cpm_designation",
  "cpm_error_message",
] as const;

/** The x-token of a notification form (exported for the simulator, which signs as CinetPay does). */
export function notificationToken(secretKey: string, fields: URLSearchParams): Promise<string> {
  return hmacSha256Hex(secretKey, NOTIFICATION_FIELDS.map((f) => fields.get(f) ?? "").join(""));
}

/** /v2/payment/check codes that mean "not final yet" (CinetPay's code table). */
const WAITING_CODES = new Set(["201", "623", "662"]);
/** Check codes that are a final refusal. */
const REFUSED_CODES = new Set(["600", "602", "604", "627"]);

/** Maps a /v2/payment/check answer; anything it does not recognise is UNKNOWN, never a guess. */
export function mapCheck(body: Record<string, unknown>): StatusAnswer {
  const code = text(body.code);
  const message = text(body.message);
  const data = (body.data && typeof body.data === "object" ? body.data : {}) as Record<string, unknown>;
  const status = text(data.status);
  if (code === "00" && status === "ACCEPTED") {
    const amount = wholeXof(data.amount);
    if (text(data.currency) !== "XOF" || amount === undefined) {
      return { status: "UNKNOWN", reason: `ACCEPTED in ${text(data.currency)} ${text(data.amount)}` };
    }
    // CinetPay's check carries no fee field (its commission is taken from the settlement, not reported
    // per transaction): what the customer paid is all it says.
    return { status: "SUCCEEDED", amount, reported: { paid: amount } };
  }
  if (status === "REFUSED" || REFUSED_CODES.has(code)) {
    return { status: "FAILED", reason: message || "PAYMENT_FAILED" };
  }
  if (WAITING_CODES.has(code) || status === "WAITING_FOR_CUSTOMER" || status === "PENDING") {
    return { status: "PENDING" };
  }
  return { status: "UNKNOWN", reason: `${code} ${message} ${status}`.trim() };
}

export function createCinetPayCollection(opts: CinetPayCollectOptions): {
  card: CardProvider;
  momo: MomoProvider;
} {
  const polling = { firstMs: 60_000, maxMs: 30 * 60_000 };

  async function init(input: InitiateInput, channels: "CREDIT_CARD" | "MOBILE_MONEY", phone?: string) {
    const [name, ...rest] = (input.customer.name ?? "Client").trim().split(/\s+/);
    const { body } = await callJson(
      opts,
      `${opts.apiUrl}/v2/payment`,
      json({
        apikey: opts.apiKey,
        site_id: opts.siteId,
        transaction_id: input.reference,
        amount: Number(input.amount),
        currency: input.currency,
        description: `Paiement ${input.reference}`,
        notify_url: input.callbackUrl,
        return_url: input.returnUrl,
        channels,
        lang: "fr",
        metadata: input.reference,
        customer_name: name || "Client",
        customer_surname: rest.join(" ") || name || "Client",
        ...(input.customer.email ? { customer_email: input.customer.email } : {}),
        ...(phone ?? input.customer.phone ? { customer_phone_number: phone ?? input.customer.phone } : {}),
        // Card payments need a billing address; the gateway does not collect one (docs/decisions.md).
        customer_address: "Ouagadougou",
        customer_city: "Ouagadougou",
        customer_country: "BF",
        customer_state: "BF",
        customer_zip_code: "00000",
      }),
      "/v2/payment",
    );
    if (text(body.code) !== "201") {
      throw new ProviderError("initiate_failed", `CinetPay ${text(body.code)} ${text(body.message)}`);
    }
    const data = (body.data ?? {}) as Record<string, unknown>;
    const url = text(data.payment_url);
    if (!/^https?:\/\//.test(url)) throw new ProviderError("missing_url", "CinetPay returned no payment_url");
    return url;
  }

  async function queryStatus(reference: string): Promise<StatusAnswer> {
    const { body } = await callJson(
      opts,
      `${opts.apiUrl}/v2/payment/check`,
      json({ apikey: opts.apiKey, site_id: opts.siteId, transaction_id: reference }),
      "/v2/payment/check",
    );
    return mapCheck(body);
  }

  const authenticateCallback: CallbackAuthenticator = async ({ headers, rawBody }) => {
    const token = headers.get("x-token");
    if (!token) throw new ProviderError("bad_callback", "missing x-token header");
    const fields = parseForm(rawBody);
    if (!sameText(token.toLowerCase(), await notificationToken(opts.secretKey, fields))) {
      throw new ProviderError("bad_callback", "x-token does not match");
    }
    if (fields.get("cpm_site_id") !== opts.siteId) throw new ProviderError("bad_callback", "another site_id");
  };

  const parseCallback: CallbackParser = async (request): Promise<ProviderOutcome> => {
    await authenticateCallback(request);
    const reference = parseForm(request.rawBody).get("cpm_trans_id") ?? "";
    if (!/^[A-Za-z0-9_:.-]{1,200}$/.test(reference)) {
      throw new ProviderError("bad_callback", "cpm_trans_id missing or malformed");
    }
    // Never the notification's own word: CinetPay's check answers what happened.
    const answer = await queryStatus(reference);
    return {
      notificationId: `cinetpay:${reference}:${answer.status}`,
      providerRef: reference,
      reference,
      status: answer.status,
      amount: answer.amount ?? "0",
      ...(answer.reason ? { reason: answer.reason } : {}),
      ...(answer.reported ? { reported: answer.reported } : {}),
      occurredAt: new Date(opts.now()),
    };
  };

  const shared = { polling, exactAmount: true, queryStatus, authenticateCallback, parseCallback };
  return {
    card: {
      name: "cinetpay",
      ...shared,
      async initiate(input) {
        return { providerRef: input.reference, redirectUrl: await init(input, "CREDIT_CARD") };
      },
    },
    momo: {
      name: "cinetpay",
      ...shared,
      // CinetPay's mobile money runs on its own page: the customer picks Orange or Moov and confirms there
      // (USSD or OTP as the operator asks); the gateway polls the pay-in meanwhile.
      async initiate(input) {
        const url = await init(input, "MOBILE_MONEY", input.phone);
        return {
          providerRef: input.reference,
          nextStep: "approval",
          instruction: {
            fr: `Ouvrez ${url} pour confirmer le paiement avec votre opérateur.`,
            en: `Open ${url} to confirm the payment with your operator.`,
          },
        };
      },
      submitOtp: () => Promise.resolve({ ok: false, code: "OTP_NOT_APPLICABLE" }),
    },
  };
}
