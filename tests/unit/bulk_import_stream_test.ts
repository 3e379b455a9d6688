// The bulk import readers on their own: a CSV of 1,000,000 lines stops one row past the room (its broken
// tail never parsed), the XML tokenizer gives the same events however the text is cut, reading a sheet
// to its 8 MB cap never holds the event loop for 100 ms, an entry shorter than declared is refused, and
// any damage to a real workbook ends in the catalogue's codes, never another error.
import fc from "fast-check";
import ExcelJS from "exceljs";
import { assert, assertEquals } from "../assert.ts";
import { readUpload } from "../../domain/bulk/files.ts";
import { AppError } from "../../domain/errors.ts";
import { type XmlHandler, XmlScanner } from "../../domain/bulk/xml_stream.ts";
import {
  craftedXlsx,
  deflatedPart,
  HEADER_ROW,
  SHEET_END,
  SHEET_START,
  workbookParts,
  zipOf,
} from "../xlsx_craft.ts";

const ADDRESS = "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE";

async function refusal(bytes: Uint8Array, room = 1000): Promise<AppError> {
  try {
    await readUpload(bytes, room);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("the file was read");
}

Deno.test("a CSV of 1,000,000 lines stops one row past the room, its broken tail never parsed", async () => {
  const lines = ["walletAddress,amount"];
  for (let i = 1; i < 1_000_000; i++) lines.push(i === 500_000 ? `"${ADDRESS},5` : `${ADDRESS},5`);
  const csv = new TextEncoder().encode(lines.join("\n") + "\n");
  const started = performance.now();
  const err = await refusal(csv);
  assertEquals(err.code, "LIMIT_EXCEEDED_BULK_BATCH");
  assert(/more than 1000 rows/.test(err.message), err.message);
  // With room for 10 more items, 11 rows are read.
  assertEquals((await refusal(csv, 10)).message.startsWith("The file has more than 10 rows"), true);
  assert(performance.now() - started < 5_000, `took ${performance.now() - started} ms`);
  // Within the room, the same broken line is found and named.
  const short = new TextEncoder().encode(lines.slice(0, 600).join("\n") + `\n"${ADDRESS},5\n`);
  assertEquals((await refusal(short)).code, "IMPORT_VALIDATION_FAILED");
});

type Event = string;
function events(chunks: string[]): Event[] {
  const seen: Event[] = [];
  const handler: XmlHandler = {
    open: (name, attributes, selfClosing) =>
      seen.push(`<${name} ${JSON.stringify(attributes)} ${selfClosing}`),
    close: (name) => seen.push(`</${name}`),
    text: (value) => {
      // Text may come in pieces; joined, it is the same.
      if (seen.length > 0 && seen[seen.length - 1].startsWith("#")) seen[seen.length - 1] += value;
      else seen.push(`#${value}`);
    },
  };
  const scanner = new XmlScanner(handler);
  for (const chunk of chunks) scanner.push(chunk);
  scanner.end();
  return seen;
}

Deno.test("the XML tokenizer gives the same events however the text is cut", () => {
  const xml = `<?xml version="1.0"?><!-- a > comment --><x:worksheet xmlns:x="m"><x:sheetData>` +
    `<x:row r="1" a='q"uote>'><c r="A1" t="inlineStr"><is><t xml:space="preserve"> A &amp; B &#x263A; &lt;</t>` +
    `</is></c><c r="B1"><v><![CDATA[5 < 6]]></v></c><c r="C1"/></x:row></x:sheetData></x:worksheet>`;
  const whole = events([xml]);
  assertEquals(whole.includes("# A & B \u263a <"), true, whole.join("\n"));
  assertEquals(whole.includes("#5 < 6"), true);
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: xml.length }), { maxLength: 30 }), (cuts) => {
      const points = [0, ...cuts.sort((a, b) => a - b), xml.length];
      const chunks = points.slice(1).map((end, i) => xml.slice(points[i], end));
      assertEquals(events(chunks), whole);
    }),
    { numRuns: 300 },
  );
});

Deno.test("reading a sheet to its 8 MB cap never holds the event loop for 100 ms", async () => {
  const enc = new TextEncoder();
  const sheet = await deflatedPart(
    "xl/worksheets/sheet1.xml",
    (function* () {
      yield enc.encode(SHEET_START + HEADER_ROW);
      for (let n = 2, size = 0; size < 7.9 * 1024 * 1024;) {
        let rows = "";
        for (const end = n + 1000; n < end; n++) {
          rows += `<row r="${n}"><c r="A${n}" s="0"/><c r="B${n}"/></row>`;
        }
        size += rows.length;
        yield enc.encode(rows);
      }
      yield enc.encode(SHEET_END);
    })(),
  );
  const file = zipOf([...await workbookParts(), sheet]);
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    longest = Math.max(longest, performance.now() - last);
    last = performance.now();
  }, 1);
  try {
    const items = await readUpload(file, 1000);
    assertEquals(items.length, 0); // the header and empty rows: nothing to import
  } finally {
    clearInterval(ticker);
  }
  assert(longest < 100, `the event loop was held ${longest.toFixed(0)} ms`);
});

Deno.test("a part read to its end that inflates to less than its declared size is refused", async () => {
  const sheet = await deflatedPart("xl/worksheets/sheet1.xml", [
    new TextEncoder().encode(SHEET_START + HEADER_ROW + `<row><c><v>5</v></c></row>` + SHEET_END),
  ]);
  const parts = await workbookParts();
  const lying = parts.map((p) => p.name === "xl/workbook.xml" ? { ...p, declaredSize: p.size + 1000 } : p);
  const err = await refusal(zipOf([...lying, sheet]));
  assertEquals(err.code, "IMPORT_VALIDATION_FAILED");
  assert(
    /workbook.xml is shorter than declared/.test(JSON.stringify(err.details)),
    JSON.stringify(err.details),
  );
});

Deno.test("any damage to a real workbook ends in IMPORT_VALIDATION_FAILED or a read, never another error", async () => {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet("items");
  sheet.addRow(["walletAddress", "amount", "recipientName", "reference"]);
  for (let i = 0; i < 20; i++) sheet.addRow([ADDRESS, 5 + i, `name ${i}`, `ref ${i}`]);
  const good = new Uint8Array(await workbook.xlsx.writeBuffer());
  assertEquals((await readUpload(good, 1000)).length, 20);
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(fc.nat(good.length - 1), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 8,
      }),
      async (edits) => {
        const bytes = good.slice();
        for (const [at, value] of edits) bytes[at] = value;
        try {
          await readUpload(bytes, 1000);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          assert(["IMPORT_VALIDATION_FAILED", "LIMIT_EXCEEDED_BULK_BATCH"].includes(err.code), err.code);
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("any text spliced into a sheet's XML ends in the catalogue's codes or a read, never another error", async () => {
  const rows =
    `<row r="2"><c r="A2" t="inlineStr"><is><t>${ADDRESS}</t></is></c><c r="B2"><v>5</v></c></row>`;
  const pieces = [
    "<",
    ">",
    "/",
    "&",
    ";",
    '"',
    "<row>",
    "</c>",
    '<c r="',
    "<![CDATA[",
    "<!--",
    "<?",
    "&#",
    "\u0000",
  ];
  await fc.assert(
    fc.asyncProperty(
      fc.nat(rows.length),
      fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 6 })), { maxLength: 6 }),
      async (at, spliced) => {
        const xml = rows.slice(0, at) + spliced.join("") + rows.slice(at);
        try {
          await readUpload(await craftedXlsx(xml), 1000);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          assertEquals(err.code, "IMPORT_VALIDATION_FAILED");
        }
      },
    ),
    { numRuns: 300 },
  );
});
