// `r.openapi(route, handler)` for the busiest routes (pay-in creation): the same document entry and the
// same checks in the same order with the same answers, but the request is checked in one middleware
// instead of one per part (query, headers, media type, body), each a level of Hono's async dispatch, and
// zod parses synchronously. What it does per part follows @hono/zod-openapi 1.6.3 and
// @hono/zod-validator 0.9.1 (src/index.ts of each).
import { type OpenAPIHono, type RouteConfig, type RouteHandler, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "./errors.ts";

type Target = "query" | "header" | "json";

/** zod's answer, parsed synchronously unless the schema has asynchronous checks (the same answer). */
async function safeParse(schema: z.ZodType, value: unknown) {
  try {
    return schema.safeParse(value);
  } catch (err) {
    if (err instanceof z.core.$ZodAsyncError) return await schema.safeParseAsync(value);
    throw err;
  }
}

/** The parsed value, or the router's validation failure (validationHook throws the envelope's error). */
async function validated(c: Context, target: Target, schema: z.ZodType, value: unknown): Promise<void> {
  const result = await safeParse(schema, value);
  validationHook({ ...result, target });
  c.req.addValidatedData(target, result.data as object);
}

/** Query parameters as zod-validator hands them over: a repeated one as an array. */
function queryValue(c: Context): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(c.req.queries()).map(([k, v]) => (v.length === 1 ? [k, v[0]] : [k, v])),
  );
}

/**
 * Headers as zod-validator hands them over: every one, under the schema's spelling of its name. A schema
 * that strips unknown properties (z.object) reads only its own names, so only those are looked up.
 */
function headerValue(c: Context, schema: z.ZodObject, schemaNames: Map<string, string>) {
  if (schema._zod.def.catchall === undefined) {
    const value: Record<string, string> = {};
    for (const [name, schemaName] of schemaNames) {
      const header = c.req.header(name);
      if (header !== undefined) value[schemaName] = header;
    }
    return value;
  }
  return Object.fromEntries(
    Object.entries(c.req.header()).map(([name, value]) => [schemaNames.get(name) ?? name, value]),
  );
}

const JSON_CONTENT_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/** Whether a request without Content-Type still carries bytes (then it is 415 like a wrong type). */
async function hasRequestBody(c: Context): Promise<boolean> {
  const raw = c.req.raw;
  if (raw.body === null) return false;
  if (raw.bodyUsed) return (await c.req.arrayBuffer()).byteLength > 0;
  const body = raw.clone().body;
  if (body === null) return false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      if (value.byteLength > 0) return true;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

type LeanRequest = { query?: z.ZodType; headers?: z.ZodObject; body: z.ZodType };

/** The parts openapiRoute checks, or undefined when the route asks for anything else. */
function leanRequest(request: RouteConfig["request"]): LeanRequest | undefined {
  if (!request || request.params || request.cookies) return undefined;
  const { query, headers, body } = request;
  if (headers !== undefined && !(headers instanceof z.ZodObject)) return undefined;
  const json = body?.content["application/json"];
  if (body?.required !== true || Object.keys(body.content).join() !== "application/json") return undefined;
  if (!json || !("schema" in json) || !(json.schema instanceof z.ZodType)) return undefined;
  return { query, headers, body: json.schema };
}

function checkRequest({ query, headers, body: bodySchema }: LeanRequest): MiddlewareHandler<AppEnv> {
  const headerNames = new Map(Object.keys(headers?.shape ?? {}).map((name) => [name.toLowerCase(), name]));
  return async (c, next) => {
    if (query) await validated(c, "query", query, queryValue(c));
    if (headers) await validated(c, "header", headers, headerValue(c, headers, headerNames));
    const contentType = c.req.header("content-type");
    if (contentType ? !JSON_CONTENT_TYPE.test(contentType) : await hasRequestBody(c)) {
      throw new HTTPException(415, { message: "Unsupported Media Type" });
    }
    let body: unknown = {};
    if (contentType && JSON_MEDIA_TYPE.test(contentType.split(";")[0].trim().toLowerCase())) {
      try {
        body = await c.req.json();
      } catch {
        throw new HTTPException(400, { message: "Malformed JSON in request body" });
      }
    }
    await validated(c, "json", bodySchema, body);
    await next();
  };
}

/**
 * Registers `route` as `r.openapi(route, handler)` would, for a router made by newRouter(), whose
 * validation hook is validationHook. Takes a query, headers and a required JSON body, nothing else.
 */
export function openapiRoute<R extends RouteConfig>(
  r: OpenAPIHono<AppEnv>,
  route: R,
  handler: RouteHandler<R, AppEnv>,
): void {
  const { middleware, hide, ...documented } = route;
  const request = leanRequest(route.request);
  if (!request) {
    throw new Error(
      `${route.method} ${route.path}: openapiRoute takes a query, headers and a JSON body only`,
    );
  }
  if (!hide) r.openAPIRegistry.registerPath(documented);
  const before = middleware === undefined ? [] : [middleware].flat();
  r.on(
    [route.method],
    [route.path.replaceAll(/\/{(.+?)}/g, "/:$1")],
    ...before,
    checkRequest(request),
    handler as MiddlewareHandler<AppEnv>,
  );
}
