// One place turns every failure into the specification's error envelope.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { AppError, type ErrorCode, type FieldProblem } from "../domain/errors.ts";
import { isDatabaseUnavailable } from "../db/postgres.ts";
import type { AppEnv } from "../http/env.ts";
import { jsonAnswer } from "./envelope.ts";

export function errorBody(
  code: ErrorCode,
  message: string,
  status: number,
  extra: Record<string, unknown> = {},
) {
  return { success: false as const, error: { code, message, ...extra }, statusCode: status };
}

export function zodProblems(error: ZodError): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        problems.push({ field: base ? `${base}.${key}` : key, reason: "unknown property" });
      }
    } else {
      problems.push({ field: base || "(root)", reason: issue.message });
    }
  }
  return problems;
}

export function validationError(error: ZodError): AppError {
  const details = zodProblems(error);
  const summary = details.slice(0, 3).map((d) => `${d.field}: ${d.reason}`).join("; ");
  return new AppError("VALIDATION_ERROR", `Validation failed: ${summary}`, { details });
}

/**
 * The zod-openapi defaultHook: a failed validation becomes VALIDATION_ERROR with details, except in the
 * path: a malformed id names nothing that exists, so it is NOT_FOUND like an unknown one; and a rule the
 * specification gives its own code (a refinement with `params.refusedAs`, such as a bulk batch's item
 * limit) answers with that code, whatever else is wrong.
 */
export function validationHook(result: { success: boolean; error?: unknown; target?: string }): void {
  if (result.success) return;
  const error = result.error as ZodError;
  type Coded = { params?: { notFound?: ErrorCode; refusedAs?: ErrorCode }; message: string };
  const issues = error.issues as Coded[];
  const notFound = result.target === "param" && issues.map((i) => i.params?.notFound).find(Boolean);
  if (notFound) throw new AppError(notFound);
  const coded = issues.find((i) => i.params?.refusedAs);
  if (coded) throw new AppError(coded.params!.refusedAs!, coded.message);
  throw validationError(error);
}

/** Seconds a client is asked to wait when the database is away: a restart or failover takes a few. */
const DATABASE_RETRY_AFTER_S = 2;

export function onError(err: Error, c: Context<AppEnv>) {
  if (err instanceof AppError) {
    for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
    const extra: Record<string, unknown> = {};
    if (err.reason) extra.cause = err.reason;
    if (err.details) extra.details = err.details;
    return jsonAnswer(c, errorBody(err.code, err.message, err.status, extra), err.status as 400);
  }
  if (err instanceof HTTPException && err.status < 500) {
    // Hono's JSON validator throws a 400 for an unparsable body.
    const code: ErrorCode = err.status === 400
      ? "BAD_REQUEST"
      : err.status === 404
      ? "NOT_FOUND"
      : "BAD_REQUEST";
    const status = code === "NOT_FOUND" ? 404 : 400;
    return jsonAnswer(c, errorBody(code, err.message || "Malformed request", status), status);
  }
  const requestId = c.get("requestId") ?? "unknown";
  const deps = c.get("deps");
  if (isDatabaseUnavailable(err)) {
    // The database went away (restart, failover): nothing was done, and the client may retry shortly.
    deps?.log.warn("database unavailable", {
      requestId,
      method: c.req.method,
      path: c.req.path,
      error: String(err),
    });
    c.header("Retry-After", String(DATABASE_RETRY_AFTER_S));
    return jsonAnswer(
      c,
      errorBody("SERVICE_UNAVAILABLE", "The database is unavailable; retry shortly", 503, { requestId }),
      503,
    );
  }
  const fields = { requestId, method: c.req.method, path: c.req.path, error: String(err), stack: err?.stack };
  if (deps) deps.log.error("unhandled error", fields);
  else console.error(JSON.stringify({ level: "error", msg: "unhandled error", ...fields }));
  return jsonAnswer(
    c,
    errorBody("INTERNAL_ERROR", "Unexpected server error; quote the requestId to support", 500, {
      requestId,
    }),
    500,
  );
}

/** The envelope for an answer whose status is not its code's own (405 has no code in the catalogue). */
export function sendError(c: Context, code: ErrorCode, message: string, status: number) {
  return jsonAnswer(c, errorBody(code, message, status), status as 400);
}

export function notFound(c: Context) {
  return sendError(c, "NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`, 404);
}
