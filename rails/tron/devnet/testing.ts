// Helpers for tests that drive the devnet in-process: JSON calls and signing of
// transaction JSON exactly as a wallet would (re-encoding raw_data, so edited fields count).
import type { Hono } from "hono";
import { fromHex, signHash, toHex } from "../protocol/crypto.ts";
import { type Json, makeSigned, rawFromJson } from "../protocol/transaction.ts";

/** POSTs `body` as JSON to `path` on the app and answers the parsed JSON reply. */
export async function callJson<T = Json>(app: Hono, path: string, body?: unknown): Promise<T> {
  const res = await app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${path} answered ${res.status} with non-JSON: ${text.slice(0, 200)}`);
  }
}

/** Recomputes raw_data_hex and txID from `tx.raw_data` and signs the txID with `privateKey`. */
export function signTransactionJson(tx: Json, privateKey: string): Json {
  const signed = makeSigned(rawFromJson(tx.raw_data as Json));
  return {
    ...tx,
    txID: signed.txID,
    raw_data_hex: toHex(signed.rawBytes),
    signature: [signHash(fromHex(signed.txID), privateKey)],
  };
}
