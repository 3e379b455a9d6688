// KYB documents are judged by their bytes, never by the file name or the Content-Type sent: a PDF must
// begin with `%PDF-`, end with `%%EOF` and carry no active content (JavaScript, launch actions, embedded
// files); an image must be a PNG, JPEG or WebP that decodes, and is re-encoded without its metadata by the
// paylink image cleaner (dimensions checked before decoding: no decompression bombs). Anything else, an
// executable named `.pdf` included, is VALIDATION_ERROR. Stored content-addressed behind rails/storage.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { AppError } from "../errors.ts";
import { cleanImage, sniffKind } from "../paylinks/images.ts";

export const DOCUMENT_KINDS = [
  "REGISTRATION_CERTIFICATE",
  "PROOF_OF_ADDRESS",
  "REPRESENTATIVE_ID",
  "TAX_CERTIFICATE",
  "OTHER",
] as const;
export type DocumentKind = typeof DOCUMENT_KINDS[number];

/** A merchant's review holds at most this many documents. */
export const MAX_DOCUMENTS = 20;

/** PDF names that run something when the file is opened; a business document needs none. */
const ACTIVE_PDF = /\/(JavaScript|JS|Launch|EmbeddedFile|EmbeddedFiles|RichMedia|XFA)\b/;

function refuse(reason: string): never {
  throw new AppError("VALIDATION_ERROR", `The document is not accepted: ${reason}`, {
    details: [{ field: "file", reason }],
  });
}

export type CheckedDocument = { key: string; bytes: Uint8Array; contentType: string };

/** The document as it will be stored, or VALIDATION_ERROR saying why not. */
export async function checkDocument(bytes: Uint8Array, maxBytes: number): Promise<CheckedDocument> {
  if (bytes.length === 0) refuse("the file is empty");
  if (bytes.length > maxBytes) refuse(`larger than ${maxBytes} bytes`);
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 8));
  if (head.startsWith("%PDF-")) {
    // latin1 maps every byte to one character, so names are found wherever they sit.
    const text = new TextDecoder("latin1").decode(bytes);
    if (!/^%PDF-[12]\.[0-9]/.test(text)) refuse("the PDF header is damaged");
    if (!text.slice(-1024).includes("%%EOF")) refuse("the PDF is truncated (no %%EOF)");
    // `#4A` escapes in names are decoded first (`/J#61vaScript` is /JavaScript). Names inside compressed
    // object streams are not seen (nothing is inflated here): operators get the file as a sandboxed download.
    const names = text.replace(/#([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    if (ACTIVE_PDF.test(names)) {
      refuse("PDFs with scripts, launch actions or embedded files are refused");
    }
    return { key: `${bytesToHex(sha256(bytes))}.pdf`, bytes, contentType: "application/pdf" };
  }
  if (sniffKind(bytes)) {
    try {
      return await cleanImage(bytes);
    } catch (err) {
      if (err instanceof AppError) refuse(err.details?.[0]?.reason ?? err.message);
      throw err;
    }
  }
  refuse("only PDF, PNG, JPEG and WebP files are accepted (judged by their content, not their name)");
}

/** A file name fit to show an operator: control characters gone, at most 200 characters. */
export function cleanFileName(name: string | undefined): string {
  // deno-lint-ignore no-control-regex -- control characters are exactly what is removed
  const clean = (name ?? "").replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return (clean.isWellFormed() ? clean : clean.toWellFormed()).slice(0, 200) || "document";
}
