// The specification's envelopes and the zod schemas that describe them in OpenAPI.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The success envelope. Typed loosely on purpose: zod-openapi's typed responses would need every handler
 * to restate its route's schema; the API tests check the envelopes instead.
 */
// deno-lint-ignore no-explicit-any
export function ok<T>(c: Context, data: T, status: ContentfulStatusCode = 200): any {
  return c.json({ success: true as const, data }, status);
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
    code: z.string().openapi({ example: "VALIDATION_ERROR" }),
    message: z.string(),
    cause: z.string().optional().openapi({
      description: "finer reason, e.g. INSUFFICIENT_SCOPE under FORBIDDEN",
    }),
    details: z.array(z.object({ field: z.string(), reason: z.string() })).optional(),
    requestId: z.string().optional(),
  }),
  statusCode: z.number().int(),
}).openapi("Error");

/** JSON response entries for createRoute. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

export const errorResponses = {
  400: jsonContent(ErrorSchema, "Bad request or validation error"),
  401: jsonContent(ErrorSchema, "Missing, unknown or revoked API key"),
  403: jsonContent(ErrorSchema, "Key lacks the scope"),
  404: jsonContent(ErrorSchema, "Not found or not owned by the merchant"),
  429: jsonContent(ErrorSchema, "Rate limit exceeded"),
};

/** Timestamps as the specification wants them: ISO 8601 UTC with milliseconds. */
export function iso(date: Date | string | null | undefined): string | null {
  if (date === null || date === undefined) return null;
  return (date instanceof Date ? date : new Date(date)).toISOString();
}

/** OpenAPI security of routes that take an API key (X-Api-Key or Authorization: Bearer). */
export const KEY_SECURITY: Array<Record<string, string[]>> = [{ ApiKey: [] }, { Bearer: [] }];
