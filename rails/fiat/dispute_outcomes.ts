// The acquirer's outcome of a chargeback it notified before: the cardholder's bank decided (WON: the
// merchant keeps the money; LOST: the cardholder gets it; ESCALATED: sent to the next tier, e.g.
// pre-arbitration). Signed like every card callback (rails/fiat/signing.ts). In development:
//
//   POST /simulators/card/:ref/dispute-outcome   {"caseId", "outcome", "copies"?}
//
// sends the signed outcome for the case `caseId` of the simulated card payment `:ref` to the gateway's
// dispute-outcome callback beside the payment's own callback URL. `copies` > 1 repeats the same
// notification (same notificationId), as acquirers do.
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { CardSimulator } from "./card_simulator.ts";
import { ProviderError } from "./provider.ts";
import type { Dispatcher } from "./signing.ts";

export const DISPUTE_OUTCOMES = ["WON", "LOST", "ESCALATED"] as const;

export const DisputeOutcomeBodySchema = z.strictObject({
  notificationId: z.string().min(1).max(200),
  /** The case of the chargeback notification that opened the dispute. */
  caseId: z.string().min(1).max(200),
  providerRef: z.string().min(1).max(200),
  /** Our pay-in id, echoed from the payment. */
  reference: z.string().min(1).max(200),
  /** Seen from the merchant: WON releases the hold, LOST debits it, ESCALATED keeps it. */
  outcome: z.enum(DISPUTE_OUTCOMES),
  occurredAt: z.iso.datetime({ offset: true }),
});
export type DisputeOutcomeNotice = z.infer<typeof DisputeOutcomeBodySchema>;

/** The body of an outcome notification whose signature was already checked. */
export function parseDisputeOutcomeBody(rawBody: string): DisputeOutcomeNotice {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    throw new ProviderError("bad_callback", "dispute outcome body is not JSON");
  }
  const parsed = DisputeOutcomeBodySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ProviderError(
      "bad_callback",
      `invalid dispute outcome: ${issue.path.join(".")} ${issue.message}`,
    );
  }
  return parsed.data;
}

const SendBody = z.strictObject({
  caseId: z.string().min(1).max(200),
  outcome: z.enum(DISPUTE_OUTCOMES),
  copies: z.number().int().min(1).max(20).optional(),
});

/** The simulated acquirer's route to announce a case's outcome, added to the simulators' app. */
export function addDisputeOutcomeRoutes(
  app: Hono,
  card: Pick<CardSimulator, "get">,
  dispatcher: Dispatcher,
): Hono {
  app.post("/simulators/card/:ref/dispute-outcome", async (c: Context) => {
    const p = card.get(c.req.param("ref") ?? "");
    if (!p) return c.json({ ok: false, code: "NOT_FOUND" }, 404);
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return c.json({ ok: false, code: "BAD_REQUEST" }, 400);
    }
    const parsed = SendBody.safeParse(body);
    if (!parsed.success) return c.json({ ok: false, code: "BAD_REQUEST" }, 400);
    const notice: DisputeOutcomeNotice = {
      notificationId: dispatcher.notificationId(),
      caseId: parsed.data.caseId,
      providerRef: p.providerRef,
      reference: p.reference,
      outcome: parsed.data.outcome,
      occurredAt: new Date(dispatcher.now).toISOString(),
    };
    // Beside the payment's own callback: /v1/providers/simulator/card/dispute-outcome-callback.
    const url = p.callbackUrl.replace(/\/callback$/, "/dispute-outcome-callback");
    await dispatcher.sendRaw(url, JSON.stringify(notice), parsed.data.copies ?? 1);
    return c.json({ ok: true, notificationId: notice.notificationId });
  });
  return app;
}
