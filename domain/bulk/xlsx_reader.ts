// Reading the first sheet of an uploaded XLSX workbook as a stream, bounded at every step: the archive's
// directory is judged first (zip.ts), each part read has a size cap of its own, the sheet's rows are read
// until the batch's room plus one, and only the shared strings those rows use are kept. Styles are read
// only to tell dates from numbers. Anything wrong with the file as a whole throws ZipRefused or XmlRefused.
import type { FieldProblem } from "../errors.ts";
import { inflateEntry, Pacer, readZipDirectory, type ZipEntry, ZipRefused } from "./zip.ts";
import { MAX_PROBLEMS, SheetRows } from "./xlsx_sheet.ts";
import { type XmlHandler, XmlRefused, XmlScanner } from "./xml_stream.ts";

const MB = 1024 * 1024;
/** The most each part is allowed to inflate to; a 1,000-row sheet is about 0.2 MB, its strings 0.1 MB. */
export const PART_LIMITS = { small: 1 * MB, styles: 4 * MB, sheet: 8 * MB, sharedStrings: 16 * MB };
/** More sheets than this in one workbook is refused (the first one is read). */
export const MAX_SHEETS = 64;

type Relationship = { type: string; target: string };

/** Streams one part through an XML handler; the handler may halt the scan to stop inflating. */
async function scanPart(
  archive: Uint8Array,
  entry: ZipEntry,
  limit: number,
  pacer: Pacer,
  handler: (scanner: XmlScanner) => XmlHandler,
): Promise<void> {
  if (entry.size > limit) {
    throw new ZipRefused(`${entry.name.slice(0, 60)} inflates to more than ${limit / MB} MB`);
  }
  const scanner: XmlScanner = new XmlScanner({
    open: (...args) => current.open(...args),
    close: (name) => current.close(name),
    text: (value) => current.text(value),
  });
  const current = handler(scanner);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const decode = (bytes?: Uint8Array) => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch {
      throw new XmlRefused(`${entry.name.slice(0, 60)} is not UTF-8 text`);
    }
  };
  for await (const bytes of inflateEntry(archive, entry, pacer)) {
    scanner.push(decode(bytes));
    if (scanner.halted) return;
    await pacer.breathe();
  }
  scanner.push(decode());
  scanner.end();
}

/** A part name relative to the part that points at it ("xl/workbook.xml" + "worksheets/a.xml"). */
function resolvePart(from: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  const parts = from.split("/").slice(0, -1);
  for (const segment of target.split("/")) {
    if (segment === "..") parts.pop();
    else if (segment !== "." && segment !== "") parts.push(segment);
  }
  return parts.join("/");
}

function percentDecoded(target: string): string {
  try {
    return decodeURI(target);
  } catch {
    return target;
  }
}

const relsOf = (part: string) => resolvePart(part, `_rels/${part.split("/").pop()}.rels`);

async function relationships(
  archive: Uint8Array,
  entries: Map<string, ZipEntry>,
  part: string,
  pacer: Pacer,
): Promise<Map<string, Relationship>> {
  const found = new Map<string, Relationship>();
  const entry = entries.get(relsOf(part).toLowerCase());
  if (!entry) return found;
  await scanPart(archive, entry, PART_LIMITS.small, pacer, () => ({
    open(name, a) {
      if (name === "Relationship" && a.Id && a.Target && a.TargetMode !== "External") {
        found.set(a.Id, { type: a.Type ?? "", target: resolvePart(part, percentDecoded(a.Target)) });
      }
    },
    close() {},
    text() {},
  }));
  return found;
}

/** Style indexes whose number format shows a date or time (built-in ids, or a custom code with y/m/d/h/s). */
async function dateStyles(
  archive: Uint8Array,
  entry: ZipEntry | undefined,
  pacer: Pacer,
): Promise<Set<number>> {
  const dates = new Set<number>();
  if (!entry) return dates;
  const customDates = new Set<number>();
  let inCellXfs = false;
  let index = 0;
  const builtinDate = (id: number) =>
    (id >= 14 && id <= 22) || (id >= 27 && id <= 36) || (id >= 45 && id <= 47) || (id >= 50 && id <= 58);
  await scanPart(archive, entry, PART_LIMITS.styles, pacer, () => ({
    open(name, a) {
      if (name === "numFmt") {
        const code = (a.formatCode ?? "").replace(/\[[^\]]*]|"[^"]*"|\\./g, "");
        if (/[ymdhs]/i.test(code)) customDates.add(Number(a.numFmtId));
      } else if (name === "cellXfs") inCellXfs = true;
      else if (name === "xf" && inCellXfs) {
        const id = Number(a.numFmtId ?? 0);
        if (builtinDate(id) || customDates.has(id)) dates.add(index);
        index++;
      }
    },
    close(name) {
      if (name === "cellXfs") inCellXfs = false;
    },
    text() {},
  }));
  return dates;
}

/** The shared strings at the given indexes (clipped to maxChars); reading stops past the highest one. */
async function sharedStrings(
  archive: Uint8Array,
  entry: ZipEntry | undefined,
  wanted: Set<number>,
  maxChars: number,
  pacer: Pacer,
): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  if (!entry || wanted.size === 0) return found;
  let last = 0;
  for (const index of wanted) last = Math.max(last, index);
  let index = 0;
  let text: string | null = null;
  let inText = false;
  let inPhonetic = false;
  await scanPart(archive, entry, PART_LIMITS.sharedStrings, pacer, (scanner) => ({
    open(name) {
      if (name === "si") text = "";
      else if (name === "rPh") inPhonetic = true;
      else if (name === "t" && text !== null && !inPhonetic) inText = true;
    },
    close(name) {
      if (name === "t") inText = false;
      else if (name === "rPh") inPhonetic = false;
      else if (name === "si") {
        if (wanted.has(index)) found.set(index, text ?? "");
        text = null;
        if (++index > last) scanner.halt();
      }
    },
    text(value) {
      if (inText && text !== null && text.length <= maxChars) text = (text + value).slice(0, maxChars + 1);
    },
  }));
  return found;
}

export type XlsxRows = {
  rows: Array<{ line: number; cells: string[] }>;
  problems: FieldProblem[];
  tooMany: boolean;
};

/** The non-empty rows of the workbook's first sheet (the header first), up to `room` + 1 after it. */
export async function readXlsxRows(
  archive: Uint8Array,
  options: { room: number; maxCellChars: number },
): Promise<XlsxRows> {
  const pacer = new Pacer();
  const entries = readZipDirectory(archive);
  const root = await relationships(archive, entries, "", pacer);
  const workbookPart = [...root.values()].find((r) => r.type.endsWith("/officeDocument"))?.target ??
    "xl/workbook.xml";
  const workbook = entries.get(workbookPart.toLowerCase());
  if (!workbook) throw new ZipRefused("a ZIP archive but not a readable XLSX workbook (no workbook part)");
  const sheetIds: string[] = [];
  await scanPart(archive, workbook, PART_LIMITS.small, pacer, (scanner) => ({
    open(name, a) {
      if (name !== "sheet") return;
      sheetIds.push(a.id ?? "");
      if (sheetIds.length > MAX_SHEETS) scanner.halt();
    },
    close() {},
    text() {},
  }));
  if (sheetIds.length > MAX_SHEETS) throw new ZipRefused(`the workbook has more than ${MAX_SHEETS} sheets`);
  const links = await relationships(archive, entries, workbookPart, pacer);
  const first = links.get(sheetIds[0] ?? "");
  const sheet = first && first.type.endsWith("/worksheet")
    ? entries.get(first.target.toLowerCase())
    : undefined;
  if (!sheet) throw new ZipRefused("the workbook's first sheet is missing or is not a worksheet");
  const partOf = (kind: string) => {
    const link = [...links.values()].find((r) => r.type.endsWith(`/${kind}`));
    return link ? entries.get(link.target.toLowerCase()) : undefined;
  };

  let scanner: XmlScanner | undefined;
  const reader = new SheetRows({
    room: options.room,
    maxCellChars: options.maxCellChars,
    dateStyles: await dateStyles(archive, partOf("styles"), pacer),
    stop: () => scanner?.halt(),
  });
  await scanPart(archive, sheet, PART_LIMITS.sheet, pacer, (s) => {
    scanner = s;
    return reader;
  });
  if (reader.tooMany) return { rows: [], problems: [], tooMany: true };

  const wanted = new Set<number>();
  for (const row of reader.rows) {
    for (const cell of row.cells) if (typeof cell !== "string") wanted.add(cell.shared);
  }
  const strings = await sharedStrings(archive, partOf("sharedStrings"), wanted, options.maxCellChars, pacer);
  const problems = reader.problems;
  const rows = reader.rows.map(({ line, cells }) => ({
    line,
    cells: cells.map((cell, i) => {
      if (typeof cell === "string") return cell;
      const text = strings.get(cell.shared);
      if (text === undefined && problems.length < MAX_PROBLEMS) {
        problems.push({
          field: `column ${i + 1}`,
          line,
          reason: `line ${line}: shared string ${cell.shared} does not exist`,
        });
      }
      return text ?? "";
    }),
  }));
  return { rows, problems: problems.sort((x, y) => (x.line ?? 0) - (y.line ?? 0)), tooMany: false };
}
