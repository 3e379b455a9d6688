// Operator passwords: scrypt (@noble/hashes), stored as `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` so the
// parameters travel with each hash and a stronger setting applies to new passwords without breaking old
// ones. OWASP's scrypt settings: N=2^15 (32 MiB), r=8, p=3 by default (OPERATOR_SCRYPT_LOG_N). scrypt is
// costly on purpose, and sign-in is open to anyone: at most KDF_SLOTS derivations run at once in a process,
// the others wait their turn, so a flood of sign-ins cannot take the memory or every core.
import { scryptAsync } from "@noble/hashes/scrypt.js";
import { timingSafeEqual } from "../crypto.ts";

const BLOCK_SIZE = 8;
const PARALLELISM = 3;
const KEY_BYTES = 32;
const KDF_SLOTS = 2;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

let running = 0;
const waiting: Array<() => void> = [];

async function inSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= KDF_SLOTS) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next(); // the slot passes on as it is
    else running--;
  }
}

function b64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function unb64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

async function derive(password: string, salt: Uint8Array, logN: number, r: number, p: number) {
  return await inSlot(() =>
    scryptAsync(password.normalize("NFKC"), salt, { N: 2 ** logN, r, p, dkLen: KEY_BYTES, asyncTick: 20 })
  );
}

export async function hashPassword(password: string, logN: number): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await derive(password, salt, logN, BLOCK_SIZE, PARALLELISM);
  return `$scrypt$ln=${logN},r=${BLOCK_SIZE},p=${PARALLELISM}$${b64(salt)}$${b64(key)}`;
}

const STORED = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/** Whether `password` matches `stored`; a malformed stored value matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = STORED.exec(stored);
  if (!m) return false;
  const key = await derive(password, unb64(m[4]), Number(m[1]), Number(m[2]), Number(m[3]));
  return timingSafeEqual(b64(key), m[5]);
}

/** What a password must be: long enough to resist guessing, short enough to hash cheaply. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `at most ${PASSWORD_MAX_LENGTH} characters`;
  return undefined;
}
