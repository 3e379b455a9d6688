// Reads back the text a pdf-lib document drew: each page's content streams inflated, the hex strings
// shown with Tj decoded from WinAnsi. Enough to check what a statement or an invoice prints.
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream, type PDFRef } from "pdf-lib";

const winAnsi = new TextDecoder("windows-1252");

function hexToBytes(hex: string): Uint8Array {
  const clean = hex.replace(/\s+/g, "");
  const out = new Uint8Array(Math.ceil(clean.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(2 * i, 2 * i + 2).padEnd(2, "0"), 16);
  return out;
}

/** The text of every page, one string per page, pieces joined by newlines in drawing order. */
export async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(bytes);
  return doc.getPages().map((page) => {
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray
      ? contents.asArray().map((ref) => doc.context.lookup(ref as PDFRef))
      : [contents];
    const pieces: string[] = [];
    for (const stream of streams) {
      if (!(stream instanceof PDFRawStream)) continue;
      const text = new TextDecoder("latin1").decode(decodePDFRawStream(stream).decode());
      for (const m of text.matchAll(/<([0-9A-Fa-f\s]*)>\s*Tj/g)) {
        pieces.push(winAnsi.decode(hexToBytes(m[1])));
      }
    }
    return pieces.join("\n");
  });
}

export async function pdfText(bytes: Uint8Array): Promise<string> {
  return (await pdfPages(bytes)).join("\n");
}
