// A zlib stream (RFC 1950) of one DEFLATE block (RFC 1951) for qr.ts's PNG scanlines, instead of
// node:zlib's deflateSync, which cost more than the rest of a QR code together.
//
// Matches: a QR image is SCALE identical scanlines per module row and many more for the quiet zone, so it
// comes as its distinct rows, each with a repeat count. A row goes out as literals, its repeats as
// back-references of up to 258 bytes one scanline back (overlapping copies are legal); the copy also takes
// in the end of the row and the start of the next one where they equal the row above. Nothing else is
// searched: that finds nearly all zlib finds in this picture, for a fraction of its time.
//
// Codes: with 6-pixel modules starting on a byte boundary a pixel byte can only be white (0xff), black
// (0x00) or one of six two-module mixtures. Rows of those bytes only get our Huffman codes, 2 bits for
// white and black and 4 for the mixtures, built once and sent in each block's header (about 25 bytes);
// the fixed codes, 8 or 9 bits a literal, would double the PNG. Rows with any other byte get the fixed
// codes, so any rows make a valid stream.

const MIN_MATCH = 3;
const MAX_MATCH = 258;
const MAX_DISTANCE = 32768;
const MAX_BITS = 15;
const MAX_CODE_LENGTH_BITS = 7;
const END_OF_BLOCK = 256;
const LITERAL_LENGTH_SYMBOLS = 286;
const DISTANCE_SYMBOLS = 30;
const ADLER_MOD = 65521;
const ZLIB_HEADER = [0x78, 0x01]; // deflate with a 32 KB window, no dictionary; a multiple of 31
const QR_BYTES = [0x00, 0xff, 0x03, 0x0f, 0x3f, 0xc0, 0xf0, 0xfc];

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99];
LENGTH_BASE.push(115, 131, 163, 195, 227, 258);
const lengthExtraBits = (index: number) => (index < 8 || index === 28 ? 0 : (index >> 2) - 1);
const END_AND_LENGTHS = Array.from(
  { length: LITERAL_LENGTH_SYMBOLS - END_OF_BLOCK },
  (_, i) => END_OF_BLOCK + i,
);

/**
 * A complete prefix code (DEFLATE decoders refuse incomplete ones) over `size` symbols: the tiers' symbols
 * get their lengths, the `rest` share what is left of the code space at one length or one bit shorter,
 * all others get none.
 */
function completeCodeLengths(size: number, tiers: Array<[number[], number]>, rest: number[]): Uint8Array {
  const lengths = new Uint8Array(size);
  let space = 1 << MAX_BITS;
  for (const [symbols, bits] of tiers) {
    for (const symbol of symbols) {
      lengths[symbol] = bits;
      space -= 1 << (MAX_BITS - bits);
    }
  }
  let bits = 1;
  while (bits < MAX_BITS && rest.length << (MAX_BITS - bits) > space) bits++;
  const unit = 1 << (MAX_BITS - bits);
  const shorter = (space - rest.length * unit) / unit;
  if (!Number.isInteger(shorter) || shorter < 0 || shorter > rest.length) {
    throw new Error("code lengths do not fill the code space");
  }
  rest.forEach((symbol, i) => lengths[symbol] = i < shorter ? bits - 1 : bits);
  return lengths;
}

/** Huffman code lengths for `counts` (19 symbols at most, so a quadratic merge is plenty). */
function huffmanCodeLengths(counts: number[]): Uint8Array {
  const lengths = new Uint8Array(counts.length);
  let trees = counts.flatMap((count, symbol) => count > 0 ? [{ count, symbols: [symbol] }] : []);
  while (trees.length > 1) {
    trees.sort((a, b) => a.count - b.count);
    const [a, b] = trees;
    const symbols = [...a.symbols, ...b.symbols];
    for (const symbol of symbols) lengths[symbol]++;
    trees = [{ count: a.count + b.count, symbols }, ...trees.slice(2)];
  }
  return lengths;
}

/** Canonical codes for `lengths` (RFC 1951, 3.2.2), bit-reversed: DEFLATE sends Huffman codes MSB first. */
function canonicalCodes(lengths: Uint8Array): Uint16Array {
  const perLength = new Array(MAX_BITS + 1).fill(0);
  for (const bits of lengths) if (bits) perLength[bits]++;
  const next = new Array(MAX_BITS + 1).fill(0);
  for (let bits = 1, code = 0; bits <= MAX_BITS; bits++) {
    code = (code + perLength[bits - 1]) << 1;
    next[bits] = code;
  }
  return Uint16Array.from(lengths, (bits) => bits ? reverseBits(next[bits]++, bits) : 0);
}

function reverseBits(code: number, bits: number): number {
  let reversed = 0;
  for (let i = 0; i < bits; i++) reversed |= ((code >> i) & 1) << (bits - 1 - i);
  return reversed;
}

/** Bits in DEFLATE's order into a buffer the caller sized, two bytes at a time. */
class BitWriter {
  pos: number;
  private pending: number;
  private pendingBits: number;

  constructor(readonly out: Uint8Array, pos = 0, [pending, pendingBits]: [number, number] = [0, 0]) {
    this.pos = pos;
    this.pending = pending;
    this.pendingBits = pendingBits;
  }

  /** `value` of `bits` (at most 16) bits, least significant first. */
  put(value: number, bits: number): void {
    this.pending |= value << this.pendingBits;
    this.pendingBits += bits;
    if (this.pendingBits >= 16) {
      this.out[this.pos++] = this.pending;
      this.out[this.pos++] = this.pending >>> 8;
      this.pending >>>= 16;
      this.pendingBits -= 16;
    }
  }

  /** `bytes[from..to)`, each as its code in `codes` of `lengths` bits (at most 16): `put` in a loop. */
  putEach(bytes: Uint8Array, from: number, to: number, codes: Uint16Array, lengths: Uint8Array): void {
    const out = this.out;
    let pos = this.pos;
    let pending = this.pending;
    let pendingBits = this.pendingBits;
    for (let i = from; i < to; i++) {
      pending |= codes[bytes[i]] << pendingBits;
      pendingBits += lengths[bytes[i]];
      if (pendingBits >= 16) {
        out[pos++] = pending;
        out[pos++] = pending >>> 8;
        pending >>>= 16;
        pendingBits -= 16;
      }
    }
    this.pos = pos;
    this.pending = pending;
    this.pendingBits = pendingBits;
  }

  /** Writes out the pending bits, the last byte padded with zeros. */
  flush(): void {
    for (; this.pendingBits > 0; this.pendingBits -= 8) {
      this.out[this.pos++] = this.pending;
      this.pending >>>= 8;
    }
    this.pendingBits = 0;
  }

  /** The bits not written out yet, for a writer to carry on from. */
  tail(): [number, number] {
    return [this.pending, this.pendingBits];
  }
}

/** A block's codes: the stream's start up to its first symbol, and each symbol's code and length. */
type Codes = {
  start: Uint8Array;
  startTail: [number, number];
  literalCodes: Uint16Array;
  literalBits: Uint8Array;
  /** Per match length 3..258: its symbol's code followed by its extra bits, and how many bits that is. */
  lengthCodes: Uint16Array;
  lengthBits: Uint8Array;
  distanceCodes: Uint16Array;
  distanceBits: Uint8Array;
};

/** Codes of the given lengths, in a block of fixed codes (BTYPE 01) or with the lengths in its header. */
function blockCodes(literalBits: Uint8Array, distanceBits: Uint8Array, kind: "fixed" | "dynamic"): Codes {
  const writer = new BitWriter(new Uint8Array(512));
  for (const byte of ZLIB_HEADER) writer.put(byte, 8);
  writer.put(1, 1); // the final block
  writer.put(kind === "fixed" ? 1 : 2, 2);
  if (kind === "dynamic") writeCodeLengths(writer, literalBits, distanceBits);
  const literalCodes = canonicalCodes(literalBits);
  const lengthCodes = new Uint16Array(MAX_MATCH + 1);
  const lengthBits = new Uint8Array(MAX_MATCH + 1);
  for (let length = MIN_MATCH, index = 0; length <= MAX_MATCH; length++) {
    while (LENGTH_BASE[index + 1] <= length) index++;
    const bits = literalBits[257 + index];
    lengthCodes[length] = literalCodes[257 + index] | ((length - LENGTH_BASE[index]) << bits);
    lengthBits[length] = bits + lengthExtraBits(index);
  }
  return {
    start: writer.out.slice(0, writer.pos),
    startTail: writer.tail(),
    literalCodes,
    literalBits,
    lengthCodes,
    lengthBits,
    distanceCodes: canonicalCodes(distanceBits),
    distanceBits,
  };
}

/** A dynamic block's code lengths (RFC 1951, 3.2.7): run-length coded, themselves Huffman coded. */
function writeCodeLengths(writer: BitWriter, literalBits: Uint8Array, distanceBits: Uint8Array): void {
  const lengths = [...literalBits, ...distanceBits];
  // [symbol, extra bits, their count]: a length, or 16 repeating the last one 3 to 6 times, or 17 and 18
  // giving 3 to 10 and 11 to 138 zeros.
  const sequence: Array<[number, number, number]> = [];
  for (let i = 0; i < lengths.length;) {
    let run = 1;
    while (i + run < lengths.length && lengths[i + run] === lengths[i]) run++;
    const value = lengths[i];
    i += run;
    if (value === 0) {
      for (; run >= 11; run -= Math.min(run, 138)) sequence.push([18, Math.min(run, 138) - 11, 7]);
      if (run >= 3) {
        sequence.push([17, run - 3, 3]);
        run = 0;
      }
    } else {
      sequence.push([value, 0, 0]);
      for (run--; run >= 3; run -= Math.min(run, 6)) sequence.push([16, Math.min(run, 6) - 3, 2]);
    }
    for (; run > 0; run--) sequence.push([value, 0, 0]);
  }
  const counts = new Array(19).fill(0);
  for (const [symbol] of sequence) counts[symbol]++;
  const bits = huffmanCodeLengths(counts);
  if (Math.max(...bits) > MAX_CODE_LENGTH_BITS) throw new Error("code length code too long");
  const codes = canonicalCodes(bits);
  const order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
  let sent = order.length;
  while (bits[order[sent - 1]] === 0) sent--;
  writer.put(literalBits.length - 257, 5);
  writer.put(distanceBits.length - 1, 5);
  writer.put(sent - 4, 4);
  for (let i = 0; i < sent; i++) writer.put(bits[order[i]], 3);
  for (const [symbol, extra, extraBits] of sequence) {
    writer.put(codes[symbol], bits[symbol]);
    writer.put(extra, extraBits);
  }
}

const QR_LITERAL_BITS = completeCodeLengths(
  LITERAL_LENGTH_SYMBOLS,
  [[QR_BYTES.slice(0, 2), 2], [QR_BYTES.slice(2), 4]],
  END_AND_LENGTHS,
);
const qrCodesByDistance = new Map<number, Codes>();

/**
 * Our codes for rows of QR bytes, all copies from one distance: its symbol and another one get a bit each
 * (a complete code again).
 */
function qrCodes(distanceSymbol: number): Codes {
  let codes = qrCodesByDistance.get(distanceSymbol);
  if (!codes) {
    const distanceBits = new Uint8Array(Math.max(distanceSymbol, 1) + 1);
    distanceBits[distanceSymbol] = distanceBits[distanceSymbol === 0 ? 1 : 0] = 1;
    codes = blockCodes(QR_LITERAL_BITS, distanceBits, "dynamic");
    qrCodesByDistance.set(distanceSymbol, codes);
  }
  return codes;
}

const FIXED_CODES = blockCodes(
  // All 288 of RFC 1951's fixed lengths: the two symbols never used still count in the canonical codes.
  Uint8Array.from({ length: 288 }, (_, symbol) => symbol < 144 ? 8 : symbol < 256 ? 9 : symbol < 280 ? 7 : 8),
  new Uint8Array(DISTANCE_SYMBOLS).fill(5),
  "fixed",
);
const MAX_LITERAL_BITS = 9; // the fixed codes'; ours are shorter
// The longest match in either: a length code (8 bits at most in both) with 5 extra bits, a distance code
// (5 bits at most) with 13.
const MAX_MATCH_BITS = 8 + 5 + 5 + 13;

/** A distance 1..32768 as [its symbol, extra bits, their count]. */
function distanceCode(distance: number): [number, number, number] {
  if (distance <= 4) return [distance - 1, 0, 0];
  const d = distance - 1;
  const extraBits = 30 - Math.clz32(d); // floor(log2(d)) - 1
  return [2 * (extraBits + 1) + ((d >> extraBits) & 1), d & ((1 << extraBits) - 1), extraBits];
}

let scratch = new Uint8Array(0);

/**
 * The zlib stream of a PNG's scanlines given as distinct rows: row `r` (`stride` bytes at `r * stride` of
 * `rows`, its filter byte first) stands for `repeats[r]` identical scanlines.
 */
export function deflateScanlines(rows: Uint8Array, stride: number, repeats: ArrayLike<number>): Uint8Array {
  const rowCount = repeats.length;
  if (!(stride >= MIN_MATCH && stride <= MAX_DISTANCE) || rows.length !== rowCount * stride) {
    throw new RangeError(`${rows.length} bytes are not ${rowCount} rows of ${stride} (3 to ${MAX_DISTANCE})`);
  }
  let copied = 0;
  for (let r = 0; r < rowCount; r++) {
    if (!(Number.isInteger(repeats[r]) && repeats[r] >= 1)) {
      throw new RangeError(`row ${r} repeated ${repeats[r]} times`);
    }
    copied += repeats[r] * stride;
  }
  const [distance, extra, extraBits] = distanceCode(stride);
  let qrOnly = true;
  for (let i = 0; i < rows.length && qrOnly; i++) qrOnly = QR_LITERAL_BITS[rows[i]] !== 0;
  const codes = qrOnly ? qrCodes(distance) : FIXED_CODES;
  // Each row byte once as a literal at most; copies (one per row at most, and one at the end) in chunks
  // of 3 to 258 bytes; 16 bytes for the start's last bits, the end of block, padding and Adler-32.
  const bound = codes.start.length + 16 +
    Math.ceil(
      (rows.length * MAX_LITERAL_BITS + (copied / MAX_MATCH + 2 * (rowCount + 1)) * MAX_MATCH_BITS) / 8,
    );
  if (scratch.length < bound) scratch = new Uint8Array(bound);
  scratch.set(codes.start);
  const writer = new BitWriter(scratch, codes.start.length, codes.startTail);

  /** `length` (at least MIN_MATCH) bytes equal to those one scanline before them. */
  const copy = (length: number) => {
    while (length > 0) {
      // Up to MAX_MATCH a time, never leaving 1 or 2 bytes for the last one.
      const chunk = length <= MAX_MATCH ? length : Math.min(MAX_MATCH, length - MIN_MATCH);
      writer.put(codes.lengthCodes[chunk], codes.lengthBits[chunk]);
      writer.put(codes.distanceCodes[distance], codes.distanceBits[distance]);
      writer.put(extra, extraBits);
      length -= chunk;
    }
  };
  // Bytes equal to those one scanline before them, not written yet: the end of a row that matches the
  // row above, the row's repeats, and the start of the next row that still does. Never 1 or 2 bytes:
  // such an end is only taken from 3 bytes or with repeats, and a repeat is a whole row of 3 or more.
  let toCopy = 0;
  for (let r = 0, start = 0; r < rowCount; r++, start += stride) {
    const end = start + stride;
    let i = start;
    if (toCopy > 0) {
      while (i < end && rows[i] === rows[i - stride]) i++;
      toCopy += i - start;
      if (i < end) {
        copy(toCopy);
        toCopy = 0;
      }
    }
    let tail = end;
    if (r > 0) { while (tail > i && rows[tail - 1] === rows[tail - 1 - stride]) tail--; }
    if (end - tail < MIN_MATCH && repeats[r] === 1) tail = end;
    writer.putEach(rows, i, tail, codes.literalCodes, codes.literalBits);
    toCopy += end - tail + (repeats[r] - 1) * stride;
  }
  copy(toCopy);
  writer.put(codes.literalCodes[END_OF_BLOCK], codes.literalBits[END_OF_BLOCK]);
  writer.flush();
  const checksum = adler32(rows, stride, repeats);
  writer.put(checksum >>> 24, 8);
  writer.put((checksum >>> 16) & 0xff, 8);
  writer.put((checksum >>> 8) & 0xff, 8);
  writer.put(checksum & 0xff, 8);
  return scratch.slice(0, writer.pos);
}

/** Adler-32 of the scanlines: each row summed once, its repeats added arithmetically. */
function adler32(rows: Uint8Array, stride: number, repeats: ArrayLike<number>): number {
  let a = 1;
  let b = 0;
  const length = stride % ADLER_MOD;
  for (let r = 0, start = 0; r < repeats.length; r++, start += stride) {
    let sum = 0;
    let weighted = 0; // x1 + (x1 + x2) + ... : each byte times how many sums it is in
    for (let i = start; i < start + stride; i++) {
      sum += rows[i];
      weighted += sum;
    }
    sum %= ADLER_MOD;
    weighted %= ADLER_MOD;
    // k copies add k sums to a, and to b k times the old a per byte, the weighted sums, and the sums of the
    // copies before each: length * sum * k(k - 1) / 2. Taking k modulo 65521 (odd) keeps that exact.
    const k = repeats[r] % ADLER_MOD;
    const before = ((k * (k - 1)) >>> 1) % ADLER_MOD; // k(k - 1) < 2^32
    b = (b + k * ((length * a + weighted) % ADLER_MOD) + ((length * sum) % ADLER_MOD) * before) % ADLER_MOD;
    a = (a + k * sum) % ADLER_MOD;
  }
  return ((b << 16) | a) >>> 0;
}
