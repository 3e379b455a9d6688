// Where the card acquirer notifies chargebacks. No key: its signature over the raw body (the same
// X-Provider-Signature as its payment callbacks) is checked first, before anything reads the body.
import { z } from "@hono/zod-openapi";
import { handleChargebackCallback } from "../../domain/disputes/chargeback.ts";
import { ChargebackBodySchema } from "../../rails/fiat/chargebacks.ts";
import { newRouter } from "../router.ts";
import { successSchema } from "../envelope.ts";
import { signedCallbackRoutes } from "../signed_callbacks.ts";

export function chargebackCallbackRoutes() {
  const r = newRouter();
  const { $schema: _draft, ...schema } = z.toJSONSchema(ChargebackBodySchema);
  r.openAPIRegistry.registerComponent("schemas", "ChargebackNotification", schema as never);
  signedCallbackRoutes(r, {
    path: "/providers/card/chargeback-callback",
    operationId: "chargebackCallback",
    summary: {
      simulator: "Signed chargeback notification from the card simulator (opens a dispute)",
      live: "Signed chargeback notification from the live card acquirer (opens a dispute)",
    },
    description: "No key: the provider's signature over the raw body is the authentication, checked " +
      "before anything in the body (INVALID_WEBHOOK_SIGNATURE). One dispute per `caseId`: a repeated " +
      "notification answers the same dispute with `duplicate: true`.",
    body: "ChargebackNotification",
    answer: successSchema(z.object({
      disputeId: z.string(),
      status: z.string(),
      duplicate: z.boolean().openapi({ description: "true: this case was notified before; nothing changed" }),
    })),
    answerDescription: "Dispute opened (or already open)",
    source: (simulator) => ({ kind: "payin", rail: "card", simulator }),
    handle: (deps, simulator, request) => handleChargebackCallback(deps, { simulator }, request),
  });
  return r;
}
