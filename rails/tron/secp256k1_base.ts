// Child public keys for public BIP32 derivation, fast: parent + tweak * G for public tweaks (an address
// deriver's HMAC output). G * tweak is a sum of table points, one per signed 12-bit digit of the tweak (a
// fixed-base comb: table[w][m - 1] = m * 4096^w * G for m in 1..2048, a negative digit taking the point's
// negation; affine, 43,024 points, built once on first use). The parent and a tweak's 22 table points are
// summed pairwise in affine coordinates, as a tree: each level of the tree does every pair of every tweak
// of the batch with one shared field inversion (Montgomery's trick), so an addition costs 6 field products
// instead of a mixed Jacobian addition's 11, and the sums need no conversion back to affine. Variable time:
// only for public scalars. tests/unit/tron_hd_test.ts checks it against @noble/curves.
import { normalizeZ } from "@noble/curves/abstract/curve.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";

const Point = secp256k1.Point;
/**
 * The field prime. Products reduce by `% P`: V8 divides a 512-bit BigInt by p faster than it folds p's
 * special form (2^256 - 0x1000003d1) with masks, shifts and a multiplication.
 */
const P = Point.CURVE().p;

/** Bits per comb window; digits are signed, so a window's table holds the multiples 1 .. 2^(bits - 1). */
const WINDOW_BITS = 12;
const HALF = 1 << (WINDOW_BITS - 1);
/** Windows of a 256-bit scalar recoded to signed digits: the last one takes the carry out of the 256th bit. */
const WINDOWS = Math.ceil(257 / WINDOW_BITS);

/** Inverts every (non-zero, canonical) element in place with one field inversion and 3 products each. */
function invertAll(values: bigint[]): void {
  const n = values.length;
  if (n === 0) return;
  const prefix: bigint[] = new Array(n);
  prefix[0] = values[0];
  for (let i = 1; i < n; i++) prefix[i] = prefix[i - 1] * values[i] % P;
  let inverse = Point.Fp.inv(prefix[n - 1]);
  for (let i = n - 1; i > 0; i--) {
    const value = values[i];
    values[i] = inverse * prefix[i - 1] % P;
    inverse = inverse * value % P;
  }
  values[0] = inverse;
}

/** Affine points as parallel coordinate lists. */
type Points = { x: bigint[]; y: bigint[] };

/**
 * Writes (x1, y1) + (x2, y2) at index `at` of `out`, given the inverse of x2 - x1 (the points' x differ).
 * Canonical inputs give canonical outputs. A remainder takes the dividend's sign, so a negative one is
 * lifted by p: cheaper than keeping every dividend non-negative with added multiples of p.
 */
function addInto(x1: bigint, y1: bigint, x2: bigint, y2: bigint, inverse: bigint, out: Points, at: number) {
  let slope = (y2 - y1) * inverse % P;
  if (slope < 0n) slope += P;
  let x3 = (slope * slope - x1 - x2) % P;
  if (x3 < 0n) x3 += P;
  let y3 = (slope * (x1 - x3) - y1) % P;
  if (y3 < 0n) y3 += P;
  out.x[at] = x3;
  out.y[at] = y3;
}

/** x2 - x1 mod p, or 1 when they are equal (then the caller must not use the sum). */
function difference(x1: bigint, x2: bigint): bigint {
  const d = x2 - x1;
  return d > 0n ? d : d < 0n ? d + P : 1n;
}

/**
 * Adds `points` pairwise (0 + 1, 2 + 3, ...) in place, an odd last point carried as it is, with the
 * inverses of the pairs' x differences from inverses[from]; answers the index of the next unused inverse.
 */
function addPairs(points: Points, inverses: bigint[], from: number): number {
  const { x, y } = points;
  const n = x.length;
  let out = 0;
  for (let k = 1; k < n; k += 2) addInto(x[k - 1], y[k - 1], x[k], y[k], inverses[from++], points, out++);
  if (n % 2 === 1) {
    x[out] = x[n - 1];
    y[out++] = y[n - 1];
  }
  x.length = out;
  y.length = out;
  return from;
}

let table: Points[] | undefined;

/** table[w]: the affine multiples 1, 2, ... of 2^(WINDOW_BITS * w) * G that a digit of window w can take. */
function comb(): Points[] {
  if (table) return table;
  const doublings = [Point.BASE];
  while (doublings.length < WINDOWS * WINDOW_BITS) doublings.push(doublings[doublings.length - 1].double());
  const powers = normalizeZ(Point, doublings);
  const windows: Points[] = [];
  const wanted: number[] = [];
  for (let w = 0; w < WINDOWS; w++) {
    const base = powers[w * WINDOW_BITS];
    windows.push({ x: [base.X], y: [base.Y] });
    // The last window's digit is what remains of the scalar above the lower windows, plus their carry.
    wanted.push(w < WINDOWS - 1 ? HALF : 2 ** (256 - WINDOW_BITS * w));
  }
  // With a window's multiples 1 .. 2^k of its base B known, (2^k + j)B = 2^k B + jB for 0 < j < 2^k, for
  // every window with one shared inversion; 2^(k+1) B is one of the powers of two.
  for (let k = 0; 2 ** (k + 1) <= HALF; k++) {
    const half = 2 ** k;
    const growing = windows.flatMap((multiples, w) => multiples.x.length < wanted[w] ? [w] : []);
    const inverses: bigint[] = [];
    for (const w of growing) {
      const { x } = windows[w];
      for (let j = 1; j < half; j++) inverses.push(difference(x[half - 1], x[j - 1]));
    }
    invertAll(inverses);
    let used = 0;
    for (const w of growing) {
      const multiples = windows[w];
      const { x, y } = multiples;
      for (let j = 1; j < half; j++) {
        addInto(x[half - 1], y[half - 1], x[j - 1], y[j - 1], inverses[used++], multiples, half + j - 1);
      }
      const power = powers[w * WINDOW_BITS + k + 1];
      x.push(power.X);
      y.push(power.Y);
    }
  }
  return table = windows;
}

/**
 * The points whose sum is parent + tweak * G: the parent, then one table point per non-zero digit of the
 * tweak in signed base 2^WINDOW_BITS (digits in -HALF+1 .. HALF).
 */
function summands(tweak: Uint8Array, parentX: bigint, parentY: bigint, windows: Points[]): Points {
  const x = [parentX], y = [parentY];
  let bits = 0, pending = 0, carry = 0, next = 31;
  for (let w = 0; w < WINDOWS; w++) {
    while (bits < WINDOW_BITS && next >= 0) {
      pending |= tweak[next--] << bits;
      bits += 8;
    }
    let digit = (pending & ((1 << WINDOW_BITS) - 1)) + carry;
    pending >>>= WINDOW_BITS;
    bits -= WINDOW_BITS;
    carry = digit > HALF ? 1 : 0;
    digit -= carry << WINDOW_BITS;
    if (digit === 0) continue;
    const multiples = windows[w];
    const i = Math.abs(digit) - 1;
    x.push(multiples.x[i]);
    y.push(digit > 0 ? multiples.y[i] : P - multiples.y[i]);
  }
  return { x, y };
}

const HEX_VALUE = new Uint8Array(128);
for (let i = 0; i < 16; i++) HEX_VALUE["0123456789abcdef".charCodeAt(i)] = i;

function bytes32(n: bigint, out: Uint8Array, offset: number): void {
  const hex = n.toString(16).padStart(64, "0");
  for (let i = 0; i < 32; i++) {
    out[offset + i] = (HEX_VALUE[hex.charCodeAt(2 * i)] << 4) | HEX_VALUE[hex.charCodeAt(2 * i + 1)];
  }
}

/**
 * The uncompressed (65-byte) public keys parent + tweak_i * G, tweaks being 32-byte big-endian scalars
 * already checked to lie in [1, n). A sum that meets two points of equal x (equal or opposite points,
 * astronomically rare) is handed to @noble/curves, which answers it (or throws, as BIP32 wants, when the
 * child is the point at infinity).
 */
export function childPublicKeys(
  parent: InstanceType<typeof Point>,
  tweaks: Uint8Array[],
): Uint8Array[] {
  const windows = comb();
  const { x: parentX, y: parentY } = parent.toAffine();
  const sums = tweaks.map((tweak) => summands(tweak, parentX, parentY, windows));
  const special = tweaks.map(() => false);
  while (sums.some(({ x }) => x.length > 1)) {
    const dx: bigint[] = [];
    sums.forEach(({ x }, i) => {
      for (let k = 1; k < x.length; k += 2) {
        // Equal x (equal or opposite points): this tweak goes to noble; the stand-in 1 keeps the inversion defined.
        if (x[k] === x[k - 1]) special[i] = true;
        dx.push(difference(x[k - 1], x[k]));
      }
    });
    invertAll(dx);
    let used = 0;
    for (const points of sums) used = addPairs(points, dx, used);
  }
  return sums.map(({ x, y }, i) => {
    if (special[i]) return slow(parent, tweaks[i]);
    const out = new Uint8Array(65);
    out[0] = 4;
    bytes32(x[0], out, 1);
    bytes32(y[0], out, 33);
    return out;
  });
}

function slow(parent: InstanceType<typeof Point>, tweak: Uint8Array): Uint8Array {
  let n = 0n;
  for (const b of tweak) n = (n << 8n) | BigInt(b);
  return Point.BASE.multiplyUnsafe(n).add(parent).toBytes(false);
}
