// The edge check every request passes before any route: text PostgreSQL cannot store (a NUL character,
// a lone UTF-16 surrogate) in the query string, the JSON body (keys and values at any depth) or a header
// that reaches storage is a VALIDATION_ERROR naming the field. Done once here rather than per route, so a
// route added tomorrow is covered without thinking about it. On an authenticated route it runs right
// after the authentication middleware instead (`authenticatesFirst`), so a caller without the right
// credentials gets 401/403 whatever its body holds and learns nothing of the route's shape.
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { AppError, type FieldProblem } from "../../domain/errors.ts";
import type { AppEnv } from "../../http/env.ts";

/** Headers whose value is stored, logged or echoed back. */
const STORED_HEADERS = ["idempotency-key", "x-request-id", "x-sandbox"];

/** Deeper than any body the API takes; deeper ones would only stress recursive code further on. */
export const MAX_JSON_DEPTH = 32;

/** No NUL character (text and jsonb refuse it) and no lone surrogate (not encodable as UTF-8). */
export function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && text.isWellFormed();
}

/** A field name safe to print back: the unstorable characters written as \uXXXX escapes. */
function printable(name: string): string {
  return name.replace(
    // deno-lint-ignore no-control-regex -- control characters are exactly what is escaped here
    /[\u0000-\u001f]|[\ud800-\udfff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * The fields of a parsed JSON value holding unstorable text, walked without recursion (a 1 MB body can
 * nest half a million levels). Also reports nesting deeper than MAX_JSON_DEPTH.
 */
export function unstorableFields(root: unknown, limit = 10): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: "", depth: 0 }];
  while (stack.length > 0 && problems.length < limit) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === "string") {
      if (!isStorableText(value)) {
        problems.push({ field: path || "(root)", reason: "contains a NUL character or a lone surrogate" });
      }
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_JSON_DEPTH) {
      problems.push({ field: path || "(root)", reason: `nested deeper than ${MAX_JSON_DEPTH} levels` });
      continue;
    }
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value);
    for (const [key, child] of entries) {
      const childPath = path ? `${path}.${printable(key)}` : printable(key);
      if (!isStorableText(key)) {
        problems.push({
          field: childPath,
          reason: "property name contains a NUL character or a lone surrogate",
        });
      }
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return problems;
}

function refuse(problems: FieldProblem[]): never {
  const summary = problems.slice(0, 3).map((p) => `${p.field}: ${p.reason}`).join("; ");
  throw new AppError("VALIDATION_ERROR", `Validation failed: ${summary}`, { details: problems });
}

function isJson(contentType: string | undefined): boolean {
  return /^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType?.trim() ?? "");
}

const OPEN_BRACE = "{".charCodeAt(0);
const OPEN_BRACKET = "[".charCodeAt(0);

/**
 * Whether JSON text can only parse to storable strings no deeper than MAX_JSON_DEPTH, decided without
 * parsing it: a NUL character or a lone surrogate can only come from a `\u` escape (JSON refuses raw
 * control characters, and the text is well-formed), and no value nests deeper than the text has brackets.
 * False means "look closer", not "refuse".
 */
export function plainlyStorableJson(text: string): boolean {
  if (text.includes("\\u") || !text.isWellFormed()) return false;
  let brackets = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code === OPEN_BRACE || code === OPEN_BRACKET) && ++brackets > MAX_JSON_DEPTH) return false;
  }
  return true;
}

/** Refuses unstorable text in the query, the stored headers and a JSON body (see the file's comment). */
export async function checkStorableInput(c: Context): Promise<void> {
  const problems: FieldProblem[] = [];
  // Without a "?" there are no query parameters: the URL is not parsed for nothing.
  if (c.req.url.includes("?")) {
    for (const [key, value] of new URL(c.req.url).searchParams) {
      if (!isStorableText(key) || !isStorableText(value)) {
        problems.push({
          field: `query.${printable(key)}`,
          reason: "contains a NUL character or a lone surrogate",
        });
      }
    }
  }
  for (const name of STORED_HEADERS) {
    const value = c.req.header(name);
    if (value !== undefined && !isStorableText(value)) {
      problems.push({ field: `header.${name}`, reason: "contains a NUL character" });
    }
  }
  if (problems.length > 0) refuse(problems);
  if (c.req.method !== "GET" && c.req.method !== "HEAD" && isJson(c.req.header("content-type"))) {
    // Hono caches the text, so the route's own JSON validator parses the same bytes afterwards.
    const text = await c.req.text();
    if (!plainlyStorableJson(text)) {
      let parsed: unknown;
      try {
        parsed = text === "" ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined; // the route's validator answers malformed JSON with its own envelope
      }
      const found = unstorableFields(parsed);
      if (found.length > 0) refuse(found);
    }
  }
}

/** The authentication middlewares (`requireKey`, `requireAdmin`): each runs the input check itself. */
const AUTHENTICATING = new WeakSet<object>();

/** Marks an authentication middleware, which must call `checkStorableInput` once it has authenticated. */
export function authenticatesFirst<T extends MiddlewareHandler>(middleware: T): T {
  AUTHENTICATING.add(middleware);
  return middleware;
}

/**
 * Whether the edge checks the input now: a route matched and it does not authenticate. An authenticated
 * route checks it after authentication; with no route the answer is 404 or 405 whatever the input.
 */
function checkedAtEdge(c: Context): boolean {
  let routed = false;
  for (const route of matchedRoutes(c)) {
    if (AUTHENTICATING.has(route.handler)) return false;
    // App-wide middleware is registered for every method; a route names its own.
    if (route.method !== "ALL") routed = true;
  }
  return routed;
}

/** The edge middleware: the check now, unless the route's authentication runs it afterwards. */
export const rejectUnstorableInput: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (checkedAtEdge(c)) await checkStorableInput(c);
  await next();
};
