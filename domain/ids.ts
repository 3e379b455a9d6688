// Prefixed, time-sortable identifiers (`pay_01j...`): 48 bits of milliseconds then 80 random bits,
// Crockford base32, so an id says what it is and sorts by creation time.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
export const ID_ALPHABET = ALPHABET;

export type IdPrefix =
  | "mch"
  | "key"
  | "wal"
  | "jrn"
  | "evt"
  | "whe"
  | "dlv"
  | "pay"
  | "pout"
  | "wdr"
  | "rfo"
  | "plk"
  | "prd"
  | "prm"
  | "tpl"
  | "ord"
  | "rlk"
  | "wla"
  | "swp"
  | "cnv"
  | "blk"
  | "bli"
  | "fdst"
  | "fdis"
  | "sub"
  | "srn"
  | "eml"
  | "opr"
  | "ses"
  | "exp"
  | "req"
  | "rfd"
  | "dsp"
  | "dsf"
  | "kyd"
  | "kth"
  | "kym";

function encodeTime(ms: number): string {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** Several ids are made per request, often in the same millisecond: the time part is kept for it. */
let lastTimeMs = NaN;
let lastTimeText = "";

function timePart(ms: number): string {
  if (ms !== lastTimeMs) {
    lastTimeText = encodeTime(ms);
    lastTimeMs = ms;
  }
  return lastTimeText;
}

/**
 * Random bytes for ids are drawn from the system's secure source a few kilobytes at a time rather than
 * ten bytes per id (one call into the runtime each). Secrets (randomToken) still draw their own.
 */
const ID_RANDOM_POOL_BYTES = 4000;
let idRandomPool = new Uint8Array(0);
let idRandomUsed = 0;

/** 80 random bits as 16 characters: encodeRandom of 10 bytes, five bytes (8 characters) at a time. */
function randomPart(): string {
  if (idRandomUsed + 10 > idRandomPool.length) {
    idRandomPool = crypto.getRandomValues(new Uint8Array(ID_RANDOM_POOL_BYTES));
    idRandomUsed = 0;
  }
  const b = idRandomPool;
  let out = "";
  for (let i = idRandomUsed; i < idRandomUsed + 10; i += 5) {
    const high = b[i];
    const low = ((b[i + 1] << 24) | (b[i + 2] << 16) | (b[i + 3] << 8) | b[i + 4]) >>> 0;
    out += ALPHABET[high >>> 3] + ALPHABET[((high & 7) << 2) | (low >>> 30)] +
      ALPHABET[(low >>> 25) & 31] + ALPHABET[(low >>> 20) & 31] + ALPHABET[(low >>> 15) & 31] +
      ALPHABET[(low >>> 10) & 31] + ALPHABET[(low >>> 5) & 31] + ALPHABET[low & 31];
  }
  idRandomUsed += 10;
  return out;
}

export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  return `${prefix}_${timePart(nowMs)}${randomPart()}`;
}

/** `prefix_` and the time part of an id made at `nowMs`: what a database appends random parts to. */
export function idTimePrefix(prefix: IdPrefix, nowMs: number): string {
  return `${prefix}_${timePart(nowMs)}`;
}

/** Length of everything after `prefix_`: 10 time characters and 16 random ones. */
export const ID_BODY_LENGTH = 26;

const ID_BODY = new RegExp(`^[${ALPHABET}]{${ID_BODY_LENGTH}}$`);

/**
 * Whether `value` can be an id this gateway issued with `prefix`. Route parameters are checked with it
 * before any query, so a malformed id (a NUL byte, a quote, 10 KB of text) is an unknown one: NOT_FOUND.
 */
export function isWellFormedId(prefix: IdPrefix, value: string): boolean {
  return value.length === prefix.length + 1 + ID_BODY_LENGTH && value.startsWith(`${prefix}_`) &&
    ID_BODY.test(value.slice(prefix.length + 1));
}

/** Random url-safe token of `bytes` random bytes, for secrets and keys. */
export function randomToken(bytes = 24): string {
  return encodeRandom(crypto.getRandomValues(new Uint8Array(bytes)));
}
