// Bulk payment files: reading an uploaded CSV (csv-parse) or XLSX (our own bounded streaming reader,
// xlsx_reader.ts) into items, and writing the import template of each rail (exceljs) and the batch report.
// The format is judged by the bytes, never by the file's name. Either format is read only up to the
// batch's room plus one row. Formulas are refused, never evaluated (their cached result may be stale or
// absent). A problem with the file as a whole is IMPORT_VALIDATION_FAILED naming the line or column; too
// many rows is LIMIT_EXCEEDED_BULK_BATCH.
import { stringify } from "csv-stringify/sync";
import ExcelJS from "exceljs";
import { AppError, type FieldProblem } from "../errors.ts";
import { type CsvRecord, readCsvRecords } from "./csv_reader.ts";
import { type BulkRail, MAX_ITEMS_PER_BATCH, type RawItem } from "./items.ts";
import { readXlsxRows, type XlsxRows } from "./xlsx_reader.ts";
import { XmlRefused } from "./xml_stream.ts";
import { ZipRefused } from "./zip.ts";

/** The longest cell text read; longer is a problem naming its line and column. */
export const MAX_CELL = 256;
export const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

const COLUMNS = ["walletAddress", "amount", "recipientName", "reference"] as const;
type Column = typeof COLUMNS[number];
const REQUIRED: Column[] = ["walletAddress", "amount"];
/** Header spellings accepted for each column (compared lower-case, spaces and underscores removed). */
const ALIASES: Record<string, Column> = {
  walletaddress: "walletAddress",
  address: "walletAddress",
  phonenumber: "walletAddress",
  phone: "walletAddress",
  amount: "amount",
  recipientname: "recipientName",
  name: "recipientName",
  reference: "reference",
};

function fileProblem(problems: FieldProblem[]): never {
  throw new AppError(
    "IMPORT_VALIDATION_FAILED",
    problems.slice(0, 3).map((p) => `${p.field}: ${p.reason}`).join("; "),
    { details: problems },
  );
}

/** Reading stopped at the first row past the room, so the file's full count is not known. */
function tooMany(room: number): never {
  throw new AppError(
    "LIMIT_EXCEEDED_BULK_BATCH",
    `The file has more than ${room} rows; this batch can take ${room} more (at most ${MAX_ITEMS_PER_BATCH} items a batch)`,
  );
}

/** Maps the header row to columns; unknown, duplicated or missing columns are reported by name. */
function readHeader(cells: string[]): Map<number, Column> {
  const map = new Map<number, Column>();
  const problems: FieldProblem[] = [];
  cells.forEach((cell, i) => {
    const name = cell.trim();
    if (name === "") return;
    const column = ALIASES[name.toLowerCase().replace(/[\s_-]/g, "")];
    if (!column) {
      problems.push({
        field: "header",
        line: 1,
        reason: `line 1: unknown column "${name.slice(0, 40)}"; expected ${COLUMNS.join(", ")}`,
      });
    } else if ([...map.values()].includes(column)) {
      problems.push({ field: "header", line: 1, reason: `line 1: column ${column} appears twice` });
    } else map.set(i, column);
  });
  for (const column of REQUIRED) {
    if (![...map.values()].includes(column)) {
      problems.push({ field: "header", line: 1, reason: `line 1: missing column ${column}` });
    }
  }
  if (problems.length > 0) fileProblem(problems);
  return map;
}

/** Rows (after the header) into items; too-long cells are reported with line and column. */
function toItems(header: Map<number, Column>, rows: Array<{ line: number; cells: string[] }>): RawItem[] {
  const problems: FieldProblem[] = [];
  const items = rows.map(({ line, cells }) => {
    const values: Record<Column, string> = {
      walletAddress: "",
      amount: "",
      recipientName: "",
      reference: "",
    };
    cells.forEach((cell, i) => {
      const column = header.get(i);
      if (!column) {
        if (cell.trim() !== "") {
          problems.push({
            field: `column ${i + 1}`,
            line,
            reason: `line ${line}: a value outside the columns`,
          });
        }
        return;
      }
      if (cell.length > MAX_CELL) {
        problems.push({ field: column, line, reason: `line ${line}: longer than ${MAX_CELL} characters` });
        values[column] = "";
        return;
      }
      values[column] = cell.trim();
    });
    return { line, field: (name: string) => name, ...values };
  });
  if (problems.length > 0) fileProblem(problems);
  return items;
}

function isZip(bytes: Uint8Array): boolean {
  return bytes.length > 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/** Reads an uploaded file (CSV or XLSX, told apart by content) into raw items; `room`: items still allowed. */
export async function readUpload(bytes: Uint8Array, room: number): Promise<RawItem[]> {
  if (bytes.length === 0) fileProblem([{ field: "file", reason: "the file is empty" }]);
  return isZip(bytes) ? await readXlsx(bytes, room) : await readCsv(bytes, room);
}

async function readCsv(bytes: Uint8Array, room: number): Promise<RawItem[]> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    fileProblem([{ field: "file", reason: "neither an XLSX workbook nor UTF-8 CSV text" }]);
  }
  if (text.includes("\u0000")) fileProblem([{ field: "file", reason: "binary content, not CSV text" }]);
  let records: CsvRecord[];
  try {
    records = await readCsvRecords(bytes, room + 2);
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    fileProblem([{
      field: "file",
      ...(line ? { line } : {}),
      reason: `${line ? `line ${line}: ` : ""}not valid CSV (${(err as Error).message.slice(0, 120)})`,
    }]);
  }
  if (records.length === 0) fileProblem([{ field: "header", line: 1, reason: "line 1: no header row" }]);
  if (records.length - 1 > room) tooMany(room);
  const header = readHeader(records[0].record);
  return toItems(
    header,
    records.slice(1).map((r) => ({ line: r.info.lines, cells: r.record })),
  );
}

async function readXlsx(bytes: Uint8Array, room: number): Promise<RawItem[]> {
  let read: XlsxRows;
  try {
    read = await readXlsxRows(bytes, { room, maxCellChars: MAX_CELL });
  } catch (err) {
    if (err instanceof ZipRefused || err instanceof XmlRefused) {
      fileProblem([{ field: "file", reason: err.message }]);
    }
    throw err;
  }
  if (read.tooMany) tooMany(room);
  if (read.rows.length === 0) {
    fileProblem([{ field: "header", line: 1, reason: "line 1: the first sheet is empty" }]);
  }
  if (read.problems.length > 0) fileProblem(read.problems);
  const [headerRow, ...rows] = read.rows;
  return toItems(readHeader(headerRow.cells), rows);
}

const EXAMPLES: Record<BulkRail, string[]> = {
  USDT_TRC20: ["TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", "25.50", "Awa Ouedraogo", "salary-2026-11"],
  MOBILE_MONEY: ["+22670123456", "15000", "Issa Sawadogo", "salary-2026-11"],
};

const NOTES: Record<BulkRail, string> = {
  USDT_TRC20:
    "walletAddress: a TRON address whitelisted for PAYOUT; amount: USDT, up to 6 decimals, 5 minimum",
  MOBILE_MONEY:
    "walletAddress: a Burkina Faso mobile money number, +226 then 8 digits; amount: whole XOF, 500 minimum",
};

/** The import template of a rail: the header row, and (XLSX) a second sheet explaining each column. */
export async function templateFile(rail: BulkRail, format: "csv" | "xlsx"): Promise<Uint8Array> {
  if (format === "csv") return new TextEncoder().encode(stringify([[...COLUMNS]]));
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet("items");
  sheet.addRow([...COLUMNS]);
  sheet.getRow(1).font = { bold: true };
  // The number column is text so that a "+226..." number keeps its "+".
  sheet.getColumn(1).numFmt = "@";
  sheet.getColumn(1).width = 40;
  const help = workbook.addWorksheet("help");
  help.addRow(["Fill the first sheet, one payment a row; this sheet is not read."]);
  help.addRow([NOTES[rail]]);
  help.addRow(["Example row:", ...EXAMPLES[rail]]);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

/** A CSV of rows (the batch report). */
export function csvOf(rows: unknown[][]): string {
  return stringify(rows);
}
