// Sending one generated case (tests/openapi_fuzz.ts validCases) to a running server: JSON as JSON, a
// multipart upload as a file of the part's declared media type.
import type { ValidCase } from "../openapi_fuzz.ts";

/** A 1x1 PNG: the smallest file an `image/png` part can carry. */
const TINY_PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
  (ch) => ch.charCodeAt(0),
);

/** A one-page PDF in plain ASCII (so it crosses Prism's UTF-8 re-encoding intact). */
const TINY_PDF = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n" +
  "2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj\n" +
  "trailer<</Root 1 0 R>>\n%%EOF\n";

/** A file of the declared part type (a CSV of one product, a tiny PNG or PDF), or a few bytes of none. */
function filePart(partType: string | undefined): File {
  if (partType === "text/csv") return new File(["name,price\nTea,1000\n"], "items.csv", { type: partType });
  if (partType === "image/png") return new File([TINY_PNG], "a.png", { type: partType });
  if (partType === "application/pdf") return new File([TINY_PDF], "a.pdf", { type: partType });
  return new File(["GIF89a"], "a.bin", { type: partType ?? "application/octet-stream" });
}

/** Sends `c` to a running server at `baseUrl` (the contract run sends it through the validating proxy). */
export function sendCase(baseUrl: string, c: ValidCase, path: string, headers: Record<string, string>) {
  const query = new URLSearchParams(c.query).toString();
  const init: RequestInit & { headers: Record<string, string> } = {
    method: c.method,
    headers: { ...c.headers, ...headers },
  };
  if (c.body?.contentType === "multipart/form-data") {
    const form = new FormData();
    form.set("file", filePart(c.body.partType));
    init.body = form;
  } else if (c.body) {
    init.headers["content-type"] = c.body.contentType;
    init.body = typeof c.body.value === "string" ? c.body.value : JSON.stringify(c.body.value);
  }
  return fetch(`${baseUrl}${path}${query ? `?${query}` : ""}`, init);
}
