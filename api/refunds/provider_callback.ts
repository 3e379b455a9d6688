// The card acquirer's late answer about a refund: POST /v1/providers/[simulator/]card/refund-callback,
// signed like the acquirer's pay-in callbacks (checked before anything reads the body).
import { createRoute, z } from "@hono/zod-openapi";
import { handleCardRefundCallback } from "../../domain/refunds/send.ts";
import { SIGNATURE_HEADER } from "../../rails/fiat/signing.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, successSchema } from "../envelope.ts";
import { requireProviderSignature } from "../middleware/provider_auth.ts";

const SignatureHeaders = z.object({
  [SIGNATURE_HEADER.toLowerCase()]: z.string().optional().openapi({
    description: 't=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>',
    pattern: "^t=[0-9]+,v1=[0-9a-f]{64}$",
    param: { required: true },
  }),
});

export function refundCallbackRoutes() {
  const r = newRouter();
  for (const simulator of [true, false]) {
    r.openapi(
      createRoute({
        method: "post",
        path: simulator ? "/providers/simulator/card/refund-callback" : "/providers/card/refund-callback",
        tags: ["Providers"],
        summary: simulator
          ? "Signed outcome of a card refund from the simulator (sandbox)"
          : "Signed outcome of a card refund from the live acquirer",
        operationId: simulator ? "simulatorCardRefundCallback" : "cardRefundCallback",
        description: "No key: the acquirer's signature over the raw body is the authentication, checked " +
          "before anything in the body (INVALID_WEBHOOK_SIGNATURE). A replayed notification answers " +
          "CONFLICT and changes nothing.",
        security: [],
        middleware: [requireProviderSignature(() => ({ kind: "payin", rail: "card", simulator }))],
        request: {
          headers: SignatureHeaders,
          body: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/ProviderCallback" } } },
          },
        },
        responses: {
          200: jsonContent(
            successSchema(z.object({ refundId: z.string(), status: z.string() })),
            "Outcome applied",
          ),
          ...errorResponses,
        },
      }),
      async (c) => {
        const rawBody = await c.req.text();
        return ok(
          c,
          await handleCardRefundCallback(c.get("deps"), { simulator }, {
            headers: c.req.raw.headers,
            rawBody,
          }),
        );
      },
    );
  }
  return r;
}
