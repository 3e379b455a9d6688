// The low-level side of the TRON client: one POST to the node, its failure modes as TronNodeError,
// and the checking of an answer against a schema.
import { z } from "zod";
import { fromHex } from "./protocol/crypto.ts";

export type TronNodeErrorKind = "timeout" | "http" | "malformed" | "node";

export class TronNodeError extends Error {
  override name = "TronNodeError";
  constructor(
    readonly kind: TronNodeErrorKind,
    message: string,
    readonly method?: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface TronClientOptions {
  apiUrl: string;
  apiKey?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** A POST to the node that returns its parsed JSON answer or throws a TronNodeError. */
export function createPost(
  options: TronClientOptions,
): (method: string, body: Record<string, unknown>) => Promise<unknown> {
  const base = options.apiUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? 10_000;

  return async function post(method: string, body: Record<string, unknown>): Promise<unknown> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (options.apiKey) headers["TRON-PRO-API-KEY"] = options.apiKey;
    const signal = AbortSignal.timeout(timeoutMs);
    let text: string;
    let status: number;
    try {
      const res = await doFetch(`${base}/${method}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal,
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      if (signal.aborted || (err instanceof DOMException && err.name === "TimeoutError")) {
        throw new TronNodeError("timeout", `${method}: no answer within ${timeoutMs} ms`, method, undefined, {
          cause: err,
        });
      }
      throw new TronNodeError("http", `${method}: request failed: ${errorText(err)}`, method, undefined, {
        cause: err,
      });
    }
    if (status < 200 || status > 299) {
      throw new TronNodeError("http", `${method}: HTTP ${status}: ${text.slice(0, 200)}`, method, status);
    }
    let json: unknown;
    try {
      json = parseJson(text);
    } catch {
      throw new TronNodeError(
        "malformed",
        `${method}: answer is not JSON: ${text.slice(0, 100)}`,
        method,
        status,
      );
    }
    // java-tron reports a bad request or an internal failure as HTTP 200 with an "Error" field.
    if (json && typeof json === "object" && !Array.isArray(json) && "Error" in json) {
      throw new TronNodeError(
        "node",
        `${method}: ${String((json as { Error: unknown }).Error)}`,
        method,
        status,
      );
    }
    return json;
  };
}

/** The answer as `schema` reads it; the first mismatch becomes a "malformed" TronNodeError. */
export function parse<S extends z.ZodType>(method: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw malformed(method, `unexpected answer at ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return parsed.data;
}

/** JSON.parse that keeps integers beyond 2^53 exact as bigints (balances in sun can exceed it). */
function parseJson(text: string): unknown {
  // The reviver slows parsing down, so it only runs when a 16+ digit number token may be present.
  if (!/[:,[]\s*-?\d{16}/.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value, context?: { source?: string }) => {
    if (typeof value === "number" && !Number.isSafeInteger(value) && context?.source !== undefined) {
      if (/^-?\d+$/.test(context.source)) return BigInt(context.source);
    }
    return value;
  });
}

export function malformed(method: string, message: string): TronNodeError {
  return new TronNodeError("malformed", `${method}: ${message}`, method);
}

export function nodeReturnError(method: string, ret: { code?: string; message?: string }): TronNodeError {
  const message = ret.message !== undefined ? decodeHexText(ret.message) : "no message";
  return new TronNodeError("node", `${method}: ${ret.code ?? "FAILED"}: ${message}`, method);
}

/** java-tron prints Return.message bytes as hex; show them as text when they are. */
export function decodeHexText(value: string): string {
  if (!/^([0-9a-fA-F]{2})+$/.test(value)) return value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(fromHex(value));
  } catch {
    return value;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
