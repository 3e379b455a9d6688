// IP allowlists: a merchant's (every key) and a key's own, as CIDR ranges of IPv4 and IPv6. An empty list
// allows every address; a non-empty one only its ranges (both lists must allow a request when both are set).
import { parseIpv4, parseIpv6 } from "../ip.ts";
import { AppError } from "../errors.ts";

export const MAX_ALLOWLIST_ENTRIES = 100;

/** An address as 128 bits: IPv4 as its IPv4-mapped IPv6 form, so one comparison serves both families. */
function addressBits(text: string): bigint | null {
  const v4 = parseIpv4(text);
  if (v4 !== null) return (0xffffn << 32n) | BigInt(v4);
  if (!text.includes(":")) return null;
  const groups = parseIpv6(text);
  return groups ? groups.reduce((n, g) => (n << 16n) | BigInt(g), 0n) : null;
}

/** `prefix` counts in 128 bits; `own` is the prefix as written (0: every address of its family). */
type Range = { base: bigint; prefix: number; own: number };

function parseRange(text: string): Range | null {
  const [address, bits, extra] = text.trim().split("/");
  if (extra !== undefined || !address) return null;
  const isV4 = parseIpv4(address) !== null;
  const max = isV4 ? 32 : 128;
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return null;
  const own = bits === undefined ? max : Number(bits);
  if (own > max) return null;
  const base = addressBits(address);
  if (base === null) return null;
  const prefix = isV4 ? 96 + own : own;
  const mask = prefix === 0 ? 0n : ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - prefix)) - 1n);
  return { base: base & mask, prefix, own };
}

function contains(range: Range, address: bigint): boolean {
  const shift = BigInt(128 - range.prefix);
  return (address >> shift) === (range.base >> shift);
}

/** True when `address` is in one of `cidrs`, or `cidrs` is empty. An address we cannot read is outside. */
export function addressAllowed(cidrs: readonly string[], address: string): boolean {
  if (cidrs.length === 0) return true;
  const bits = addressBits(address);
  if (bits === null) return false;
  return cidrs.some((cidr) => {
    const range = parseRange(cidr);
    return range !== null && contains(range, bits);
  });
}

/** The list as stored: each range checked; an allow-all range refused (an empty list says "anyone"). */
export function normalizeAllowlist(cidrs: readonly string[]): string[] {
  const invalid = cidrs.filter((c) => parseRange(c) === null);
  if (invalid.length) {
    throw new AppError("VALIDATION_ERROR", "Not a CIDR range", {
      details: invalid.slice(0, 5).map((c) => ({
        field: "cidrs",
        reason: `not an IPv4 or IPv6 range: ${c}`,
      })),
    });
  }
  if (cidrs.some((c) => parseRange(c)!.own === 0)) {
    throw new AppError("VALIDATION_ERROR", "A range that lets every address in is no allowlist: send []", {
      details: [{ field: "cidrs", reason: "0.0.0.0/0 and ::/0 allow everyone" }],
    });
  }
  return [...new Set(cidrs.map((c) => c.trim().toLowerCase()))];
}

/** Refuses a change after which the address making it could no longer call. */
export function assertNotLockingOut(cidrs: readonly string[], callerAddress: string): void {
  if (!addressAllowed(cidrs, callerAddress)) {
    throw new AppError(
      "IP_ALLOWLIST_SELF_LOCKOUT",
      `This list would refuse the address making this request (${callerAddress.slice(0, 64)})`,
    );
  }
}

/** The request's address must pass the merchant's list and the key's own. */
export function assertAddressAllowed(
  lists: { merchant: readonly string[]; key: readonly string[] },
  address: string,
): void {
  if (addressAllowed(lists.merchant, address) && addressAllowed(lists.key, address)) return;
  throw new AppError("FORBIDDEN", "This address is not on the key's IP allowlist", {
    reason: "IP_NOT_ALLOWED",
  });
}
