// A lean QR encoder for what the gateway draws: byte mode, error correction level M, mask pattern 0,
// versions 1 to 10 (up to 213 bytes; a TRON address is version 3). Each version's fixed modules (finder,
// timing and alignment patterns, format and version information) and the order of its data modules are
// worked out once, on first use; a code then costs its Reed-Solomon blocks and one pass over the data
// modules, a few microseconds where the general `qrcode` package takes about 70. Longer texts answer
// undefined and the caller falls back to `qrcode`. tests/unit/tron_qr_test.ts checks module for module
// that both draw the same code.

/** Per version 1..10 at level M: EC codewords per block, then [blocks, data codewords] per group. */
const BLOCKS_M: Array<[number, Array<[number, number]>]> = [
  [10, [[1, 16]]],
  [16, [[1, 28]]],
  [26, [[1, 44]]],
  [18, [[2, 32]]],
  [24, [[2, 43]]],
  [16, [[4, 27]]],
  [18, [[4, 31]]],
  [22, [[2, 38], [2, 39]]],
  [22, [[3, 36], [2, 37]]],
  [26, [[4, 43], [1, 44]]],
];
const ALIGNMENT: number[][] = [
  [],
  [6, 18],
  [6, 22],
  [6, 26],
  [6, 30],
  [6, 34],
  [6, 22, 38],
  [6, 24, 42],
  [6, 26, 46],
  [6, 28, 50],
];
export const MAX_QR_BYTES = 213;

// GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
}

/** Coefficients (highest degree first, leading 1 dropped) of prod (x - a^i), i < degree. */
function generator(degree: number): Uint8Array {
  let poly = [1];
  for (let i = 0; i < degree; i++) {
    const next = new Array(poly.length + 1).fill(0);
    for (let j = 0; j < poly.length; j++) {
      next[j] ^= poly[j];
      if (poly[j] !== 0) next[j + 1] ^= EXP[LOG[poly[j]] + i];
    }
    poly = next;
  }
  return Uint8Array.from(poly.slice(1));
}

function reedSolomon(data: Uint8Array, gen: Uint8Array): Uint8Array {
  const ec = new Uint8Array(gen.length);
  for (const byte of data) {
    const factor = byte ^ ec[0];
    ec.copyWithin(0, 1);
    ec[ec.length - 1] = 0;
    if (factor !== 0) {
      const lf = LOG[factor];
      for (let i = 0; i < gen.length; i++) ec[i] ^= EXP[LOG[gen[i]] + lf];
    }
  }
  return ec;
}

/** BCH remainder of `value` (already shifted) by `poly`, both as bit strings. */
function bch(value: number, poly: number): number {
  const top = 31 - Math.clz32(poly);
  let v = value;
  while (v !== 0 && 31 - Math.clz32(v) >= top) v ^= poly << (31 - Math.clz32(v) - top);
  return v;
}

type Template = {
  size: number;
  /** The fixed modules, 1 = dark, already final (they are never masked). */
  base: Uint8Array;
  /** Indexes (y * size + x) of the data modules in placement order, and whether mask 0 flips each. */
  order: Uint32Array;
  flip: Uint8Array;
  dataCodewords: number;
  gen: Uint8Array;
  groups: Array<[number, number]>;
};
const templates = new Map<number, Template>();

function template(version: number): Template {
  const known = templates.get(version);
  if (known) return known;
  const size = version * 4 + 17;
  const base = new Uint8Array(size * size);
  const fixed = new Uint8Array(size * size);
  const set = (x: number, y: number, dark: boolean) => {
    base[y * size + x] = dark ? 1 : 0;
    fixed[y * size + x] = 1;
  };
  // Finder patterns with their separators.
  for (const [fx, fy] of [[0, 0], [size - 7, 0], [0, size - 7]]) {
    for (let dy = -1; dy <= 7; dy++) {
      for (let dx = -1; dx <= 7; dx++) {
        const x = fx + dx, y = fy + dy;
        if (x < 0 || y < 0 || x >= size || y >= size) continue;
        const ring = Math.max(Math.abs(dx - 3), Math.abs(dy - 3));
        set(x, y, ring !== 2 && ring !== 4);
      }
    }
  }
  // Alignment patterns, except where they would overlap a finder.
  const centres = ALIGNMENT[version - 1];
  for (const cy of centres) {
    for (const cx of centres) {
      if (fixed[cy * size + cx]) continue;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }
  }
  // Timing patterns.
  for (let i = 8; i < size - 8; i++) {
    set(i, 6, i % 2 === 0);
    set(6, i, i % 2 === 0);
  }
  // Format information: level M (00), mask 0 (000).
  const format = (bch(0 << 10, 0x537) | (0 << 10)) ^ 0x5412;
  const bit = (v: number, i: number) => ((v >>> i) & 1) === 1;
  for (let i = 0; i < 15; i++) {
    const b = bit(format, i);
    // Around the top-left finder.
    if (i < 6) set(8, i, b);
    else if (i < 8) set(8, i + 1, b);
    else set(8, size - 15 + i, b);
    // Split between the top-right and bottom-left finders.
    if (i < 8) set(size - i - 1, 8, b);
    else if (i < 9) set(15 - i - 1 + 1, 8, b);
    else set(15 - i - 1, 8, b);
  }
  set(8, size - 8, true); // the dark module
  // Version information (versions 7 and up).
  if (version >= 7) {
    const info = (version << 12) | bch(version << 12, 0x1f25);
    for (let i = 0; i < 18; i++) {
      const b = bit(info, i);
      const a = Math.floor(i / 3), c = (i % 3) + size - 11;
      set(a, c, b);
      set(c, a, b);
    }
  }
  // Data modules: two-column zigzag from the bottom-right corner, skipping the vertical timing column.
  const order: number[] = [];
  let upward = true;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let step = 0; step < size; step++) {
      const y = upward ? size - 1 - step : step;
      for (const x of [right, right - 1]) if (!fixed[y * size + x]) order.push(y * size + x);
    }
    upward = !upward;
  }
  const [ecPerBlock, groups] = BLOCKS_M[version - 1];
  const t: Template = {
    size,
    base,
    order: Uint32Array.from(order),
    flip: Uint8Array.from(order, (i) => ((i % size) + Math.floor(i / size)) % 2 === 0 ? 1 : 0),
    dataCodewords: groups.reduce((n, [blocks, data]) => n + blocks * data, 0),
    gen: generator(ecPerBlock),
    groups,
  };
  templates.set(version, t);
  return t;
}

/** Data bits: byte mode, the length, the bytes, a terminator, then the standard pad bytes. */
function dataCodewords(bytes: Uint8Array, version: number, capacity: number): Uint8Array {
  const out = new Uint8Array(capacity);
  let acc = 0, bits = 0, n = 0;
  const put = (value: number, count: number) => {
    for (let i = count - 1; i >= 0; i--) {
      acc = (acc << 1) | ((value >>> i) & 1);
      if (++bits === 8) {
        out[n++] = acc;
        acc = 0;
        bits = 0;
      }
    }
  };
  put(0b0100, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  for (const b of bytes) put(b, 8);
  put(0, Math.min(4, capacity * 8 - (n * 8 + bits)));
  if (bits > 0) put(0, 8 - bits);
  for (let pad = 0xec; n < capacity; pad ^= 0xec ^ 0x11) out[n++] = pad;
  return out;
}

/**
 * The module matrix (size x size, 1 = dark) of `bytes` at level M with mask 0, in the smallest version
 * that holds it; undefined past version 10.
 */
export function encodeQr(bytes: Uint8Array): { size: number; modules: Uint8Array } | undefined {
  let version = 0;
  for (let v = 1; v <= 10; v++) {
    const capacity = BLOCKS_M[v - 1][1].reduce((n, [blocks, data]) => n + blocks * data, 0);
    const header = 4 + (v < 10 ? 8 : 16);
    if (header + bytes.length * 8 <= capacity * 8) {
      version = v;
      break;
    }
  }
  if (version === 0) return undefined;
  const t = template(version);
  const data = dataCodewords(bytes, version, t.dataCodewords);
  // Split into blocks, add each block's error correction, interleave.
  const blocks: Uint8Array[] = [];
  const ecs: Uint8Array[] = [];
  let offset = 0;
  for (const [count, length] of t.groups) {
    for (let b = 0; b < count; b++) {
      const block = data.subarray(offset, offset + length);
      blocks.push(block);
      ecs.push(reedSolomon(block, t.gen));
      offset += length;
    }
  }
  const codewords = new Uint8Array(t.dataCodewords + ecs.length * t.gen.length);
  let k = 0;
  const longest = blocks[blocks.length - 1].length;
  for (let i = 0; i < longest; i++) {
    for (const block of blocks) if (i < block.length) codewords[k++] = block[i];
  }
  for (let i = 0; i < t.gen.length; i++) for (const ec of ecs) codewords[k++] = ec[i];
  const modules = t.base.slice();
  const { order, flip } = t;
  for (let i = 0; i < order.length; i++) {
    // Remainder bits past the last codeword are 0 (light before masking).
    const bit = (i >> 3) < codewords.length ? (codewords[i >> 3] >>> (7 - (i & 7))) & 1 : 0;
    modules[order[i]] = bit ^ flip[i];
  }
  return { size: t.size, modules };
}
