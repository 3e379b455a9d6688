// Spreadsheets judged before they are parsed: the bomb of issue 18 (an 850 KB XLSX whose sheet inflates
// to 280 MB of rows), told the truth or lied about in the ZIP directory, answers 4xx within seconds while
// /health keeps answering (never held a second); thousands of sheets, hostile XML, shared strings out of range,
// formulas, dates and error cells are refused with the line and column; reading stops at the limit + 1.
import { assert, assertEquals } from "../assert.ts";
import { batchOf, createBatch, upload, whitelistMany } from "../bulk_helpers.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import {
  bombSheet,
  craftedXlsx,
  deflatedPart,
  HEADER_ROW,
  SHEET_END,
  SHEET_START,
  workbookParts,
  xmlPart,
  zipOf,
} from "../xlsx_craft.ts";

async function run(fn: (gw: TestGateway, key: string, addresses: string[]) => Promise<void>) {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Bomb Shop");
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, { rateLimits: { default: 100_000 } });
    await fn(gw, m.keys.liveSecret, await whitelistMany(gw, m.keys.liveSecret, 2));
  } finally {
    await gw.close();
  }
}

const heapAndBuffers = () => {
  const memory = Deno.memoryUsage();
  return memory.heapUsed + memory.external;
};

/**
 * Uploads while /health is asked every 10 ms; returns the answer, its time, every /health latency and
 * the most the heap (with buffers) grew meanwhile.
 */
async function uploadWatchingHealth(gw: TestGateway, key: string, id: string, bytes: Uint8Array) {
  const latencies: number[] = [];
  const before = heapAndBuffers();
  let grew = 0;
  let done = false;
  const watching = (async () => {
    while (!done) {
      const asked = performance.now();
      const res = await gw.app.request("/health");
      await res.body?.cancel();
      latencies.push(performance.now() - asked);
      grew = Math.max(grew, heapAndBuffers() - before);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = performance.now();
  const res = await upload(gw, key, id, bytes, "salaries.xlsx");
  const took = performance.now() - started;
  done = true;
  await watching;
  grew = Math.max(grew, heapAndBuffers() - before);
  return { res, took, latencies, grew };
}

const SHORT_ROW = "<row><c><v>5</v></c><c><v>5</v></c></row>";

Deno.test("bulk import: the 280 MB spreadsheet bomb, true or lying, is refused in seconds; /health never waits a second", () =>
  run(async (gw, key) => {
    const id = await createBatch(gw, key, "USDT_TRC20");
    const bomb = await bombSheet(SHORT_ROW, 280 * 1024 * 1024);
    assert(bomb.size > 280 * 1024 * 1024 && bomb.compressed.length < 900 * 1024, `${bomb.compressed.length}`);
    // Empty rows with growing numbers compress only ~10:1: a sheet under every cap, read to its end.
    const enc = new TextEncoder();
    const emptyRows = await deflatedPart(
      "xl/worksheets/sheet1.xml",
      (function* () {
        yield enc.encode(SHEET_START + HEADER_ROW);
        for (let n = 2, size = 0; size < 7.5 * 1024 * 1024;) {
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
    const parts = await workbookParts();
    const cases: Array<[string, Uint8Array, string, RegExp]> = [
      [
        "the bomb, sizes told",
        zipOf([...parts, bomb]),
        "IMPORT_VALIDATION_FAILED",
        /inflates more than 100 times/,
      ],
      [
        "the bomb declaring 20 KB",
        zipOf([...parts, { ...bomb, declaredSize: 20_000 }]),
        "IMPORT_VALIDATION_FAILED",
        /inflates beyond its declared 20000 bytes/,
      ],
      [
        "the bomb declaring 7 MB (passes the directory)",
        zipOf([...parts, { ...bomb, declaredSize: 7 * 1024 * 1024 }]),
        "LIMIT_EXCEEDED_BULK_BATCH",
        /more than 1000 rows/,
      ],
      [
        "7.5 MB of empty rows, read to the end",
        zipOf([...parts, emptyRows]),
        "IMPORT_VALIDATION_FAILED",
        /no rows/,
      ],
      [
        "a CSV of 1 MB, 27,000 rows",
        enc.encode("walletAddress,amount\n" + "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE,5\n".repeat(27_000)),
        "LIMIT_EXCEEDED_BULK_BATCH",
        /more than 1000 rows/,
      ],
    ];
    // The route and the database warm, as on a server that has been up a while.
    for (let i = 0; i < 5; i++) await (await gw.app.request("/health")).body?.cancel();
    for (const [name, bytes, code, reason] of cases) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert(bytes.length < 1000 * 1024, `${name}: ${bytes.length} bytes, over the upload limit`);
      const { res, took, latencies, grew } = await uploadWatchingHealth(gw, key, id, bytes);
      assertEquals([res.status, res.json.error?.code], [
        code === "LIMIT_EXCEEDED_BULK_BATCH" ? 403 : 400,
        code,
      ], name);
      assert(reason.test(res.text), `${name}: ${res.text}`);
      assert(took < 5_000, `${name}: answered in ${took} ms`);
      const slowest = Math.max(...latencies);
      // An inflate on the event loop would hold /health for seconds; 200 ms was missed under CI's parallel
      // tests (222 ms) with nothing inflated, so the bound is what a blocked loop could not meet.
      assert(slowest < 1_000, `${name}: /health took ${slowest.toFixed(0)} ms (${latencies.length} asked)`);
      // README promises ~32 MB at most per upload (16 MB measured); the unbounded parser took 4 GB.
      assert(grew < 64 * 1024 * 1024, `${name}: memory grew by ${(grew / 1024 / 1024).toFixed(0)} MB`);
    }
    assertEquals((await batchOf(gw, key, id)).itemCount, 0);
  }));

Deno.test("bulk import: thousands of sheets are refused from the directory or the workbook, never read", () =>
  run(async (gw, key) => {
    const id = await createBatch(gw, key, "USDT_TRC20");
    const sheet = await xmlPart("xl/worksheets/sheet1.xml", SHEET_START + HEADER_ROW + SHEET_END);
    const tiny = await xmlPart("x", `<worksheet xmlns="a"><sheetData/></worksheet>`);
    const manyFiles = zipOf([
      ...await workbookParts(),
      sheet,
      ...Array.from({ length: 2_000 }, (_, i) => ({ ...tiny, name: `xl/worksheets/sheet${i + 2}.xml` })),
    ]);
    const files = await upload(gw, key, id, manyFiles, "sheets.xlsx");
    assertEquals([files.status, files.json.error.code], [400, "IMPORT_VALIDATION_FAILED"]);
    assertEquals(files.json.error.details, [{
      field: "file",
      reason: "the workbook has 2005 files; at most 200 are read",
    }]);

    const manyListed = zipOf([...await workbookParts({ sheetCount: 5_000 }), sheet]);
    const listed = await upload(gw, key, id, manyListed, "sheets.xlsx");
    assertEquals([listed.status, listed.json.error.details], [400, [{
      field: "file",
      reason: "the workbook has more than 64 sheets",
    }]]);
  }));

Deno.test("bulk import: shared strings out of range, formulas, dates as text, date formats and error cells name their cell", () =>
  run(async (gw, key, [a, b]) => {
    const id = await createBatch(gw, key, "USDT_TRC20");
    const strings = `<si><t>${a}</t></si><si><r><t>${b.slice(0, 10)}</t></r><r><t>${
      b.slice(10)
    }</t></r></si>`;
    const styles = `<numFmts count="1"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/></numFmts>` +
      `<cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/></cellXfs>`;
    const cell = (ref: string, body: string, attrs = "") => `<c r="${ref}"${attrs}>${body}</c>`;
    const bad = await craftedXlsx(
      [
        `<row r="2">${cell("A2", "<v>0</v>", ' t="s"')}${cell("B2", "<v>5</v>")}</row>`, // fine
        `<row r="3">${cell("A3", "<v>7</v>", ' t="s"')}${cell("B3", "<v>5</v>")}</row>`,
        `<row r="4">${cell("A4", "<v>99999999999</v>", ' t="s"')}${cell("B4", "<v>5</v>")}</row>`,
        `<row r="5">${cell("A5", "<v>1</v>", ' t="s"')}${
          cell("B5", '<f t="shared" si="0">B2*2</f><v>10</v>')
        }</row>`,
        `<row r="6">${cell("A6", "<v>1</v>", ' t="s"')}${
          cell("B6", "<v>2026-11-01T00:00:00Z</v>", ' t="d"')
        }</row>`,
        `<row r="7">${cell("A7", "<v>1</v>", ' t="s"')}${cell("B7", "<v>46327</v>", ' s="1"')}</row>`,
        `<row r="8">${cell("A8", "<v>1</v>", ' t="s"')}${cell("B8", "<v>46327</v>", ' s="2"')}</row>`,
        `<row r="9">${cell("A9", "<v>1</v>", ' t="s"')}${cell("B9", "<v>#DIV/0!</v>", ' t="e"')}</row>`,
        `<row r="10">${cell("A10", "<v>1</v>", ' t="s"')}${cell("B10", "<v>1</v>", ' t="b"')}</row>`,
      ].join(""),
      { sharedStrings: strings, styles },
    );
    const res = await upload(gw, key, id, bad, "salaries.xlsx");
    assertEquals([res.status, res.json.error.code], [400, "IMPORT_VALIDATION_FAILED"]);
    assertEquals(
      res.json.error.details.map((d: { line: number; field: string; reason: string }) => d.reason),
      [
        "line 3: shared string 7 does not exist",
        'line 4: shared string "99999999999" does not exist',
        "line 5: a formula (formulas are not evaluated: paste the values)",
        "line 6: a date",
        "line 7: a date",
        "line 8: a date",
        "line 9: an error value (#DIV/0!)",
        "line 10: a true/false value",
      ],
    );
    assert(res.json.error.details.every((d: { field: string }) => /^column [12]$/.test(d.field)), res.text);
    assertEquals((await batchOf(gw, key, id)).itemCount, 0);

    // The same strings, rich text joined, import as the rows say.
    const good = await craftedXlsx(
      `<row r="2">${cell("A2", "<v>0</v>", ' t="s"')}${cell("B2", "<v>5</v>")}</row>` +
        `<row r="3">${cell("A3", "<v>1</v>", ' t="s"')}${cell("B3", "<v>6.5</v>", ' s="0"')}` +
        cell("C3", "<is><t>Awa &amp; Issa</t></is>", ' t="inlineStr"') + "</row>",
      { sharedStrings: strings, styles },
    );
    const ok = await upload(gw, key, id, good, "salaries.xlsx");
    assertEquals([ok.status, ok.json.data?.itemCount], [200, 2], ok.text);
    const items = (await batchOf(gw, key, id)).items;
    assertEquals(
      items.map((i: { walletAddress: string; amount: string; recipientName: string | null }) => [
        i.walletAddress,
        i.amount,
        i.recipientName,
      ]),
      [[a, "5.000000", null], [b, "6.500000", "Awa & Issa"]],
    );
  }));

Deno.test("bulk import: hostile XML (deep nesting, DOCTYPE, huge tags, bad UTF-8, broken tags) is refused, never 500", () =>
  run(async (gw, key) => {
    const id = await createBatch(gw, key, "USDT_TRC20");
    const refuse = async (name: string, bytes: Uint8Array, reason: RegExp) => {
      const res = await upload(gw, key, id, bytes, "salaries.xlsx");
      assertEquals(
        [res.status, res.json.error?.code],
        [400, "IMPORT_VALIDATION_FAILED"],
        `${name}: ${res.text}`,
      );
      assert(reason.test(res.text), `${name}: ${res.text}`);
    };
    await refuse("deep", await craftedXlsx(`<row><c>${"<x>".repeat(100_000)}`), /nested deeper than 32/);
    const laughs = `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>`;
    const doctype = await xmlPart(
      "xl/worksheets/sheet1.xml",
      `<?xml version="1.0"?>${laughs}<worksheet><sheetData>${HEADER_ROW}<row><c><v>&lol2;</v></c></row></sheetData></worksheet>`,
    );
    await refuse("doctype", zipOf([...await workbookParts(), doctype]), /DOCTYPE/);
    await refuse(
      "huge tag",
      await craftedXlsx(`<row r="2" x="${"a".repeat(400_000)}"></row>`),
      /longer than 256 KB/,
    );
    const latin1 = await deflatedPart("xl/worksheets/sheet1.xml", [
      new TextEncoder().encode(SHEET_START + HEADER_ROW + '<row><c t="inlineStr"><is><t>'),
      new Uint8Array([0xe9, 0xff]),
      new TextEncoder().encode("</t></is></c></row>" + SHEET_END),
    ]);
    await refuse("latin-1", zipOf([...await workbookParts(), latin1]), /not UTF-8/);
    await refuse("mismatched", await craftedXlsx(`<row><c><v>5</c></v></row>`), /mismatched XML tags/);
    await refuse("cut", await craftedXlsx(`<row><c><v>5</v></c>`), /mismatched|ends early/);
    await refuse("NUL reference", await craftedXlsx(`<row><c t="str"><v>a&#0;b</v></c></row>`), /forbids/);
    await refuse("no workbook", zipOf([await xmlPart("a.xml", "<a/>")]), /no workbook part/);
    assertEquals((await batchOf(gw, key, id)).itemCount, 0);
  }));

Deno.test("bulk import: reading stops one row past the limit, whatever follows (a broken tail is never seen)", () =>
  run(async (gw, key, [a]) => {
    const id = await createBatch(gw, key, "USDT_TRC20");
    const row = `<row><c t="inlineStr"><is><t>${a}</t></is></c><c><v>5</v></c></row>`;
    const file = await craftedXlsx(row.repeat(1_001) + "<row><c><v>&bogus;</v></c></row><broken");
    const res = await upload(gw, key, id, file, "salaries.xlsx");
    assertEquals([res.status, res.json.error.code], [403, "LIMIT_EXCEEDED_BULK_BATCH"], res.text);
    assert(/more than 1000 rows/.test(res.json.error.message));
    // 1,000 rows exactly and the same broken tail: the tail is read, and refused.
    const full = await craftedXlsx(row.repeat(1_000) + "<row><c><v>&bogus;</v></c></row><broken");
    const broken = await upload(gw, key, id, full, "salaries.xlsx");
    assertEquals([broken.status, broken.json.error.code], [400, "IMPORT_VALIDATION_FAILED"], broken.text);
    assert(/unknown XML entity &bogus;/.test(broken.text), broken.text);
  }));
