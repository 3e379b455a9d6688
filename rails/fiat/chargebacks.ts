// Chargebacks from the card acquirer: the notification's body, its parser (after the signature, which is
// the card provider's own: rails/fiat/signing.ts), and the simulator's way to raise one in development.
//
//   POST /simulators/card/:ref/chargeback   {"amount"?, "reason"?, "cardOrigin"?, "copies"?}
//
// sends a signed notification for the simulated card payment `:ref` (a card pay-in's `txHash`) to the
// gateway's chargeback callback beside the payment's own callback URL. `copies` > 1 sends the same
// notification again (same caseId and notificationId), as acquirers do.
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { CardSimulator } from "./card_simulator.ts";
import { ProviderError } from "./provider.ts";
import type { Dispatcher } from "./signing.ts";

export const ChargebackBodySchema = z.strictObject({
  notificationId: z.string().min(1).max(200),
  /** The acquirer's case: one dispute per case, however often it is notified. */
  caseId: z.string().min(1).max(200),
  providerRef: z.string().min(1).max(200),
  /** Our pay-in id, echoed from the payment. */
  reference: z.string().min(1).max(200),
  /** XOF disputed, a whole number. */
  amount: z.string().regex(/^[1-9]\d{0,14}$/),
  reason: z.string().regex(/^[A-Z][A-Z0-9_]{0,49}$/),
  cardOrigin: z.enum(["LOCAL", "INTERNATIONAL"]),
  occurredAt: z.iso.datetime({ offset: true }),
});
export type ChargebackNotice = z.infer<typeof ChargebackBodySchema>;

/** The body of a chargeback notification whose signature was already checked. */
export function parseChargebackBody(rawBody: string): ChargebackNotice {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    throw new ProviderError("bad_callback", "chargeback body is not JSON");
  }
  const parsed = ChargebackBodySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ProviderError("bad_callback", `invalid chargeback: ${issue.path.join(".")} ${issue.message}`);
  }
  return parsed.data;
}

const OpenBody = z.strictObject({
  amount: z.string().regex(/^[1-9]\d{0,14}$/).optional(),
  reason: z.string().regex(/^[A-Z][A-Z0-9_]{0,49}$/).optional(),
  cardOrigin: z.enum(["LOCAL", "INTERNATIONAL"]).optional(),
  copies: z.number().int().min(1).max(5).optional(),
});

/** Routes of the simulated acquirer's chargeback desk, added to the simulators' app. */
export function addChargebackRoutes(
  app: Hono,
  card: Pick<CardSimulator, "get">,
  dispatcher: Dispatcher,
): Hono {
  app.post("/simulators/card/:ref/chargeback", async (c: Context) => {
    const p = card.get(c.req.param("ref") ?? "");
    if (!p) return c.json({ ok: false, code: "NOT_FOUND" }, 404);
    if (p.status !== "SUCCEEDED") return c.json({ ok: false, code: "NOT_CAPTURED" }, 409);
    let body: unknown = {};
    const text = await c.req.text();
    try {
      if (text.trim() !== "") body = JSON.parse(text);
    } catch {
      return c.json({ ok: false, code: "BAD_REQUEST" }, 400);
    }
    const parsed = OpenBody.safeParse(body);
    if (!parsed.success) return c.json({ ok: false, code: "BAD_REQUEST" }, 400);
    const asked = parsed.data;
    if (asked.amount && BigInt(asked.amount) > BigInt(p.amount)) {
      return c.json({ ok: false, code: "AMOUNT_ABOVE_PAYMENT" }, 409);
    }
    const notice: ChargebackNotice = {
      notificationId: dispatcher.notificationId(),
      caseId: `cb_sim_${crypto.randomUUID().replaceAll("-", "")}`,
      providerRef: p.providerRef,
      reference: p.reference,
      amount: asked.amount ?? p.amount,
      reason: asked.reason ?? "FRAUD_CARD_ABSENT",
      cardOrigin: asked.cardOrigin ?? "LOCAL",
      occurredAt: new Date(dispatcher.now).toISOString(),
    };
    // Beside the payment's own callback: /v1/providers/simulator/card/chargeback-callback.
    const url = p.callbackUrl.replace(/\/callback$/, "/chargeback-callback");
    await dispatcher.sendRaw(url, JSON.stringify(notice), asked.copies ?? 1);
    return c.json({ ok: true, caseId: notice.caseId, notificationId: notice.notificationId });
  });
  return app;
}
