// PayDunya disbursements (developers.paydunya.com, "API PUSH"): POST /disburse/get-invoice (account_alias =
// the number without its country code, amount, withdraw_mode, callback_url) answers a disburse_token;
// POST /disburse/submit-invoice (disburse_invoice = that token, disburse_id = our reference) sends it;
// POST /disburse/check-status answers Created, Pending (in progress), Success or Failed (final).
//
// Exactly once: a reference gets one disburse_token forever, stored (ReferenceStore) BEFORE it is
// submitted. A retry, a timeout or a crash finds the stored token and asks about that one, or submits that
// same token again; a second invoice, hence a second payment, is never made for one reference.
import type { AggregatorHttp } from "../aggregators/http.ts";
import { burkinaDigits, callJson, json, parseForm, text, wholeXof } from "../aggregators/http.ts";
import {
  type CallbackAuthenticator,
  type DisburseAnswer,
  type MomoDisbursementProvider,
  type OperatorCode,
  ProviderError,
  type ProviderOutcome,
} from "../provider.ts";
import { checkPaydunyaHash, paydunyaHeaders, type PayDunyaKeys } from "./collect.ts";

/** Where the adapter keeps reference -> disburse_token (the gateway's database in production). */
export type ReferenceStore = {
  get(reference: string): Promise<string | null>;
  /** Stores the token unless one is already stored; answers the stored one. */
  put(reference: string, token: string): Promise<string>;
};

export type PayDunyaDisburseOptions = AggregatorHttp & PayDunyaKeys & {
  apiUrl: string;
  /** withdraw_mode per operator; PayDunya publishes none for Burkina Faso (README), so it is configured. */
  withdrawModes: Partial<Record<OperatorCode, string>>;
  refs: ReferenceStore;
  now: () => number;
};

/** Maps a check-status or submit-invoice answer; a status PayDunya has not documented is UNKNOWN. */
export function mapDisburseStatus(body: Record<string, unknown>, token: string): DisburseAnswer {
  const status = text(body.status);
  const amount = wholeXof(body.amount);
  const base = { providerRef: token, ...(amount ? { amount } : {}) };
  // check-status carries no fee field: PayDunya's disbursement fee is taken from the account, unreported.
  if (status === "Success") {
    return { status: "SUCCEEDED", ...base, ...(amount ? { reported: { paid: amount } } : {}) };
  }
  if (status === "Failed") return { status: "FAILED", ...base, reason: text(body.description) || "Failed" };
  if (status === "Pending" || status === "Created") return { status: "PENDING", ...base };
  return {
    status: "UNKNOWN",
    ...base,
    reason: `status ${status || "(none)"} ${text(body.response_code)}`.trim(),
  };
}

export function createPayDunyaDisbursements(opts: PayDunyaDisburseOptions): MomoDisbursementProvider {
  const headers = paydunyaHeaders(opts);
  const post = (path: string, body: unknown) =>
    callJson(opts, `${opts.apiUrl}${path}`, json(body, headers), path);

  async function check(token: string): Promise<DisburseAnswer & { created: boolean }> {
    const { body } = await post("/disburse/check-status", { disburse_invoice: token });
    if (text(body.response_code) !== "00") {
      throw new ProviderError(
        "unavailable",
        `PayDunya check ${text(body.response_code)} ${text(body.response_text)}`,
      );
    }
    return { ...mapDisburseStatus(body, token), created: text(body.status) === "Created" };
  }

  async function lookup(reference: string): Promise<DisburseAnswer | null> {
    const token = await opts.refs.get(reference);
    if (!token) return null; // no invoice, so nothing was ever submitted
    const { created, ...answer } = await check(token);
    // Created: the invoice exists but was never submitted: sending it (the same token) is safe.
    return created ? null : answer;
  }

  const authenticateCallback: CallbackAuthenticator = async ({ rawBody }) => {
    await checkPaydunyaHash(opts.masterKey, parseForm(rawBody));
  };

  return {
    name: "paydunya-disburse",
    polling: { firstMs: 60_000, maxMs: 30 * 60_000 },
    async send(input) {
      const mode = opts.withdrawModes[input.operatorCode];
      if (!mode) {
        throw new ProviderError(
          "initiate_failed",
          `no PayDunya withdraw_mode configured for ${input.operatorCode}`,
        );
      }
      let token = await opts.refs.get(input.reference);
      if (!token) {
        const { body } = await post("/disburse/get-invoice", {
          account_alias: burkinaDigits(input.phone),
          amount: Number(input.amount),
          withdraw_mode: mode,
          callback_url: input.callbackUrl,
        });
        const fresh = text(body.disburse_token);
        if (text(body.response_code) !== "00" || !fresh) {
          throw new ProviderError(
            "initiate_failed",
            `PayDunya ${text(body.response_code)} ${text(body.response_text)}`,
          );
        }
        token = await opts.refs.put(input.reference, fresh);
      }
      const { body } = await post("/disburse/submit-invoice", {
        disburse_invoice: token,
        disburse_id: input.reference,
      });
      if (text(body.response_code) === "00") {
        const answer = mapDisburseStatus(body, token);
        // submit-invoice may answer before a status exists: ask, rather than assume.
        return text(body.status) ? answer : (({ created: _c, ...a }) => a)(await check(token));
      }
      // Refused: is that "already submitted" (ask what it became) or "not sent" (Created: nothing moved)?
      const { created, ...answer } = await check(token);
      if (created) {
        throw new ProviderError(
          "initiate_failed",
          `PayDunya ${text(body.response_code)} ${text(body.response_text)}`,
        );
      }
      return answer;
    },
    lookup,
    authenticateCallback,
    async parseCallback(request): Promise<ProviderOutcome> {
      await authenticateCallback(request);
      const fields = parseForm(request.rawBody);
      const reference = fields.get("data[disburse_id]") ?? "";
      if (!/^[A-Za-z0-9_:.-]{1,200}$/.test(reference)) {
        throw new ProviderError("bad_callback", "data[disburse_id] missing or malformed");
      }
      // The callback's own status is never used: check-status says what happened.
      const answer = await lookup(reference);
      if (!answer) {
        throw new ProviderError("bad_callback", "no submitted PayDunya disbursement for this reference");
      }
      return {
        notificationId: `paydunya-disburse:${reference}:${answer.status}`,
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
