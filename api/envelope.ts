// The specification's envelopes and the zod schemas that describe them in OpenAPI.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ERROR_CATALOGUE, type ErrorCode } from "../domain/errors.ts";
import { ID_ALPHABET, ID_BODY_LENGTH, type IdPrefix, isWellFormedId } from "../domain/ids.ts";

/**
 * The success envelope. Typed loosely on purpose: zod-openapi's typed responses would need every handler
 * to restate its route's schema; the API tests check the envelopes instead.
 */
// deno-lint-ignore no-explicit-any
export function ok<T>(c: Context, data: T, status: ContentfulStatusCode = 200): any {
  return jsonAnswer(c, { success: true as const, data }, status);
}

const utf8 = new TextEncoder();

/**
 * `c.json` with its Content-Length: the compress middleware (api/app.ts) only knows a body's size from
 * that header, and without it gzipped every answer, a 1 KB pay-in creation included, for a few hundred
 * bytes saved at about a tenth of the creation's CPU. With it, answers under 1 KB go out as they are.
 */
export function jsonAnswer(c: Context, value: unknown, status: ContentfulStatusCode): Response {
  const bytes = utf8.encode(JSON.stringify(value));
  c.header("Content-Type", "application/json");
  c.header("Content-Length", String(bytes.length));
  return c.body(bytes, status);
}

/** A Response built elsewhere (idempotentMoney), handed back loosely typed like `ok`'s, for the same reason. */
// deno-lint-ignore no-explicit-any
export function untyped(response: Response): any {
  return response;
}

export type PageQuery = { page: number; limit: number };

export function pageOf<T>(items: T[], total: number, q: PageQuery) {
  const totalPages = Math.ceil(total / q.limit);
  return {
    items,
    meta: {
      page: q.page,
      limit: q.limit,
      total,
      totalPages,
      hasNext: q.page < totalPages,
      hasPrev: q.page > 1,
    },
  };
}

export const PageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1).openapi({ example: 1 }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
});

export function successSchema<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

export function pagedSchema<T extends z.ZodType>(item: T) {
  return successSchema(z.object({
    items: z.array(item),
    meta: z.object({
      page: z.number().int(),
      limit: z.number().int(),
      total: z.number().int(),
      totalPages: z.number().int(),
      hasNext: z.boolean(),
      hasPrev: z.boolean(),
    }),
  }));
}

export const ErrorSchema = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.enum(Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]]).openapi({
      example: "VALIDATION_ERROR",
      description: "A code of the error catalogue; `cause` may refine it",
    }),
    message: z.string(),
    cause: z.string().optional().openapi({
      description: "finer reason, e.g. INSUFFICIENT_SCOPE under FORBIDDEN",
    }),
    details: z.array(z.object({ field: z.string(), reason: z.string(), line: z.number().int().optional() }))
      .optional(),
    requestId: z.string().optional(),
  }),
  statusCode: z.number().int(),
}).openapi("Error");

/** JSON response entries for createRoute. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

const RETRY_AFTER = {
  "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer" as const } },
};

/** The answers every route can give besides its success: the error envelope with a catalogue code. */
export const errorResponses = {
  400: jsonContent(ErrorSchema, "Bad request or validation error (VALIDATION_ERROR names the field)"),
  401: jsonContent(ErrorSchema, "Missing, unknown or revoked credentials"),
  403: jsonContent(ErrorSchema, "The credentials lack the scope or the mode, or the merchant may not"),
  404: jsonContent(ErrorSchema, "Not found, not owned by the caller, or a malformed id"),
  409: jsonContent(ErrorSchema, "Conflict: a duplicate, or an Idempotency-Key reused with other parameters"),
  429: { ...jsonContent(ErrorSchema, "Rate limit exceeded"), headers: RETRY_AFTER },
  500: jsonContent(ErrorSchema, "Unexpected server error; quote the requestId to support"),
  503: { ...jsonContent(ErrorSchema, "Temporarily unavailable"), headers: RETRY_AFTER },
};

/** Codes every keyed route may answer besides its own: credentials, scope, mode and rate. */
const KEYED_CODES: ErrorCode[] = ["UNAUTHORIZED", "INVALID_API_KEY", "FORBIDDEN", "RATE_LIMIT_EXCEEDED"];

/**
 * errorResponses with, under each status, the catalogue codes this operation may answer there: the
 * rules that depend on state (balance, mode of the key, whitelist, limits) are only knowable from the
 * answer, so the document lists them per operation.
 */
export function errorResponsesWith(codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...codes, ...KEYED_CODES])) {
    const status = ERROR_CATALOGUE[code][0] as number;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  type Entry = ReturnType<typeof jsonContent<typeof ErrorSchema>> & { headers?: typeof RETRY_AFTER };
  const responses: Record<number, Entry> = { ...errorResponses };
  for (const [status, listed] of byStatus) {
    const entry = responses[status] ?? jsonContent(ErrorSchema, "Refused");
    responses[status] = { ...entry, description: `${entry.description}. Codes: ${listed.join(", ")}` };
  }
  return responses;
}

/** Routes that call a card acquirer or mobile money aggregator can also answer its failure. */
export const providerErrorResponses = {
  502: jsonContent(
    ErrorSchema,
    "The payment provider failed (PROVIDER_INITIATE_FAILED, MOMO_PROVIDER_ERROR...)",
  ),
};

/**
 * A URL the gateway is given and later sends a browser or a request to: absolute, http or https only
 * (`javascript:` and `data:` are refused), at most 2 KB.
 */
export const HttpUrl = z.string().trim().max(2048).url().refine(
  // Zod runs the refinement even after url() failed, so it must not throw on a non-URL.
  (value) => URL.canParse(value) && /^https?:$/i.test(new URL(value).protocol),
  "must be an http or https URL",
).openapi({ format: "uri", example: "https://shop.example.com/thanks" });

/**
 * A path id of `prefix`: anything else (a NUL byte, a quote, 10 KB of text) answers NOT_FOUND like an
 * unknown id, before any query (see validationHook).
 */
export function idParam(prefix: IdPrefix, notFoundCode: ErrorCode = "NOT_FOUND") {
  return z.object({
    id: z.string().refine((value) => isWellFormedId(prefix, value), {
      message: `not a ${prefix}_ id`,
      params: { notFound: notFoundCode },
    }).openapi({
      param: { name: "id", in: "path" },
      pattern: `^${prefix}_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`,
      example: `${prefix}_01k${"0".repeat(ID_BODY_LENGTH - 3)}`,
      description: `${prefix}_ followed by ${ID_BODY_LENGTH} characters`,
    }),
  });
}

/** Timestamps as the specification wants them: ISO 8601 UTC with milliseconds. */
export function iso(date: Date | string | null | undefined): string | null {
  if (date === null || date === undefined) return null;
  return (date instanceof Date ? date : new Date(date)).toISOString();
}

/** OpenAPI security of routes that take an API key (X-Api-Key or Authorization: Bearer). */
export const KEY_SECURITY: Array<Record<string, string[]>> = [{ ApiKey: [] }, { Bearer: [] }];

/**
 * OpenAPI security of every /admin/api route: the operator's ADMIN_TOKEN or an operator's session, never a
 * merchant's key.
 */
export const OPERATOR_SECURITY: Array<Record<string, string[]>> = [{ OperatorToken: [] }, {
  OperatorSession: [],
}];
