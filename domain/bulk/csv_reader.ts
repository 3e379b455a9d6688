// The records of an uploaded CSV, parsed as a stream (csv-parse's Parser) a slice at a time, stopped after
// `maxRecords` records, and pausing whenever parsing has held the event loop for 10 ms.
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { Pacer } from "./zip.ts";

export type CsvRecord = { record: string[]; info: { lines: number } };

const SLICE_BYTES = 16 * 1024;

/** Parses UTF-8 CSV bytes; csv-parse's CsvError (with `lines`) is thrown as is. */
export async function readCsvRecords(bytes: Uint8Array, maxRecords: number): Promise<CsvRecord[]> {
  const pacer = new Pacer();
  const source = Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
        yield Buffer.from(bytes.subarray(at, at + SLICE_BYTES));
      }
    })(),
    { objectMode: false },
  );
  const parser = parse({
    bom: true,
    info: true,
    skip_empty_lines: true,
    relax_column_count: true,
    delimiter: [",", ";"],
    max_record_size: 64 * 1024,
    // No `to`: the parser would end itself while the source still writes ("write after end"); the loop
    // below stops instead, at most one 16 KB slice past the last record wanted.
  });
  source.pipe(parser);
  const records: CsvRecord[] = [];
  try {
    for await (const record of parser) {
      records.push(record as CsvRecord);
      if (records.length >= maxRecords) break;
      await pacer.breathe();
    }
  } finally {
    source.destroy();
    parser.destroy();
  }
  return records;
}
