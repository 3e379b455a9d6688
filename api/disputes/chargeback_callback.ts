// Where the card acquirer notifies chargebacks. No key: its signature over the raw body (the same
// X-Provider-Signature as its payment callbacks) is checked first, before anything reads the body.
import { createRoute, z } from "@hono/zod-openapi";
import { handleChargebackCallback } from "../../domain/disputes/chargeback.ts";
import { ChargebackBodySchema } from "../../rails/fiat/chargebacks.ts";
import { SIGNATURE_HEADER } from "../../rails/fiat/signing.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, successSchema } from "../envelope.ts";
import { requireProviderSignature } from "../middleware/provider_auth.ts";

export const SignatureHeaders = z.object({
  [SIGNATURE_HEADER.toLowerCase()]: z.string().optional().openapi({
    description: 't=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>',
    pattern: "^t=[0-9]+,v1=[0-9a-f]{64}$",
    param: { required: true },
  }),
});

const Answer = successSchema(z.object({
  disputeId: z.string(),
  status: z.string(),
  duplicate: z.boolean().openapi({ description: "true: this case was notified before; nothing changed" }),
}));

export function chargebackCallbackRoutes() {
  const r = newRouter();
  const { $schema: _draft, ...schema } = z.toJSONSchema(ChargebackBodySchema);
  r.openAPIRegistry.registerComponent("schemas", "ChargebackNotification", schema as never);
  for (const simulator of [true, false]) {
    r.openapi(
      createRoute({
        method: "post",
        path: simulator
          ? "/providers/simulator/card/chargeback-callback"
          : "/providers/card/chargeback-callback",
        tags: ["Providers"],
        summary: simulator
          ? "Signed chargeback notification from the card simulator (opens a dispute)"
          : "Signed chargeback notification from the live card acquirer (opens a dispute)",
        operationId: simulator ? "simulatorChargebackCallback" : "chargebackCallback",
        description: "No key: the provider's signature over the raw body is the authentication, checked " +
          "before anything in the body (INVALID_WEBHOOK_SIGNATURE). One dispute per `caseId`: a repeated " +
          "notification answers the same dispute with `duplicate: true`.",
        security: [],
        middleware: [requireProviderSignature(() => ({ kind: "payin", rail: "card", simulator }))],
        request: {
          headers: SignatureHeaders,
          body: {
            required: true,
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/ChargebackNotification" } },
            },
          },
        },
        responses: { 200: jsonContent(Answer, "Dispute opened (or already open)"), ...errorResponses },
      }),
      async (c) => {
        const rawBody = await c.req.text();
        return ok(
          c,
          await handleChargebackCallback(c.get("deps"), { simulator }, {
            headers: c.req.raw.headers,
            rawBody,
          }),
        );
      },
    );
  }
  return r;
}
