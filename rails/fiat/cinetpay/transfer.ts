// CinetPay transfers (docs.cinetpay.com, "Transfer API"), on client.cinetpay.com: POST /v1/auth/login
// (apikey, password) answers a token valid 5 minutes; the number must be a contact (POST
// /v1/transfer/contact, code 726 "already my contact" is fine); POST /v1/transfer/money/send/contact sends,
// with our reference as client_transaction_id (CinetPay refuses a second one: 805
// CLIENT_TRANSACTION_ID_EXIST); GET /v1/transfer/check/money?client_transaction_id= answers its
// treatment_status: NEW, REC, NOS in progress, VAL paid, REJ refused. Transfer notifications are NOT
// signed, so a notification only names a reference; what happened is always re-queried by that reference.
import type { AggregatorHttp } from "../aggregators/http.ts";
import { burkinaDigits, callJson, form, parseForm, text, wholeXof } from "../aggregators/http.ts";
import {
  type CallbackAuthenticator,
  type DisburseAnswer,
  type MomoDisbursementProvider,
  ProviderError,
  type ProviderOutcome,
} from "../provider.ts";

export type CinetPayTransferOptions = AggregatorHttp & {
  transferUrl: string;
  apiKey: string;
  password: string;
  now: () => number;
};

const TOKEN_TTL_MS = 4 * 60_000; // CinetPay's tokens live 5 minutes; renew a minute early
const REFERENCE = /^[A-Za-z0-9_:.-]{1,200}$/;

/** Maps one transfer's treatment_status; a status CinetPay has not documented is UNKNOWN. */
export function mapTreatment(row: Record<string, unknown>): DisburseAnswer {
  const providerRef = text(row.transaction_id) || text(row.client_transaction_id);
  const status = text(row.treatment_status);
  const amount = wholeXof(row.amount);
  if (status === "VAL") {
    // No fee field in CinetPay's transfer answers: the fee is taken from the transfer balance, unreported.
    return { status: "SUCCEEDED", providerRef, ...(amount ? { amount, reported: { paid: amount } } : {}) };
  }
  if (status === "REJ") return { status: "FAILED", providerRef, reason: text(row.comment) || "REJ" };
  if (status === "NEW" || status === "REC" || status === "NOS") return { status: "PENDING", providerRef };
  return { status: "UNKNOWN", providerRef, reason: `treatment_status ${status || "(none)"}` };
}

export function createCinetPayTransfers(opts: CinetPayTransferOptions): MomoDisbursementProvider {
  let cached: { token: string; until: number } | undefined;

  async function token(): Promise<string> {
    if (cached && cached.until > opts.now()) return cached.token;
    const { body } = await callJson(
      opts,
      `${opts.transferUrl}/v1/auth/login?lang=en`,
      form({ apikey: opts.apiKey, password: opts.password }),
      "transfer.login",
    );
    const t = text((body.data as Record<string, unknown> | undefined)?.token);
    if (text(body.code) !== "0" || !t) {
      // 701 INVALID_CREDENTIALS and the like: nothing was sent; the operator must fix the settings.
      throw new ProviderError("unavailable", `CinetPay login ${text(body.code)} ${text(body.message)}`);
    }
    cached = { token: t, until: opts.now() + TOKEN_TTL_MS };
    return t;
  }

  /** Calls an authenticated path; an expired or invalid token (705, 706) is renewed once. */
  async function authed(path: string, init?: RequestInit): Promise<Record<string, unknown>> {
    for (let attempt = 0;; attempt++) {
      const t = await token();
      const sep = path.includes("?") ? "&" : "?";
      const { body } = await callJson(
        opts,
        `${opts.transferUrl}${path}${sep}token=${encodeURIComponent(t)}&lang=en`,
        init ?? { method: "GET", headers: { accept: "application/json" } },
        path.split("?")[0],
      );
      const code = text(body.code);
      if ((code === "705" || code === "706") && attempt === 0) {
        cached = undefined;
        continue;
      }
      return body;
    }
  }

  async function lookup(reference: string): Promise<DisburseAnswer | null> {
    const body = await authed(
      `/v1/transfer/check/money?client_transaction_id=${encodeURIComponent(reference)}`,
    );
    const code = text(body.code);
    if (code === "723") return null; // NOT_FOUND: CinetPay never received it
    const rows = Array.isArray(body.data) ? body.data : [];
    const row = rows.find((r) => text((r as Record<string, unknown>)?.client_transaction_id) === reference);
    if (code !== "0" || !row) {
      throw new ProviderError("unavailable", `CinetPay check ${code} ${text(body.message)}`);
    }
    return mapTreatment(row as Record<string, unknown>);
  }

  const authenticateCallback: CallbackAuthenticator = ({ rawBody }) => {
    // Unsigned by CinetPay: only its shape is checked here; parseCallback re-queries before anything moves.
    const reference = parseForm(rawBody).get("client_transaction_id") ?? "";
    if (!REFERENCE.test(reference)) {
      return Promise.reject(new ProviderError("bad_callback", "client_transaction_id missing or malformed"));
    }
    return Promise.resolve();
  };

  return {
    name: "cinetpay-transfer",
    polling: { firstMs: 60_000, maxMs: 30 * 60_000 },
    async send(input) {
      const phone = burkinaDigits(input.phone);
      const contact = await authed(
        "/v1/transfer/contact",
        form({
          data: JSON.stringify([{
            prefix: "226",
            phone,
            name: "Beneficiaire",
            surname: input.reference.slice(0, 50),
            email: "noreply@example.invalid",
          }]),
        }),
      );
      if (text(contact.code) !== "0") {
        throw new ProviderError(
          "initiate_failed",
          `CinetPay contact ${text(contact.code)} ${text(contact.message)}`,
        );
      }
      const sent = await authed(
        "/v1/transfer/money/send/contact",
        form({
          data: JSON.stringify([{
            prefix: "226",
            phone,
            amount: Number(input.amount),
            client_transaction_id: input.reference,
            notify_url: input.callbackUrl,
          }]),
        }),
      );
      const code = text(sent.code);
      // Already received under this reference: what CinetPay holds is the answer, never a second transfer.
      if (code === "805") {
        const known = await lookup(input.reference);
        if (known) return known;
        throw new ProviderError("unavailable", "CinetPay says the reference exists but cannot find it");
      }
      if (code !== "0") {
        // 602 INSUFFICIENT_BALANCE, 719/720 amount limits, 721/804 operator, 802 phone: refused, nothing sent.
        throw new ProviderError("initiate_failed", `CinetPay ${code} ${text(sent.message)}`);
      }
      const rows = (Array.isArray(sent.data) ? sent.data.flat() : []) as Array<Record<string, unknown>>;
      const row = rows.find((r) => text(r?.client_transaction_id) === input.reference);
      if (!row) throw new ProviderError("unavailable", "CinetPay accepted the request without the transfer");
      if (text(row.code) !== "" && text(row.code) !== "0") {
        throw new ProviderError("initiate_failed", `CinetPay ${text(row.code)} ${text(row.status)}`);
      }
      const answer = mapTreatment(row);
      const amount = wholeXof(row.amount);
      if (amount !== undefined && amount !== input.amount) {
        return {
          status: "UNKNOWN",
          providerRef: answer.providerRef,
          reason: `sent ${amount} for ${input.amount}`,
        };
      }
      return answer;
    },
    lookup,
    authenticateCallback,
    async parseCallback(request): Promise<ProviderOutcome> {
      await authenticateCallback(request);
      const reference = parseForm(request.rawBody).get("client_transaction_id")!;
      const answer = await lookup(reference);
      if (!answer) throw new ProviderError("bad_callback", "CinetPay knows no transfer with this reference");
      return {
        notificationId: `cinetpay-transfer:${reference}:${answer.status}`,
        providerRef: answer.providerRef,
        reference,
        status: answer.status,
        amount: answer.amount ?? "0",
        ...(answer.reason ? { reason: answer.reason } : {}),
        ...(answer.reported ? { reported: answer.reported } : {}),
        occurredAt: new Date(opts.now()),
      };
    },
  };
}
