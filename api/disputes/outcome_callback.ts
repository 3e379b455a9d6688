// Where the card acquirer announces a dispute's outcome (won, lost, escalated). No key: its signature
// over the raw body (X-Provider-Signature, as on its chargeback notifications) is checked first.
import { z } from "@hono/zod-openapi";
import { handleDisputeOutcomeCallback } from "../../domain/disputes/provider_outcome.ts";
import { DisputeOutcomeBodySchema } from "../../rails/fiat/dispute_outcomes.ts";
import { newRouter } from "../router.ts";
import { successSchema } from "../envelope.ts";
import { signedCallbackRoutes } from "../signed_callbacks.ts";

export function disputeOutcomeCallbackRoutes() {
  const r = newRouter();
  const { $schema: _draft, ...schema } = z.toJSONSchema(DisputeOutcomeBodySchema);
  r.openAPIRegistry.registerComponent("schemas", "DisputeOutcomeNotification", schema as never);
  signedCallbackRoutes(r, {
    path: "/providers/card/dispute-outcome-callback",
    operationId: "disputeOutcomeCallback",
    summary: {
      simulator: "Signed dispute outcome from the card simulator (won, lost, escalated)",
      live: "Signed dispute outcome from the live card acquirer (won, lost, escalated)",
    },
    description: "No key: the provider's signature over the raw body is the authentication, checked " +
      "before anything in the body (INVALID_WEBHOOK_SIGNATURE). WON resolves the dispute (hold " +
      "released), LOST rejects it (hold debited), ESCALATED escalates it, through the same state table " +
      "as an operator's decision. Applied once: a replay or a repeated outcome is CONFLICT; a dispute " +
      "already closed by an operator, the merchant or the deadline is INVALID_TRANSACTION_STATUS " +
      "(cause DISPUTE_ALREADY_DECIDED) and is logged for review.",
    body: "DisputeOutcomeNotification",
    answer: successSchema(z.object({ disputeId: z.string(), status: z.string() })),
    answerDescription: "Outcome applied",
    source: (simulator) => ({ kind: "payin", rail: "card", simulator }),
    handle: (deps, simulator, request) => handleDisputeOutcomeCallback(deps, { simulator }, request),
  });
  return r;
}
