// Where the card acquirer announces a dispute's outcome (won, lost, escalated). No key: its signature
// over the raw body (X-Provider-Signature, as on its chargeback notifications) is checked first.
import { createRoute, z } from "@hono/zod-openapi";
import { handleDisputeOutcomeCallback } from "../../domain/disputes/provider_outcome.ts";
import { DisputeOutcomeBodySchema } from "../../rails/fiat/dispute_outcomes.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, successSchema } from "../envelope.ts";
import { requireProviderSignature } from "../middleware/provider_auth.ts";
import { SignatureHeaders } from "./chargeback_callback.ts";

const Answer = successSchema(z.object({ disputeId: z.string(), status: z.string() }));

export function disputeOutcomeCallbackRoutes() {
  const r = newRouter();
  const { $schema: _draft, ...schema } = z.toJSONSchema(DisputeOutcomeBodySchema);
  r.openAPIRegistry.registerComponent("schemas", "DisputeOutcomeNotification", schema as never);
  for (const simulator of [true, false]) {
    r.openapi(
      createRoute({
        method: "post",
        path: simulator
          ? "/providers/simulator/card/dispute-outcome-callback"
          : "/providers/card/dispute-outcome-callback",
        tags: ["Providers"],
        summary: simulator
          ? "Signed dispute outcome from the card simulator (won, lost, escalated)"
          : "Signed dispute outcome from the live card acquirer (won, lost, escalated)",
        operationId: simulator ? "simulatorDisputeOutcomeCallback" : "disputeOutcomeCallback",
        description: "No key: the provider's signature over the raw body is the authentication, checked " +
          "before anything in the body (INVALID_WEBHOOK_SIGNATURE). WON resolves the dispute (hold " +
          "released), LOST rejects it (hold debited), ESCALATED escalates it, through the same state table " +
          "as an operator's decision. Applied once: a replay or a repeated outcome is CONFLICT; a dispute " +
          "already closed by an operator, the merchant or the deadline is INVALID_TRANSACTION_STATUS " +
          "(cause DISPUTE_ALREADY_DECIDED) and is logged for review.",
        security: [],
        middleware: [requireProviderSignature(() => ({ kind: "payin", rail: "card", simulator }))],
        request: {
          headers: SignatureHeaders,
          body: {
            required: true,
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/DisputeOutcomeNotification" } },
            },
          },
        },
        responses: { 200: jsonContent(Answer, "Outcome applied"), ...errorResponses },
      }),
      async (c) => {
        const rawBody = await c.req.text();
        return ok(
          c,
          await handleDisputeOutcomeCallback(c.get("deps"), { simulator }, {
            headers: c.req.raw.headers,
            rawBody,
          }),
        );
      },
    );
  }
  return r;
}
