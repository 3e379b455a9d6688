// A PayDunya stand-in for tests: the documented paths, headers (PAYDUNYA-MASTER-KEY, -PRIVATE-KEY, -TOKEN),
// bodies and statuses of checkout invoices (/checkout-invoice/create, /checkout-invoice/confirm/{token})
// and disbursements (/disburse/get-invoice, /disburse/submit-invoice, /disburse/check-status), over real
// HTTP, with IPNs posted as `data[...]` forms carrying data[hash] = SHA-512(master key). Tests plan what
// each invoice or disbursement does; `down` answers HTML 503 to everything.
import { Hono } from "hono";
import type { Context } from "hono";
import { sha512Hex } from "../../rails/fiat/aggregators/http.ts";
import { type Deliver, serveSimulator } from "./sim_server.ts";

export const PAYDUNYA_KEYS = {
  masterKey: "pd-test-master-key",
  privateKey: "test_private_pd-private",
  token: "pd-test-token",
};
export const TEST_WITHDRAW_MODES = {
  OPERATOR_A_BF: "orange-money-burkina",
  OPERATOR_B_BF: "moov-burkina-faso",
};

export type InvoicePlan = {
  outcome: "completed" | "cancelled" | "odd";
  callbacks: "once" | "twice" | "none" | "forged";
  /**
   * PayDunya's fee put on the customer (XOF): total_amount becomes the invoice plus this fee and
   * total_amount_without_fees stays the invoice, as PayDunya answers when the fee is the customer's.
   */
  customerFee?: number;
  /** An amount other than the invoice's reported as paid (both totals), e.g. an aggregator's error. */
  paidAmount?: number;
};
export type DisbursePlan =
  | "Success"
  | "Failed"
  | "LATE_Success"
  | "LATE_Failed"
  | "ODD"
  | "TIMEOUT"
  | "LOST_CALLBACK";

type Invoice = {
  amount: number;
  callbackUrl: string;
  reference: string;
  status: string;
  /** What confirm reports once paid: total_amount and total_amount_without_fees. */
  paid?: { total: number; withoutFees: number };
};
type Disbursement = {
  token: string;
  alias: string;
  amount: number;
  callbackUrl: string;
  status: string;
  disburseId?: string;
};

export function startPayDunyaSimulator(deliver: Deliver) {
  const k = PAYDUNYA_KEYS;
  const invoices = new Map<string, Invoice>();
  const invoicePlans = new Map<string, InvoicePlan>();
  const disbursePlans = new Map<string, DisbursePlan>();
  const disbursements = new Map<string, Disbursement>();
  const late: Disbursement[] = [];
  const state = { down: false, paid: 0, submitCalls: 0, invoicesMade: 0 };
  const app = new Hono();
  const server = serveSimulator(app);

  app.use("*", async (ctx, next) => {
    if (state.down) return ctx.html("<html><body>503 Service Unavailable</body></html>", 503);
    const h = ctx.req.raw.headers;
    if (
      h.get("PAYDUNYA-MASTER-KEY") !== k.masterKey || h.get("PAYDUNYA-PRIVATE-KEY") !== k.privateKey ||
      h.get("PAYDUNYA-TOKEN") !== k.token
    ) {
      return ctx.json({ response_code: "1001", response_text: "Invalid Masterkey / Private Key / Token" });
    }
    await next();
  });

  app.post("/checkout-invoice/create", async (ctx) => {
    const b = await ctx.req.json();
    if (!b.invoice?.total_amount || !b.store?.name) {
      return ctx.json({ response_code: "1002", response_text: "total_amount and store name are required" });
    }
    const token = `test_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    invoices.set(token, {
      amount: b.invoice.total_amount,
      callbackUrl: b.actions?.callback_url,
      reference: b.custom_data?.reference ?? "",
      status: "pending",
    });
    return ctx.json({
      response_code: "00",
      response_text: `https://paydunya.com/sandbox-checkout/invoice/${token}`,
      description: "Checkout Invoice Created",
      token,
    });
  });

  const confirmBody = (token: string, i: Invoice) => ({
    response_code: "00",
    response_text: "Transaction Found",
    hash: "",
    invoice: {
      token,
      pal_is_on: "0",
      total_amount: String(i.paid?.total ?? i.amount),
      total_amount_without_fees: String(i.paid?.withoutFees ?? i.amount),
      description: "",
      expire_date: "2026-11-27 10:00:00",
    },
    custom_data: { reference: i.reference },
    actions: {},
    mode: "test",
    status: i.status,
    fail_reason: i.status === "cancelled" ? "Cancelled by customer" : "",
    customer: {
      name: "Awa",
      phone: "70123456",
      email: "awa@example.com",
      payment_method: "orange-money-burkina",
    },
    receipt_url: `https://paydunya.com/sandbox-checkout/receipt/pdf/${token}.pdf`,
  });

  app.get("/checkout-invoice/confirm/:token", (ctx) => {
    const token = ctx.req.param("token");
    const i = invoices.get(token);
    if (!i) return ctx.json({ response_code: "1004", response_text: "Invoice Not Found" });
    return ctx.json(confirmBody(token, i));
  });

  app.post("/disburse/get-invoice", async (ctx) => {
    const b = await ctx.req.json();
    if (!b.account_alias || !b.amount || !b.withdraw_mode || !b.callback_url) {
      return ctx.json({ response_code: "4002", response_text: "Missing parameters" });
    }
    if (!Object.values(TEST_WITHDRAW_MODES).includes(b.withdraw_mode)) {
      return ctx.json({ response_code: "4003", response_text: "withdraw_mode not supported" });
    }
    state.invoicesMade++;
    const token = `dis_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    disbursements.set(token, {
      token,
      alias: b.account_alias,
      amount: b.amount,
      callbackUrl: b.callback_url,
      status: "Created",
    });
    return ctx.json({ response_code: "00", disburse_token: token });
  });

  const statusBody = (d: Disbursement) => ({
    response_code: "00",
    response_text: d.status,
    description: d.status === "Failed" ? "Numero invalide" : "",
    status: d.status,
    amount: d.amount,
    withdraw_mode: "orange-money-burkina",
    disburse_id: d.disburseId,
    transaction_id: `TX-${d.token}`,
  });

  app.post("/disburse/submit-invoice", async (ctx: Context) => {
    const b = await ctx.req.json();
    state.submitCalls++;
    const d = disbursements.get(b.disburse_invoice);
    if (!d) return ctx.json({ response_code: "4004", response_text: "Invoice not found" });
    if (d.status !== "Created") {
      return ctx.json({ response_code: "4005", response_text: "Invoice already submitted" });
    }
    d.disburseId = b.disburse_id;
    const plan = disbursePlans.get(d.alias) ?? "Success";
    d.status = plan === "Success" || plan === "TIMEOUT"
      ? "Success"
      : plan === "Failed"
      ? "Failed"
      : plan === "ODD"
      ? "Reversed"
      : "Pending";
    if (d.status === "Success") state.paid++;
    if (plan.startsWith("LATE") || plan === "LOST_CALLBACK") late.push(d);
    if (plan === "TIMEOUT") await server.hang();
    return ctx.json(statusBody(d));
  });

  app.post("/disburse/check-status", async (ctx) => {
    const b = await ctx.req.json();
    const d = disbursements.get(b.disburse_invoice);
    if (!d) return ctx.json({ response_code: "4004", response_text: "Invoice not found" });
    return ctx.json(statusBody(d));
  });

  async function post(url: string, fields: Record<string, string>, forged: boolean, copies: number) {
    const hash = forged ? "0".repeat(128) : await sha512Hex(k.masterKey);
    const body = new URLSearchParams({ "data[hash]": hash, ...fields }).toString();
    for (let n = 0; n < copies; n++) {
      await deliver(url, body, { "content-type": "application/x-www-form-urlencoded" });
    }
  }

  return {
    url: server.url,
    state,
    planInvoice: (token: string, plan: InvoicePlan) => invoicePlans.set(token, plan),
    planDisbursement: (accountAlias: string, plan: DisbursePlan) => disbursePlans.set(accountAlias, plan),
    /** The customer finishes on PayDunya's page: the planned status, then the planned IPNs. */
    async pay(token: string) {
      const i = invoices.get(token);
      if (!i) throw new Error(`PayDunya simulator: no invoice ${token}`);
      const plan = invoicePlans.get(token) ?? { outcome: "completed", callbacks: "once" };
      i.status = plan.outcome;
      const invoiced = plan.paidAmount ?? i.amount;
      i.paid = { total: invoiced + (plan.customerFee ?? 0), withoutFees: invoiced };
      const copies = plan.callbacks === "none" ? 0 : plan.callbacks === "twice" ? 2 : 1;
      await post(
        i.callbackUrl,
        {
          "data[response_code]": "00",
          "data[status]": i.status,
          "data[invoice][token]": token,
          "data[invoice][total_amount]": String(i.paid.total),
          "data[invoice][total_amount_without_fees]": String(i.paid.withoutFees),
          "data[custom_data][reference]": i.reference,
        },
        plan.callbacks === "forged",
        copies,
      );
    },
    async settleDisbursements() {
      for (const d of late.splice(0)) {
        const plan = disbursePlans.get(d.alias);
        d.status = plan === "LATE_Failed" ? "Failed" : "Success";
        if (d.status === "Success") state.paid++;
        if (plan === "LOST_CALLBACK") continue;
        await post(
          d.callbackUrl,
          {
            "data[status]": d.status,
            "data[token]": d.token,
            "data[disburse_id]": d.disburseId ?? "",
            "data[amount]": String(d.amount),
          },
          false,
          1,
        );
      }
    },
    close: () => server.close(),
  };
}
