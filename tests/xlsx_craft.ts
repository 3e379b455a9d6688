// Workbooks crafted by hand for the spreadsheet bomb tests: a ZIP writer (deflate through
// CompressionStream, CRC-32, any declared size, even a false one) and the few parts of a minimal XLSX.
import zlib from "node:zlib";

const encoder = new TextEncoder();

function concat(chunks: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crcUpdate(crc: number, bytes: Uint8Array): number {
  let c = crc ^ 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export type ZipPart = {
  name: string;
  compressed: Uint8Array;
  size: number;
  crc: number;
  /** Written in the directory instead of the real size: a lie. */
  declaredSize?: number;
};

/** Deflates chunks as they come (the same chunk may come many times): a part of any size, small in memory. */
export async function deflatedPart(name: string, chunks: Iterable<Uint8Array>): Promise<ZipPart> {
  const stream = new CompressionStream("deflate-raw");
  const writer = stream.writable.getWriter();
  let size = 0;
  let crc = 0;
  const out: Uint8Array[] = [];
  const reading = (async () => {
    for await (const chunk of stream.readable) out.push(chunk);
  })();
  for (const chunk of chunks) {
    size += chunk.length;
    crc = crcUpdate(crc, chunk);
    await writer.write(chunk as Uint8Array<ArrayBuffer>);
  }
  await writer.close();
  await reading;
  return { name, compressed: concat(out), size, crc };
}

export const xmlPart = (name: string, xml: string) => deflatedPart(name, [encoder.encode(xml)]);

/** A ZIP archive of deflated parts, with the local headers, central directory and end record. */
export function zipOf(parts: ZipPart[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = encoder.encode(part.name);
    const size = part.declaredSize ?? part.size;
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(8, 8, true);
    local.setUint32(14, part.crc, true);
    local.setUint32(18, part.compressed.length, true);
    local.setUint32(22, size, true);
    local.setUint16(26, name.length, true);
    const entry = new DataView(new ArrayBuffer(46));
    entry.setUint32(0, 0x02014b50, true);
    entry.setUint16(4, 20, true);
    entry.setUint16(6, 20, true);
    entry.setUint16(10, 8, true);
    entry.setUint32(16, part.crc, true);
    entry.setUint32(20, part.compressed.length, true);
    entry.setUint32(24, size, true);
    entry.setUint16(28, name.length, true);
    entry.setUint32(42, offset, true);
    chunks.push(new Uint8Array(local.buffer), name, part.compressed);
    central.push(new Uint8Array(entry.buffer), name);
    offset += 30 + name.length + part.compressed.length;
  }
  const directorySize = central.reduce((n, c) => n + c.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, parts.length, true);
  end.setUint16(10, parts.length, true);
  end.setUint32(12, directorySize, true);
  end.setUint32(16, offset, true);
  return concat([...chunks, ...central, new Uint8Array(end.buffer)]);
}

const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG = "http://schemas.openxmlformats.org/package/2006/relationships";

export const SHEET_START = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${MAIN}"><sheetData>`;
export const SHEET_END = "</sheetData></worksheet>";

/** The header row of the import (inline strings), as the sheet's line 1. */
export const HEADER_ROW = `<row r="1">${
  ["walletAddress", "amount", "recipientName", "reference"]
    .map((h) => `<c t="inlineStr"><is><t>${h}</t></is></c>`).join("")
}</row>`;

/** The parts around a sheet: content types, relationships, a workbook listing `sheetCount` sheets. */
export async function workbookParts(
  options: { sheetCount?: number; sharedStrings?: string; styles?: string } = {},
): Promise<ZipPart[]> {
  const sheetCount = options.sheetCount ?? 1;
  const sheets = Array.from(
    { length: sheetCount },
    (_, i) => `<sheet name="s${i + 1}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`,
  ).join("");
  const links = [`<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>`];
  if (options.sharedStrings !== undefined) {
    links.push(`<Relationship Id="rS" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`);
  }
  if (options.styles !== undefined) {
    links.push(`<Relationship Id="rT" Type="${REL}/styles" Target="styles.xml"/>`);
  }
  const parts = [
    await xmlPart(
      "[Content_Types].xml",
      `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        `<Default Extension="xml" ContentType="application/xml"/></Types>`,
    ),
    await xmlPart(
      "_rels/.rels",
      `<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/officeDocument" ` +
        `Target="xl/workbook.xml"/></Relationships>`,
    ),
    await xmlPart(
      "xl/workbook.xml",
      `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets>${sheets}</sheets></workbook>`,
    ),
    await xmlPart(
      "xl/_rels/workbook.xml.rels",
      `<Relationships xmlns="${PKG}">${links.join("")}</Relationships>`,
    ),
  ];
  if (options.sharedStrings !== undefined) {
    parts.push(await xmlPart("xl/sharedStrings.xml", `<sst xmlns="${MAIN}">${options.sharedStrings}</sst>`));
  }
  if (options.styles !== undefined) {
    parts.push(await xmlPart("xl/styles.xml", `<styleSheet xmlns="${MAIN}">${options.styles}</styleSheet>`));
  }
  return parts;
}

/** A workbook whose first sheet holds the header row and then `rowsXml`. */
export async function craftedXlsx(
  rowsXml: string,
  options: { sharedStrings?: string; styles?: string } = {},
): Promise<Uint8Array> {
  const sheet = await xmlPart("xl/worksheets/sheet1.xml", SHEET_START + HEADER_ROW + rowsXml + SHEET_END);
  return zipOf([...await workbookParts(options), sheet]);
}

/**
 * The sheet of a bomb: the header, then `row` repeated until the sheet is about `bytes` long, deflated
 * at level 9 as it is produced (CompressionStream's level packs only ~150:1; level 9 packs 280 MB of short
 * rows into about 850 KB, the bomb of the issue).
 */
export async function bombSheet(row: string, bytes: number): Promise<ZipPart> {
  const block = encoder.encode(row.repeat(Math.ceil((1024 * 1024) / row.length)));
  const deflater = zlib.createDeflateRaw({ level: 9 });
  const out: Uint8Array[] = [];
  deflater.on("data", (chunk: Uint8Array) => out.push(chunk));
  let size = 0;
  let crc = 0;
  const write = async (chunk: Uint8Array) => {
    size += chunk.length;
    crc = crcUpdate(crc, chunk);
    if (!deflater.write(chunk)) await new Promise((resolve) => deflater.once("drain", resolve));
  };
  await write(encoder.encode(SHEET_START + HEADER_ROW));
  for (let i = 0; i < Math.ceil(bytes / block.length); i++) await write(block);
  await write(encoder.encode(SHEET_END));
  await new Promise((resolve) => deflater.end(resolve));
  return { name: "xl/worksheets/sheet1.xml", compressed: concat(out), size, crc };
}
