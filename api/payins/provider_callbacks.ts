// Where card and mobile money providers report outcomes. No key: the provider's signature over the raw
// body is the authentication, checked first (requireProviderSignature), like a key on other routes.
import { createRoute, z } from "@hono/zod-openapi";
import { handleDisbursementCallback } from "../../domain/fiat_out/disburse.ts";
import { handleProviderCallback } from "../../domain/payins/settle_fiat.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, successSchema } from "../envelope.ts";
import { requireProviderSignature } from "../middleware/provider_auth.ts";
import { CallbackBodySchema } from "../../rails/fiat/signing.ts";
import {
  callbackBody,
  SignatureHeaders,
  SIGNED,
  signedCallbackRoutes,
  signedRequest,
} from "../signed_callbacks.ts";

const RAILS = ["card", "momo"] as const;
const railOf = (value: string | undefined) => RAILS.find((r) => r === value);

/** The signature check of each pay-in route, naming its provider from the path (undefined: a path refused). */
const payinSignature = (simulator: boolean) =>
  requireProviderSignature((c) => {
    const rail = railOf(c.req.param("rail"));
    if (!rail || (simulator && c.req.param("source") !== "simulator")) return undefined;
    return { kind: "payin", rail, simulator };
  });

export function providerRoutes() {
  const r = newRouter();
  // rails/ uses plain zod: its own JSON Schema export, without the draft marker OpenAPI does not want.
  const { $schema: _draft, ...callbackSchema } = z.toJSONSchema(CallbackBodySchema);
  r.openAPIRegistry.registerComponent("schemas", "ProviderCallback", callbackSchema as never);
  // The simulator's route (sandbox, development) and the live provider's: the same outcome, told apart by
  // the path, which names the provider whose signature is checked.
  for (const simulator of [true, false]) {
    r.openapi(
      createRoute({
        method: "post",
        path: simulator ? "/providers/{source}/{rail}/callback" : "/providers/{rail}/callback",
        tags: ["Providers"],
        summary: simulator
          ? "Signed outcome from a card acquirer or mobile money aggregator"
          : "Signed outcome from the live card acquirer or mobile money aggregator",
        operationId: simulator ? "simulatorProviderCallback" : "providerCallback",
        description: simulator ? SIGNED : SIGNED + " With FIAT_PROVIDER=cinetpay or paydunya " +
          "the body is that aggregator's notification form (CinetPay's x-token header, PayDunya's " +
          "data[hash]), and the outcome is re-read with the aggregator's status call before anything moves.",
        security: [],
        middleware: [payinSignature(simulator)],
        request: {
          params: simulator
            ? z.object({ source: z.literal("simulator"), rail: z.enum(["card", "momo"]) })
            : z.object({ rail: z.enum(["card", "momo"]) }),
          headers: SignatureHeaders,
          body: callbackBody("ProviderCallback"),
        },
        responses: {
          200: jsonContent(
            successSchema(z.object({ payinId: z.string(), status: z.string() })),
            "Outcome applied",
          ),
          ...errorResponses,
        },
      }),
      async (c) => {
        const source = { rail: c.req.valid("param").rail, simulator };
        return ok(c, await handleProviderCallback(c.get("deps"), source, await signedRequest(c)));
      },
    );
  }
  // CinetPay checks that a notify_url is up with a GET carrying nothing, and wants 200 (its notification
  // documentation); nothing is read, nothing moves.
  for (const path of ["/providers/{rail}/callback", "/providers/momo/disbursement-callback"]) {
    const isPayin = path.includes("{rail}");
    r.openapi(
      createRoute({
        method: "get",
        path,
        tags: ["Providers"],
        summary: "Availability check of a live callback URL (CinetPay pings notify_url with GET)",
        operationId: isPayin ? "providerCallbackPing" : "disbursementCallbackPing",
        description: "No key, no body: answers 200 so an aggregator can check the URL it was given. " +
          "Outcomes only ever arrive by POST.",
        security: [],
        ...(isPayin ? { request: { params: z.object({ rail: z.enum(["card", "momo"]) }) } } : {}),
        responses: {
          200: jsonContent(successSchema(z.object({ ok: z.literal(true) })), "The callback URL is up"),
          ...errorResponses,
        },
      }),
      (c) => ok(c, { ok: true as const }),
    );
  }
  signedCallbackRoutes(r, {
    path: "/providers/momo/disbursement-callback",
    operationId: "disbursementCallback",
    summary: {
      simulator: "Signed outcome of a mobile money disbursement from the simulator (sandbox)",
      live: "Signed outcome of a mobile money disbursement from the live aggregator",
    },
    description: SIGNED + " A replayed notification answers CONFLICT and changes nothing.",
    body: "ProviderCallback",
    answer: successSchema(z.object({ disbursementId: z.string(), status: z.string() })),
    answerDescription: "Outcome applied",
    source: (simulator) => ({ kind: "disbursement", simulator }),
    handle: (deps, simulator, request) => handleDisbursementCallback(deps, { simulator }, request),
  });
  return r;
}
