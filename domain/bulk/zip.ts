// Reading an uploaded ZIP archive (an XLSX workbook) without trusting it: the central directory is judged
// before any entry is inflated (entry count, total declared size, each entry's compression ratio), and an
// entry is inflated as a stream in small steps, counted, and stopped as soon as it passes its declared
// size. Work is paced so that no archive holds the event loop for long.

/** At most this many entries (files and folders); a real workbook has about 15, plus 2 a sheet. */
export const MAX_ENTRIES = 200;
/** The sum of the declared uncompressed sizes of all entries. */
export const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
/** Above this declared size, an entry's compression ratio is checked. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
/** The highest compression ratio allowed above RATIO_FLOOR_BYTES (real sheets: 5 to 30). */
export const MAX_RATIO = 100;
/** Compressed bytes fed to the inflater a step: deflate inflates at most ~1032x, so a step yields ≤ 0.5 MB. */
const INFLATE_STEP_BYTES = 512;
/** The longest the event loop is held before it is handed back. */
const SLICE_MS = 10;

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The archive is refused; the message says why, for the uploader. */
export class ZipRefused extends Error {}

export type ZipEntry = {
  name: string;
  method: 0 | 8;
  compressedSize: number;
  size: number;
  localOffset: number;
};

/** Hands the event loop back (a macrotask) once a piece of work has held it for SLICE_MS. */
export class Pacer {
  #since = performance.now();
  async breathe(): Promise<void> {
    if (performance.now() - this.#since < SLICE_MS) return;
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#since = performance.now();
  }
}

const damaged = (why: string) => new ZipRefused(`a ZIP archive but not a readable XLSX workbook (${why})`);

/** The entries of the central directory, judged before anything is inflated; names are lower-cased. */
export function readZipDirectory(bytes: Uint8Array): Map<string, ZipEntry> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw damaged("no central directory");
  const count = view.getUint16(eocd + 10, true);
  const directorySize = view.getUint32(eocd + 12, true);
  const directoryOffset = view.getUint32(eocd + 16, true);
  if (view.getUint16(eocd + 4, true) !== 0 || view.getUint16(eocd + 8, true) !== count) {
    throw damaged("a multi-part archive");
  }
  if (count === 0xffff || directoryOffset === 0xffffffff) throw damaged("ZIP64 is not read");
  if (count > MAX_ENTRIES) {
    throw new ZipRefused(`the workbook has ${count} files; at most ${MAX_ENTRIES} are read`);
  }
  if (directoryOffset + directorySize > eocd) throw damaged("the central directory lies outside the file");
  const entries = new Map<string, ZipEntry>();
  let total = 0;
  let at = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > eocd || view.getUint32(at, true) !== CENTRAL) throw damaged("a broken central directory");
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const next = at + 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (next > eocd) throw damaged("a broken central directory");
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)).replace(/^\//, "");
    if (flags & 1) throw new ZipRefused("the workbook is encrypted");
    if (method !== 0 && method !== 8) throw damaged(`${name.slice(0, 60)}: compression method ${method}`);
    if (method === 0 && compressedSize !== size) throw damaged(`${name.slice(0, 60)}: sizes disagree`);
    if (size > RATIO_FLOOR_BYTES && size > compressedSize * MAX_RATIO) {
      throw new ZipRefused(
        `${name.slice(0, 60)} inflates more than ${MAX_RATIO} times (${size} bytes from ${compressedSize})`,
      );
    }
    total += size;
    if (total > MAX_TOTAL_BYTES) {
      throw new ZipRefused(`the workbook inflates to more than ${MAX_TOTAL_BYTES / 1024 / 1024} MB`);
    }
    const key = name.toLowerCase();
    if (entries.has(key)) throw damaged(`${name.slice(0, 60)} appears twice`);
    entries.set(key, {
      name,
      method: method as 0 | 8,
      compressedSize,
      size,
      localOffset: view.getUint32(at + 42, true),
    });
    at = next;
  }
  return entries;
}

/** The compressed bytes of an entry, found through its local header. */
function entryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL) {
    throw damaged(`${entry.name.slice(0, 60)}: no local header`);
  }
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  if (start + entry.compressedSize > bytes.length) throw damaged(`${entry.name.slice(0, 60)} is cut short`);
  return bytes.subarray(start, start + entry.compressedSize);
}

/**
 * An entry's bytes as they inflate, in steps of at most ~0.5 MB. Inflating stops (refused) as soon as it
 * passes the declared size, and an entry that ends short of it is refused too. Stopping early (returning
 * from the loop) cancels the inflater.
 */
export async function* inflateEntry(
  bytes: Uint8Array,
  entry: ZipEntry,
  pacer: Pacer,
): AsyncGenerator<Uint8Array> {
  const data = entryData(bytes, entry);
  if (entry.method === 0) {
    for (let at = 0; at < data.length; at += 64 * 1024) {
      yield data.subarray(at, at + 64 * 1024);
      await pacer.breathe();
    }
    return;
  }
  let fed = 0;
  const source = new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      if (fed >= data.length) return controller.close();
      controller.enqueue(data.slice(fed, fed + INFLATE_STEP_BYTES));
      fed += INFLATE_STEP_BYTES;
    },
  }, { highWaterMark: 0 });
  const reader = source.pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  let inflated = 0;
  try {
    while (true) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch {
        throw damaged(`${entry.name.slice(0, 60)} does not inflate`);
      }
      if (step.done) break;
      inflated += step.value.length;
      if (inflated > entry.size) {
        throw new ZipRefused(`${entry.name.slice(0, 60)} inflates beyond its declared ${entry.size} bytes`);
      }
      yield step.value;
      await pacer.breathe();
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  if (inflated !== entry.size) throw damaged(`${entry.name.slice(0, 60)} is shorter than declared`);
}
