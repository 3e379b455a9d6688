// The rows of an XLSX worksheet, read as its XML streams in: each cell becomes text, a shared string's
// index (resolved later), or a refusal naming its line and column. Formulas, error values, booleans and
// dates (typed "d", or numbers in a date format) are refused, never evaluated. Reading stops at the end
// of the sheet data or once more than `room` rows follow the header.
import type { FieldProblem } from "../errors.ts";
import { type XmlHandler, XmlRefused } from "./xml_stream.ts";

/** Columns kept per row; a value further right is reported (only 4 columns are read). */
export const MAX_COLUMNS = 16;
const MAX_ROW = 1_048_576;
const MAX_COLUMN = 16_384;
/** Problems kept (the first ones, in order); a hostile sheet could otherwise list millions. */
export const MAX_PROBLEMS = 100;

export type SheetCell = string | { shared: number };
export type SheetRow = { line: number; cells: SheetCell[] };

type OpenCell = {
  column: number;
  type: string;
  style: number;
  formula: boolean;
  inValue: boolean;
  inInline: boolean;
  inText: boolean;
  inPhonetic: boolean;
  value: string;
  text: string;
};

type Outcome = { text: string } | { shared: number } | { refused: string };

/** "AB12" -> 28 (1-based); NaN when it is not a cell reference. */
function columnOf(reference: string): number {
  const letters = /^([A-Z]{1,3})[0-9]*$/.exec(reference)?.[1];
  if (!letters) return NaN;
  let column = 0;
  for (const ch of letters) column = column * 26 + ch.charCodeAt(0) - 64;
  return column;
}

export class SheetRows implements XmlHandler {
  readonly rows: SheetRow[] = [];
  readonly problems: FieldProblem[] = [];
  /** More than `room` rows follow the header: reading stopped there. */
  tooMany = false;
  #inSheetData = false;
  #row: (SheetRow & { hasValue: boolean }) | null = null;
  #lastLine = 0;
  #lastColumn = 0;
  #cell: OpenCell | null = null;

  constructor(
    private readonly options: {
      room: number;
      maxCellChars: number;
      dateStyles: Set<number>;
      stop: () => void;
    },
  ) {}

  open(name: string, attributes: Record<string, string>, _selfClosing: boolean): void {
    const cell = this.#cell;
    if (name === "sheetData") this.#inSheetData = true;
    else if (name === "row" && this.#inSheetData && !this.#row) this.#openRow(attributes);
    else if (name === "c" && this.#row && !cell) this.#openCell(attributes);
    else if (!cell) return;
    else if (name === "f") cell.formula = true;
    else if (name === "v") cell.inValue = true;
    else if (name === "is") cell.inInline = true;
    else if (name === "rPh") cell.inPhonetic = true;
    else if (name === "t" && cell.inInline && !cell.inPhonetic) cell.inText = true;
  }

  close(name: string): void {
    const cell = this.#cell;
    if (name === "sheetData") this.options.stop();
    else if (name === "row" && this.#row && !cell) this.#closeRow();
    else if (!cell) return;
    else if (name === "c") this.#closeCell(cell);
    else if (name === "v") cell.inValue = false;
    else if (name === "is") cell.inInline = false;
    else if (name === "rPh") cell.inPhonetic = false;
    else if (name === "t") cell.inText = false;
  }

  text(value: string): void {
    const cell = this.#cell;
    if (!cell) return;
    const keep = this.options.maxCellChars + 1; // enough to tell that a cell is too long
    if (cell.inValue && cell.value.length < keep) cell.value = (cell.value + value).slice(0, keep);
    if (cell.inText && cell.text.length < keep) cell.text = (cell.text + value).slice(0, keep);
  }

  #openRow(attributes: Record<string, string>): void {
    const line = attributes.r === undefined ? this.#lastLine + 1 : Number(attributes.r);
    if (!Number.isInteger(line) || line < 1 || line > MAX_ROW) {
      throw new XmlRefused(`a row numbered "${String(attributes.r).slice(0, 20)}"`);
    }
    if (line <= this.#lastLine) throw new XmlRefused(`row ${line} comes after row ${this.#lastLine}`);
    this.#lastLine = line;
    this.#lastColumn = 0;
    this.#row = { line, cells: [], hasValue: false };
  }

  #openCell(attributes: Record<string, string>): void {
    const column = attributes.r === undefined ? this.#lastColumn + 1 : columnOf(attributes.r);
    const line = this.#row!.line;
    if (!(column > this.#lastColumn && column <= MAX_COLUMN)) {
      throw new XmlRefused(`line ${line}: a cell at "${String(attributes.r).slice(0, 20)}" out of order`);
    }
    this.#lastColumn = column;
    this.#cell = {
      column,
      type: attributes.t ?? "n",
      style: Number(attributes.s ?? 0),
      formula: false,
      inValue: false,
      inInline: false,
      inText: false,
      inPhonetic: false,
      value: "",
      text: "",
    };
  }

  #outcome(cell: OpenCell): Outcome {
    if (cell.formula) return { refused: "a formula (formulas are not evaluated: paste the values)" };
    switch (cell.type) {
      case "e":
        return { refused: `an error value (${cell.value.slice(0, 20)})` };
      case "b":
        return { refused: "a true/false value" };
      case "d":
        return { refused: "a date" };
      case "inlineStr":
        return { text: cell.text };
      case "str":
        return { text: cell.value };
      case "s": {
        if (cell.value === "") return { text: "" };
        if (!/^[0-9]{1,9}$/.test(cell.value)) {
          return { refused: `shared string "${cell.value.slice(0, 20)}" does not exist` };
        }
        return { shared: Number(cell.value) };
      }
      case "n": {
        if (cell.value === "") return { text: "" };
        const number = Number(cell.value);
        if (cell.value.trim() === "" || !Number.isFinite(number)) return { refused: "not a number" };
        if (this.options.dateStyles.has(cell.style)) return { refused: "a date" };
        return { text: String(number) };
      }
      default:
        return { refused: "an unsupported cell type" };
    }
  }

  #closeCell(cell: OpenCell): void {
    this.#cell = null;
    const row = this.#row!;
    const outcome = this.#outcome(cell);
    const empty = "text" in outcome && outcome.text === "";
    if (!empty) row.hasValue = true;
    const problem = (reason: string) =>
      this.problems.length < MAX_PROBLEMS &&
      this.problems.push({
        field: `column ${cell.column}`,
        line: row.line,
        reason: `line ${row.line}: ${reason}`,
      });
    if ("refused" in outcome) problem(outcome.refused);
    else if (cell.column > MAX_COLUMNS) {
      if (!empty) problem("a value outside the columns");
    } else row.cells[cell.column - 1] = "text" in outcome ? outcome.text : outcome;
  }

  #closeRow(): void {
    const row = this.#row!;
    this.#row = null;
    if (!row.hasValue) return;
    if (this.rows.length === 0 && row.line !== 1 && this.problems.length < MAX_PROBLEMS) {
      this.problems.push({ field: "header", line: 1, reason: "line 1: the header row is empty" });
    }
    for (let i = 0; i < row.cells.length; i++) row.cells[i] ??= "";
    this.rows.push({ line: row.line, cells: row.cells });
    if (this.rows.length - 1 > this.options.room) {
      this.tooMany = true;
      this.options.stop();
    }
  }
}
