// PayDunya collection (developers.paydunya.com, "API HTTP/JSON"): POST /checkout-invoice/create opens a
// hosted checkout page (response_code "00", response_text = the page, token), GET
// /checkout-invoice/confirm/{token} answers its status (pending, completed, cancelled, failed), and
// PayDunya posts its IPN to the invoice's callback_url as a form `data[...]` whose data[hash] is the
// SHA-512 of the account's master key. The hash only says "PayDunya sent this": the outcome is always
// what confirm answers for the token, so nothing moves on the IPN's own word.
import type { AggregatorHttp } from "../aggregators/http.ts";
import { callJson, json, parseForm, sameText, sha512Hex, text, wholeXof } from "../aggregators/http.ts";
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

export type PayDunyaKeys = { masterKey: string; privateKey: string; token: string };

export type PayDunyaCollectOptions = AggregatorHttp & PayDunyaKeys & {
  /** https://app.paydunya.com/api/v1 (live) or .../sandbox-api/v1 (PayDunya's test mode). */
  apiUrl: string;
  storeName: string;
  now: () => number;
};

export function paydunyaHeaders(keys: PayDunyaKeys): Record<string, string> {
  return {
    "PAYDUNYA-MASTER-KEY": keys.masterKey,
    "PAYDUNYA-PRIVATE-KEY": keys.privateKey,
    "PAYDUNYA-TOKEN": keys.token,
  };
}

/** Checks data[hash] (SHA-512 of the master key) of an IPN or disbursement callback form. */
export async function checkPaydunyaHash(masterKey: string, fields: URLSearchParams): Promise<void> {
  const hash = fields.get("data[hash]");
  if (!hash) throw new ProviderError("bad_callback", "missing data[hash]");
  if (!sameText(hash.toLowerCase(), await sha512Hex(masterKey))) {
    throw new ProviderError("bad_callback", "data[hash] does not match");
  }
}

/** A confirm answer as the gateway's status, with the reference we stored in custom_data. */
export function mapConfirm(body: Record<string, unknown>): StatusAnswer & { reference?: string } {
  const invoice = (body.invoice ?? {}) as Record<string, unknown>;
  const custom = (body.custom_data ?? {}) as Record<string, unknown>;
  const reference = text(custom.reference) || undefined;
  const status = text(body.status);
  if (text(body.response_code) !== "00") {
    return {
      status: "UNKNOWN",
      reason: `${text(body.response_code)} ${text(body.response_text)}`,
      reference,
    };
  }
  if (status === "completed") {
    const paid = wholeXof(invoice.total_amount);
    if (!paid) {
      return { status: "UNKNOWN", reason: `completed for ${text(invoice.total_amount)}`, reference };
    }
    // total_amount is what the customer paid; total_amount_without_fees the invoice before PayDunya's fee.
    // When PayDunya puts its fee on the customer the two differ: the difference is PayDunya's fee, and
    // what the order received (and PayDunya settles) is the amount without it.
    const hasNet = invoice.total_amount_without_fees !== undefined &&
      invoice.total_amount_without_fees !== null;
    const net = hasNet ? wholeXof(invoice.total_amount_without_fees) : paid;
    if (!net || BigInt(net) > BigInt(paid)) {
      return {
        status: "UNKNOWN",
        reason: `completed for ${text(invoice.total_amount)} without fees ${
          text(invoice.total_amount_without_fees)
        }`,
        reference,
      };
    }
    const fee = BigInt(paid) - BigInt(net);
    const reported = fee > 0n ? { paid, fee: String(fee), settled: net } : { paid };
    return { status: "SUCCEEDED", amount: net, reported, reference };
  }
  if (status === "cancelled") return { status: "FAILED", reason: "CUSTOMER_REJECTED", reference };
  if (status === "failed") return { status: "FAILED", reason: text(body.fail_reason) || "FAILED", reference };
  if (status === "pending") return { status: "PENDING", reference };
  return { status: "UNKNOWN", reason: `status ${status || "(none)"}`, reference };
}

export function createPayDunyaCollection(
  opts: PayDunyaCollectOptions,
): { card: CardProvider; momo: MomoProvider } {
  const headers = paydunyaHeaders(opts);

  async function create(input: InitiateInput): Promise<{ token: string; url: string }> {
    const { body } = await callJson(
      opts,
      `${opts.apiUrl}/checkout-invoice/create`,
      json({
        invoice: { total_amount: Number(input.amount), description: `Paiement ${input.reference}` },
        store: { name: opts.storeName },
        actions: {
          callback_url: input.callbackUrl,
          return_url: input.returnUrl,
          cancel_url: input.returnUrl,
        },
        custom_data: { reference: input.reference },
      }, headers),
      "/checkout-invoice/create",
    );
    if (text(body.response_code) !== "00") {
      throw new ProviderError(
        "initiate_failed",
        `PayDunya ${text(body.response_code)} ${text(body.response_text)}`,
      );
    }
    const url = text(body.response_text);
    const token = text(body.token);
    if (!/^https?:\/\//.test(url) || !token) {
      throw new ProviderError("missing_url", "PayDunya returned no page");
    }
    return { token, url };
  }

  async function confirm(token: string) {
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(token)) {
      throw new ProviderError("bad_callback", "malformed invoice token");
    }
    const { body } = await callJson(opts, `${opts.apiUrl}/checkout-invoice/confirm/${token}`, {
      method: "GET",
      headers: { ...headers, accept: "application/json" },
    }, "/checkout-invoice/confirm");
    return mapConfirm(body);
  }

  const authenticateCallback: CallbackAuthenticator = async ({ rawBody }) => {
    await checkPaydunyaHash(opts.masterKey, parseForm(rawBody));
  };

  const parseCallback: CallbackParser = async (request): Promise<ProviderOutcome> => {
    await authenticateCallback(request);
    const token = parseForm(request.rawBody).get("data[invoice][token]") ?? "";
    const answer = await confirm(token);
    if (!answer.reference) throw new ProviderError("bad_callback", "PayDunya knows no pay-in for this token");
    return {
      notificationId: `paydunya:${token}:${answer.status}`,
      providerRef: token,
      reference: answer.reference,
      status: answer.status,
      amount: answer.amount ?? "0",
      ...(answer.reason ? { reason: answer.reason } : {}),
      ...(answer.reported ? { reported: answer.reported } : {}),
      occurredAt: new Date(opts.now()),
    };
  };

  const shared = {
    name: "paydunya",
    polling: { firstMs: 60_000, maxMs: 30 * 60_000 },
    exactAmount: true,
    queryStatus: async (token: string): Promise<StatusAnswer> => {
      const { reference: _r, ...answer } = await confirm(token);
      return answer;
    },
    authenticateCallback,
    parseCallback,
  };
  return {
    card: {
      ...shared,
      async initiate(input) {
        const { token, url } = await create(input);
        return { providerRef: token, redirectUrl: url };
      },
    },
    momo: {
      ...shared,
      // PayDunya's checkout page offers the wallets of the merchant's country; the customer confirms there.
      async initiate(input) {
        const { token, url } = await create(input);
        return {
          providerRef: token,
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
