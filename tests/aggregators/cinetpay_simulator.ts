// A CinetPay stand-in for tests: the documented paths, bodies, codes and x-token signature of the payment
// API (/v2/payment, /v2/payment/check) and the transfer API (/v1/auth/login, /v1/transfer/contact,
// /v1/transfer/money/send/contact, /v1/transfer/check/money), served over real HTTP. Tests plan what each
// pay-in or transfer does: succeed, refuse, answer a status nobody knows, time out after moving the money,
// answer late, call back twice, never, or with a forged x-token; `down` answers HTML 503 to everything.
import { Hono } from "hono";
import { notificationToken } from "../../rails/fiat/cinetpay/collect.ts";
import { type Deliver, serveSimulator } from "./sim_server.ts";

export type PayinPlan = {
  outcome: "ACCEPTED" | "REFUSED" | "ODD";
  callbacks: "once" | "twice" | "none" | "forged";
  /** An amount other than the one initialised, reported as paid by the check (an aggregator's error). */
  paidAmount?: number;
  /** A currency other than XOF in the check's answer. */
  paidCurrency?: string;
};
export type TransferPlan = "VAL" | "REJ" | "LATE_VAL" | "LATE_REJ" | "ODD" | "TIMEOUT" | "LOST_CALLBACK";
export const CINETPAY_CREDENTIALS = {
  apiKey: "cp-test-apikey",
  siteId: "445160",
  secretKey: "cp-test-secret-key",
  transferPassword: "cp-test-transfer-password",
};

type Payin = {
  amount: number;
  notifyUrl: string;
  status: "WAITING" | "ACCEPTED" | "REFUSED" | "ODD";
  paid?: { amount: number; currency: string };
};
type Transfer = { ref: string; id: string; phone: string; amount: number; notifyUrl: string; status: string };

export function startCinetPaySimulator(deliver: Deliver) {
  const c = CINETPAY_CREDENTIALS;
  const payins = new Map<string, Payin>();
  const payinPlans = new Map<string, PayinPlan>();
  const transferPlans = new Map<string, TransferPlan>();
  const transfers = new Map<string, Transfer>();
  const late: Transfer[] = [];
  const tokens = new Set<string>();
  const state = { down: false, transfersMade: 0, sendCalls: 0 };
  const app = new Hono();
  const server = serveSimulator(app);
  const ok = (data: unknown) => ({ code: 0, message: "OPERATION_SUCCES", data });
  const err = (code: string, message: string) => ({ code, message, description: message, data: [] });

  app.use("*", async (ctx, next) => {
    if (state.down) return ctx.html("<html><body>502 Bad Gateway</body></html>", 503);
    await next();
  });

  app.post("/v2/payment", async (ctx) => {
    const b = await ctx.req.json();
    if (b.apikey !== c.apiKey || String(b.site_id) !== c.siteId) {
      return ctx.json({ code: "609", message: "AUTH_NOT_FOUND", description: "bad apikey", data: [] });
    }
    if (!b.transaction_id || !b.amount || !b.currency || !b.notify_url || !b.return_url || !b.channels) {
      return ctx.json({ code: "608", message: "MINIMUM_REQUIRED_FIELDS", description: "missing", data: [] });
    }
    if (payins.has(b.transaction_id)) {
      return ctx.json({ code: "624", message: "TRANSACTION_ID_ALREADY_USED", data: [] });
    }
    payins.set(b.transaction_id, { amount: b.amount, notifyUrl: b.notify_url, status: "WAITING" });
    const token = crypto.randomUUID().replaceAll("-", "");
    return ctx.json({
      code: "201",
      message: "CREATED",
      description: "Transaction created with success",
      data: { payment_token: token, payment_url: `https://checkout.cinetpay.com/payment/${token}` },
      api_response_id: `${Date.now() / 1000}`,
    });
  });

  app.post("/v2/payment/check", async (ctx) => {
    const b = await ctx.req.json();
    const p = payins.get(b.transaction_id);
    if (b.apikey !== c.apiKey || !p) {
      return ctx.json({ code: "404", message: "TRANSACTION_NOT_FOUND", data: [] });
    }
    // CinetPay's documented check answer: no fee field (its commission is not reported per payment).
    const data = (status: string) => ({
      amount: String(p.paid?.amount ?? p.amount),
      currency: p.paid?.currency ?? "XOF",
      status,
      payment_method: "OMBF",
      description: "",
      metadata: b.transaction_id,
      operator_id: status === "ACCEPTED" ? "MP2611.1200.A1" : null,
      payment_date: "2026-11-26 12:00:00",
      fund_availability_date: "2026-11-28 00:00:00",
    });
    const answer = p.status === "ACCEPTED"
      ? { code: "00", message: "SUCCES", data: data("ACCEPTED") }
      : p.status === "REFUSED"
      ? { code: "600", message: "PAYMENT_FAILED", data: data("REFUSED") }
      : p.status === "ODD"
      ? { code: "00", message: "SUCCES", data: data("SUSPENDED") }
      : { code: "662", message: "WAITING_CUSTOMER_PAYMENT", data: data("WAITING_FOR_CUSTOMER") };
    return ctx.json({ ...answer, api_response_id: "1" });
  });

  app.post("/v1/auth/login", async (ctx) => {
    const f = new URLSearchParams(await ctx.req.text());
    if (f.get("apikey") !== c.apiKey || f.get("password") !== c.transferPassword) {
      return ctx.json(err("701", "INVALID_CREDENTIALS"));
    }
    const token = crypto.randomUUID();
    tokens.add(token);
    return ctx.json(ok({ token }));
  });

  const authed = (token: string | undefined) => token !== undefined && tokens.has(token);

  app.post("/v1/transfer/contact", async (ctx) => {
    if (!authed(ctx.req.query("token"))) return ctx.json(err("706", "INVALID_TOKEN"));
    const list = JSON.parse(new URLSearchParams(await ctx.req.text()).get("data") ?? "[]");
    return ctx.json(ok([list.map((x: Record<string, unknown>) => ({ ...x, code: 0, status: "success" }))]));
  });

  app.post("/v1/transfer/money/send/contact", async (ctx) => {
    if (!authed(ctx.req.query("token"))) return ctx.json(err("706", "INVALID_TOKEN"));
    state.sendCalls++;
    const [item] = JSON.parse(new URLSearchParams(await ctx.req.text()).get("data") ?? "[]");
    if (transfers.has(item.client_transaction_id)) return ctx.json(err("805", "CLIENT_TRANSACTION_ID_EXIST"));
    if (item.amount < 200) return ctx.json(err("719", "AMOUNT_TOO_SMALL"));
    const plan = transferPlans.get(item.phone) ?? "VAL";
    if (plan === "REJ") return ctx.json(err("602", "INSUFFICIENT_BALANCE"));
    const t: Transfer = {
      ref: item.client_transaction_id,
      id: `TR${crypto.randomUUID().slice(0, 8)}`,
      phone: item.phone,
      amount: item.amount,
      notifyUrl: item.notify_url,
      status: plan === "VAL" || plan === "TIMEOUT" ? "VAL" : plan === "ODD" ? "XYZ" : "NEW",
    };
    transfers.set(t.ref, t);
    if (t.status === "VAL") state.transfersMade++;
    if (plan.startsWith("LATE") || plan === "LOST_CALLBACK") late.push(t);
    if (plan === "TIMEOUT") await server.hang(); // the money left; the caller never hears it
    const row = {
      ...item,
      transaction_id: t.id,
      lot: "L1",
      code: 0,
      status: "success",
      treatment_status: t.status,
    };
    return ctx.json(ok([[row]]));
  });

  app.get("/v1/transfer/check/money", (ctx) => {
    if (!authed(ctx.req.query("token"))) return ctx.json(err("706", "INVALID_TOKEN"));
    const t = transfers.get(ctx.req.query("client_transaction_id") ?? "");
    if (!t) return ctx.json(err("723", "NOT_FOUND"));
    return ctx.json(ok([{
      transaction_id: t.id,
      client_transaction_id: t.ref,
      lot: "L1",
      amount: String(t.amount),
      receiver: `+226${t.phone}`,
      operator: "OMBF",
      sending_status: "CONFIRM",
      treatment_status: t.status,
      comment: t.status === "REJ" ? "Numero invalide" : null,
    }]));
  });

  async function notify(reference: string, p: Payin, plan: PayinPlan) {
    const fields = new URLSearchParams({
      cpm_site_id: c.siteId,
      cpm_trans_id: reference,
      cpm_trans_date: "2026-11-26 12:00:00",
      cpm_amount: String(p.paid?.amount ?? p.amount),
      cpm_currency: p.paid?.currency ?? "XOF",
      signature: crypto.randomUUID(),
      payment_method: "OMBF",
      cel_phone_num: "70123456",
      cpm_phone_prefixe: "226",
      cpm_language: "fr",
      cpm_version: "V4",
      cpm_payment_config: "Single",
      cpm_page_action: "Payment",
      cpm_custom: reference,
      cpm_designation: "",
      cpm_error_message: p.status === "ACCEPTED" ? "SUCCES" : "PAYMENT_FAILED",
    });
    const token = plan.callbacks === "forged" ? "f".repeat(64) : await notificationToken(c.secretKey, fields);
    const copies = plan.callbacks === "none" ? 0 : plan.callbacks === "twice" ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      await deliver(p.notifyUrl, fields.toString(), {
        "content-type": "application/x-www-form-urlencoded",
        "x-token": token,
      });
    }
  }

  return {
    url: server.url,
    state,
    planPayin: (reference: string, plan: PayinPlan) => payinPlans.set(reference, plan),
    planTransfer: (nationalDigits: string, plan: TransferPlan) => transferPlans.set(nationalDigits, plan),
    transfer: (reference: string) => transfers.get(reference),
    /** The customer finishes on CinetPay's page: the planned outcome, then the planned callbacks. */
    async pay(reference: string) {
      const p = payins.get(reference);
      if (!p) throw new Error(`CinetPay simulator: no payment ${reference}`);
      const plan = payinPlans.get(reference) ?? { outcome: "ACCEPTED", callbacks: "once" };
      p.status = plan.outcome;
      p.paid = { amount: plan.paidAmount ?? p.amount, currency: plan.paidCurrency ?? "XOF" };
      await notify(reference, p, plan);
    },
    /** Late transfers reach their final status; their (unsigned) notifications are sent unless lost. */
    async settleTransfers() {
      for (const t of late.splice(0)) {
        const plan = transferPlans.get(t.phone);
        t.status = plan === "LATE_REJ" ? "REJ" : "VAL";
        if (t.status === "VAL") state.transfersMade++;
        if (plan === "LOST_CALLBACK") continue;
        const body = new URLSearchParams({
          transaction_id: t.id,
          client_transaction_id: t.ref,
          lot: "L1",
          amount: String(t.amount),
          receiver: `+226${t.phone}`,
          operator: "OMBF",
          treatment_status: t.status,
        });
        await deliver(t.notifyUrl, body.toString(), { "content-type": "application/x-www-form-urlencoded" });
      }
    },
    close: () => server.close(),
  };
}
