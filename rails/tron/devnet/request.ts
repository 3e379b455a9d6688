// Request parsing shared by the wallet and control routes: like java-tron's servlets, every
// endpoint takes its parameters from the query string (GET) and/or a JSON body (POST).
import type { Context } from "hono";
import { tryHexAddress, utf8Hex } from "../protocol/crypto.ts";
import type { ReturnCode } from "./executor.ts";
import type { Json } from "../protocol/transaction.ts";

export class BadRequest extends Error {}

export async function paramsOf(c: Context): Promise<Json> {
  const query: Json = { ...c.req.query() };
  if (c.req.method !== "POST") return query;
  const text = await c.req.text();
  if (text.trim() === "") return query;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BadRequest("invalid JSON body");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new BadRequest("JSON body must be an object");
  }
  return { ...query, ...(body as Json) };
}

export const isVisible = (p: Json): boolean => p.visible === true || p.visible === "true";

export function intParam(p: Json, key: string, fallback?: number): number {
  const value = p[key];
  if (value === undefined || value === null || value === "") {
    if (fallback !== undefined) return fallback;
    throw new BadRequest(`${key} is required`);
  }
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new BadRequest(`${key} must be an integer`);
  return n;
}

export function bigintParam(p: Json, key: string): bigint {
  const value = p[key];
  if (value === undefined || value === null || value === "") return 0n;
  try {
    return BigInt(String(value));
  } catch {
    throw new BadRequest(`${key} must be an integer`);
  }
}

export function addressParam(p: Json, key: string): string {
  const hex = tryHexAddress(p[key]);
  if (!hex) throw new BadRequest(`invalid ${key}`);
  return hex;
}

/** A result message: java-tron prints message bytes as hex, or as text when visible=true. */
export function resultMessage(message: string, visible: boolean): string {
  return visible ? message : utf8Hex(message);
}

/** A failed GrpcAPI.Return (result false is the proto default, so it is not printed). */
export function returnError(code: ReturnCode | "CONTRACT_EXE_ERROR", message: string, visible = false): Json {
  return { code, message: resultMessage(message, visible) };
}
