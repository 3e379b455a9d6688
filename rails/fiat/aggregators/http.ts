// What both live aggregators share: one HTTP call with a deadline whose answer must be JSON (an HTML error
// page, a truncated body, a timeout or a refused connection all mean "no usable answer": the caller treats
// it as ProviderError("unavailable") and asks again later by reference), constant-time comparison of
// signatures, and the Burkina Faso numbering the adapters translate to.
import { nationalNumber } from "../operators.ts";
import { ProviderError } from "../provider.ts";
import type { AggregatorCallStats } from "./call_stats.ts";

export type AggregatorHttp = {
  /** Outgoing HTTP; tests point it at the in-process simulators exactly as production points at the host. */
  fetch: typeof fetch;
  /** Deadline of one call; an aggregator slower than this is "unavailable" for this attempt. */
  timeoutMs: number;
  /** Where each call's outcome and latency are counted (/metrics, /health), under the aggregator's name. */
  monitor?: { calls: AggregatorCallStats; aggregator: string };
};

/**
 * Calls `url` and answers its JSON body with the HTTP status; anything else throws "unavailable". `kind`
 * names the call in the monitor's counts (a fixed label, never an id).
 */
export async function callJson(
  http: AggregatorHttp,
  url: string,
  init: RequestInit,
  kind = "call",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const started = performance.now();
  let ok = false;
  try {
    const answer = await callJsonOnce(http, url, init);
    ok = true;
    return answer;
  } finally {
    http.monitor?.calls.record(http.monitor.aggregator, kind, ok, (performance.now() - started) / 1000);
  }
}

async function callJsonOnce(
  http: AggregatorHttp,
  url: string,
  init: RequestInit,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await http.fetch(url, { ...init, signal: AbortSignal.timeout(http.timeoutMs) });
  } catch (err) {
    throw new ProviderError("unavailable", `no answer from ${new URL(url).host}: ${String(err)}`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    throw new ProviderError("unavailable", `answer cut short: ${String(err)}`);
  }
  if (response.status >= 500 || response.status === 429) {
    throw new ProviderError("unavailable", `aggregator answered HTTP ${response.status}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ProviderError("unavailable", `aggregator answered HTTP ${response.status} without JSON`);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ProviderError("unavailable", "aggregator answered JSON that is not an object");
  }
  return { status: response.status, body: body as Record<string, unknown> };
}

export function form(fields: Record<string, string>): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(fields).toString(),
  };
}

export function json(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", ...headers },
    body: JSON.stringify(body),
  };
}

const encoder = new TextEncoder();

export function toHex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function hmacSha256Hex(secret: string, data: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return toHex(await crypto.subtle.sign("HMAC", key, encoder.encode(data)));
}

export async function sha512Hex(data: string): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-512", encoder.encode(data)));
}

/** Equal strings, compared without an early exit (signatures must not leak by timing). */
export function sameText(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** The 8 national digits of a +226 number (aggregators want the number without its country code). */
export function burkinaDigits(phone: string): string {
  const digits = nationalNumber(phone);
  if (!digits) throw new ProviderError("initiate_failed", "not a Burkina Faso mobile number");
  return digits;
}

/** A field of an aggregator's answer as text ("" when absent); numbers are rendered as they came. */
export function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return "";
}

/** A whole XOF amount as the aggregator wrote it ("5000", 5000, "5000.00"), or undefined. */
export function wholeXof(value: unknown): string | undefined {
  const t = text(value).trim();
  const m = /^(\d{1,15})(?:\.0+)?$/.exec(t);
  return m ? String(BigInt(m[1])) : undefined;
}

/** A callback's form body, refused when it is not one (NUL bytes and oversized bodies included). */
export function parseForm(rawBody: string): URLSearchParams {
  if (rawBody.length > 20_000 || rawBody.includes("\u0000")) {
    throw new ProviderError("bad_callback", "callback body refused");
  }
  return new URLSearchParams(rawBody);
}
