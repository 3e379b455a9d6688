// Products imported from a CSV file (csv-parse): a header line naming the columns, one product a line.
// All or nothing: every bad row is reported with its line number (IMPORT_VALIDATION_FAILED) and none is
// added; unknown or missing columns refuse the file as a whole.
import { parse } from "csv-parse/sync";
import * as db from "../../db/paylinks.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldProblem } from "../errors.ts";
import type { Currency } from "../money.ts";
import { type ProductInput, productRows } from "./create.ts";
import { priceProblem } from "./input.ts";
import { getPaylinkRow, type Owner } from "./queries.ts";

export const CSV_COLUMNS = [
  "name",
  "price",
  "description",
  "productType",
  "digitalUrl",
  "stockQty",
  "lowStockThreshold",
  "sortOrder",
] as const;
export const MAX_CSV_BYTES = 1024 * 1024;
export const MAX_CSV_ROWS = 500;

function refuseFile(reason: string): never {
  throw new AppError("VALIDATION_ERROR", `The CSV file cannot be read: ${reason}`, {
    details: [{ field: "file", reason }],
  });
}

function wholeNumber(value: string, max: number): number | undefined {
  return /^\d{1,9}$/.test(value) && Number(value) <= max ? Number(value) : undefined;
}

function rowToProduct(
  row: Record<string, string>,
  line: number,
  currency: Currency,
  problems: FieldProblem[],
) {
  const at = (field: string, reason: string) => problems.push({ field: `line ${line}: ${field}`, reason });
  const value = (k: string) => (row[k] ?? "").trim();
  const product: ProductInput = { name: value("name"), price: value("price") };
  if (!product.name) at("name", "required");
  if (product.name.length > 200) at("name", "at most 200 characters");
  const priceReason = priceProblem(product.price, currency);
  if (priceReason) at("price", priceReason);
  if (value("description")) product.description = value("description").slice(0, 2000);
  const type = value("productType").toUpperCase();
  if (type && type !== "PHYSICAL" && type !== "DIGITAL") at("productType", "PHYSICAL or DIGITAL");
  else if (type) product.productType = type as "PHYSICAL" | "DIGITAL";
  const url = value("digitalUrl");
  if (url) {
    if (product.productType !== "DIGITAL") at("digitalUrl", "only DIGITAL products have one");
    else if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol) || url.length > 2048) {
      at("digitalUrl", "must be an http or https URL");
    } else product.digitalUrl = url;
  }
  for (
    const [k, max] of [["stockQty", 1_000_000_000], ["lowStockThreshold", 1_000_000_000], [
      "sortOrder",
      100_000,
    ]] as const
  ) {
    const raw = value(k);
    if (!raw) continue;
    const n = wholeNumber(raw, max);
    if (n === undefined) at(k, `a whole number from 0 to ${max}`);
    else product[k] = n;
  }
  return product;
}

export async function importProductsCsv(
  deps: Pick<Deps, "db" | "clock">,
  owner: Owner,
  paylinkId: string,
  file: Uint8Array,
) {
  if (file.length > MAX_CSV_BYTES) refuseFile(`larger than ${MAX_CSV_BYTES / 1024} KB`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(file).replace(/^\uFEFF/, "");
  } catch {
    refuseFile("not UTF-8 text");
  }
  if (text.includes("\u0000")) refuseFile("contains a NUL character");
  let records: string[][];
  try {
    records = parse(text, { skip_empty_lines: true, relax_column_count: false, max_record_size: 10_000 });
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    refuseFile(`malformed CSV${line ? ` at line ${line}` : ""}`);
  }
  if (records.length === 0) refuseFile("the file is empty");
  const header = records[0].map((h) => h.trim());
  const unknown = header.filter((h) => !(CSV_COLUMNS as readonly string[]).includes(h));
  const missing = ["name", "price"].filter((h) => !header.includes(h));
  if (unknown.length > 0 || missing.length > 0 || new Set(header).size !== header.length) {
    throw new AppError("VALIDATION_ERROR", "The CSV header must name the columns " + CSV_COLUMNS.join(", "), {
      details: [
        ...unknown.map((h) => ({ field: `column ${h.slice(0, 40)}`, reason: "unknown column" })),
        ...missing.map((h) => ({ field: `column ${h}`, reason: "required column missing" })),
        ...(new Set(header).size !== header.length
          ? [{ field: "header", reason: "a column is named twice" }]
          : []),
      ],
    });
  }
  const rows = records.slice(1);
  if (rows.length === 0) refuseFile("no product lines under the header");
  if (rows.length > MAX_CSV_ROWS) refuseFile(`at most ${MAX_CSV_ROWS} products per file`);
  return await deps.db.tx(async (tx) => {
    const paylink = await getPaylinkRow({ db: tx }, owner, paylinkId, { lock: true });
    const problems: FieldProblem[] = [];
    const products = rows.map((cells, i) =>
      rowToProduct(
        Object.fromEntries(header.map((h, j) => [h, cells[j] ?? ""])),
        i + 2,
        paylink.currency as Currency,
        problems,
      )
    );
    if (problems.length > 0) {
      throw new AppError(
        "IMPORT_VALIDATION_FAILED",
        `${
          new Set(problems.map((p) => p.field.split(":")[0])).size
        } line(s) are invalid; nothing was imported`,
        {
          details: problems.slice(0, 200),
        },
      );
    }
    const existing = (await db.listProducts(tx, [paylink.id])).length;
    const now = deps.clock.now();
    const inserted = await db.insertProducts(
      tx,
      { id: paylink.id, ...owner },
      productRows(products, now).map((p, i) => ({ ...p, sortOrder: products[i].sortOrder ?? existing + i })),
      now,
    );
    return inserted.sort((a, b) => a.sort_order - b.sort_order || (a.id < b.id ? -1 : 1));
  });
}
