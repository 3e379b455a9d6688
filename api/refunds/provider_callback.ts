// The card acquirer's late answer about a refund: POST /v1/providers/[simulator/]card/refund-callback,
// signed like the acquirer's pay-in callbacks (checked before anything reads the body).
import { z } from "@hono/zod-openapi";
import { handleCardRefundCallback } from "../../domain/refunds/send.ts";
import { newRouter } from "../router.ts";
import { successSchema } from "../envelope.ts";
import { signedCallbackRoutes } from "../signed_callbacks.ts";

export function refundCallbackRoutes() {
  const r = newRouter();
  signedCallbackRoutes(r, {
    path: "/providers/card/refund-callback",
    operationId: "cardRefundCallback",
    summary: {
      simulator: "Signed outcome of a card refund from the simulator (sandbox)",
      live: "Signed outcome of a card refund from the live acquirer",
    },
    description: "No key: the acquirer's signature over the raw body is the authentication, checked " +
      "before anything in the body (INVALID_WEBHOOK_SIGNATURE). A replayed notification answers " +
      "CONFLICT and changes nothing.",
    body: "ProviderCallback",
    answer: successSchema(z.object({ refundId: z.string(), status: z.string() })),
    answerDescription: "Outcome applied",
    source: (simulator) => ({ kind: "payin", rail: "card", simulator }),
    handle: (deps, simulator, request) => handleCardRefundCallback(deps, { simulator }, request),
  });
  return r;
}
