// The routes where card and mobile money providers report outcomes. No key: the provider's signature over
// the raw body is the authentication, checked first (requireProviderSignature). Each callback has a
// simulator's route (sandbox, development) and the live provider's, told apart by the path.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { CallbackSource } from "../domain/providers/callback_auth.ts";
import type { Deps } from "../domain/deps.ts";
import { SIGNATURE_HEADER } from "../rails/fiat/signing.ts";
import { errorResponses, jsonContent, ok } from "./envelope.ts";
import { requireProviderSignature } from "./middleware/provider_auth.ts";
import type { newRouter } from "./router.ts";

// The signature covers the raw bytes, so the router must not parse the body: the document shows the
// provider's zod schema, which the callback parser applies after the signature. A missing or bad
// signature answers the domain's code, so zod only reads the header.
export const SignatureHeaders = z.object({
  [SIGNATURE_HEADER.toLowerCase()]: z.string().optional().openapi({
    description: 't=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>',
    example: `t=1767225600,v1=${"5d41402abc4b2a76".repeat(4)}`,
    pattern: "^t=[0-9]+,v1=[0-9a-f]{64}$",
    param: { required: true },
  }),
});

/** What every signed route says of its authentication. */
export const SIGNED = "No key: the provider's signature over the raw body is the authentication, checked " +
  "before anything in the body (INVALID_WEBHOOK_SIGNATURE).";

/** A request body shown by its component's schema (registered by the caller), never parsed by the router. */
export const callbackBody = (component: string) => ({
  required: true,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${component}` } } },
});

/** The request as the domain's callback parsers read it: headers and the raw body the signature covers. */
export async function signedRequest(c: Context) {
  return { headers: c.req.raw.headers, rawBody: await c.req.text() };
}

export type SignedCallback = {
  /** The live route's path under /providers; the simulator's inserts `/simulator` after `/providers`. */
  path: `/providers/${string}`;
  /** The live route's; the simulator's is `simulator` followed by it capitalised. */
  operationId: string;
  summary: { simulator: string; live: string };
  description: string;
  /** The body's component in the document. */
  body: string;
  answer: z.ZodType;
  answerDescription: string;
  /** Whose signature the route checks. */
  source: (simulator: boolean) => CallbackSource;
  handle: (
    deps: Deps,
    simulator: boolean,
    request: { headers: Headers; rawBody: string },
  ) => Promise<Record<string, unknown>>;
};

/** Registers a callback's simulator route and live route on `r`. */
export function signedCallbackRoutes(r: ReturnType<typeof newRouter>, callback: SignedCallback): void {
  const { operationId } = callback;
  for (const simulator of [true, false]) {
    r.openapi(
      createRoute({
        method: "post",
        path: simulator ? callback.path.replace("/providers/", "/providers/simulator/") : callback.path,
        tags: ["Providers"],
        summary: simulator ? callback.summary.simulator : callback.summary.live,
        operationId: simulator
          ? `simulator${operationId[0].toUpperCase()}${operationId.slice(1)}`
          : operationId,
        description: callback.description,
        security: [],
        middleware: [requireProviderSignature(() => callback.source(simulator))],
        request: { headers: SignatureHeaders, body: callbackBody(callback.body) },
        responses: { 200: jsonContent(callback.answer, callback.answerDescription), ...errorResponses },
      }),
      async (c) => ok(c, await callback.handle(c.get("deps"), simulator, await signedRequest(c))),
    );
  }
}
