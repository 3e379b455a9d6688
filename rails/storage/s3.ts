// Objects in an S3-compatible bucket (AWS, MinIO, R2...), path-style URLs signed with AWS Signature V4.
// Chosen by STORAGE_BACKEND=s3; never called in tests (the network is closed there).
import { sha256 } from "@noble/hashes/sha2.js";
import { hmac } from "@noble/hashes/hmac.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { ObjectStorage } from "./types.ts";

type S3Config = {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
};

const utf8 = new TextEncoder();

function signedHeaders(
  c: S3Config,
  method: string,
  url: URL,
  payloadHash: string,
  extra: Record<string, string>,
  now = new Date(),
) {
  const amzDate = now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    host: url.host,
    "x-amz-content-sha256": payloadHash,
    "x-amz-date": amzDate,
    ...extra,
  };
  const names = Object.keys(headers).map((h) => h.toLowerCase()).sort();
  const canonical = [
    method,
    url.pathname,
    "",
    names.map((n) => `${n}:${headers[n].trim()}\n`).join(""),
    names.join(";"),
    payloadHash,
  ].join("\n");
  const scope = `${day}/${c.region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, bytesToHex(sha256(utf8.encode(canonical)))].join("\n");
  let key: Uint8Array = utf8.encode(`AWS4${c.secretAccessKey}`);
  for (const part of [day, c.region, "s3", "aws4_request"]) key = hmac(sha256, key, utf8.encode(part));
  const signature = bytesToHex(hmac(sha256, key, utf8.encode(toSign)));
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${c.accessKeyId}/${scope}, SignedHeaders=${
      names.join(";")
    }, Signature=${signature}`,
  };
}

export function s3Storage(c: S3Config, fetcher: typeof fetch = fetch): ObjectStorage {
  const urlOf = (key: string) =>
    new URL(`${c.endpoint}/${encodeURIComponent(c.bucket)}/${encodeURIComponent(key)}`);
  return {
    async put(key, bytes, contentType) {
      const url = urlOf(key);
      const headers = signedHeaders(c, "PUT", url, bytesToHex(sha256(bytes)), {
        "content-type": contentType,
      });
      const res = await fetcher(url, { method: "PUT", headers, body: bytes as Uint8Array<ArrayBuffer> });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`storage PUT answered ${res.status}`);
    },
    async get(key) {
      const url = urlOf(key);
      const res = await fetcher(url, {
        headers: signedHeaders(c, "GET", url, bytesToHex(sha256(new Uint8Array())), {}),
      });
      if (res.status === 404) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) throw new Error(`storage GET answered ${res.status}`);
      return {
        bytes: new Uint8Array(await res.arrayBuffer()),
        contentType: res.headers.get("content-type") ?? "application/octet-stream",
      };
    },
  };
}
