// The history's query language: types, statuses, date ranges, search terms and cursors, checked once
// here for the list and the export alike. What the shape rules (zod) let through is judged for meaning:
// a range that ends before it starts, a cursor this API never gave, a page past the offset window.
import { PAYIN_STATUSES } from "../payins/states.ts";
import { PAYOUT_STATUSES, WITHDRAWAL_STATUSES } from "../money_out/states.ts";
import { ITEM_STATUSES } from "../bulk/states.ts";
import { REFUND_STATUSES } from "../refunds/states.ts";
import { DISPUTE_STATUSES } from "../disputes/states.ts";
import { AppError } from "../errors.ts";
import { ID_ALPHABET, ID_BODY_LENGTH } from "../ids.ts";
import { type Keyset, likeContains, type TransactionFilter } from "../../db/transactions.ts";

export const TRANSACTION_TYPES = [
  "PAYIN",
  "PAYOUT",
  "WITHDRAWAL",
  "CONVERSION",
  "BULK_ITEM",
  "DEPOSIT",
  "REFUND",
  "DISPUTE",
] as const;
export type TransactionType = typeof TRANSACTION_TYPES[number];

/** Every status a transaction of some type can have (conversions: CONFIRMED, FAILED). */
export const TRANSACTION_STATUSES = [
  ...new Set<string>([
    ...PAYIN_STATUSES,
    ...PAYOUT_STATUSES,
    ...WITHDRAWAL_STATUSES,
    ...ITEM_STATUSES,
    ...REFUND_STATUSES,
    ...DISPUTE_STATUSES,
  ]),
].sort() as [string, ...string[]];

export const TRANSACTION_CURRENCIES = ["USDT_TRC20", "XOF"] as const;

/** The id prefixes of the history's records. */
/** `dep_`: late funds or a direct deposit (its id is derived from the transfer, migration 038). */
/** `rfd_`: a refund of a pay-in (migration 041). `dsp_`: a dispute of a pay-in (migration 048). */
export const TRANSACTION_ID_PREFIXES = ["pay", "pout", "wdr", "cnv", "bli", "dep", "rfd", "dsp"] as const;
const TRANSACTION_ID = new RegExp(
  `^(${TRANSACTION_ID_PREFIXES.join("|")})_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`,
);

export function isTransactionId(value: string): boolean {
  return TRANSACTION_ID.test(value);
}

/** Offset pages reach this many rows; past them the keyset cursor goes on (and is cheap at any depth). */
export const OFFSET_WINDOW = 10_000;
/** `total` is exact up to this count; beyond it the list says `totalExact: false` (a count of a million rows is not a page's job: hasNext and nextCursor say whether more follow). */
export const COUNT_CAP = 1_000;

export const SEARCH_MIN = 3;
export const SEARCH_MAX = 100;

/** `YYYY-MM-DD`, or a date and time with `Z` or an offset (seconds and fractions optional). */
export const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(10000, 0, 1);
const DAY_MS = 86_400_000;

function fieldError(field: string, reason: string): AppError {
  return new AppError("VALIDATION_ERROR", `${field}: ${reason}`, { details: [{ field, reason }] });
}

/** Date.parse rolls 2025-02-30 over to March and takes hour 24: the fields are checked as written. */
function realCalendarFields(text: string): boolean {
  const [y, m, d] = text.slice(0, 10).split("-").map(Number);
  if (m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(y, m, 0)).getUTCDate()) return false;
  const time = /T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(text);
  if (time && (Number(time[1]) > 23 || Number(time[2]) > 59 || Number(time[3] ?? 0) > 59)) return false;
  const zone = /([+-])(\d{2}):(\d{2})$/.exec(text);
  return !zone || (Number(zone[2]) <= 14 && Number(zone[3]) <= 59);
}

/** A bound as given: its instant, and whether it named a whole day. */
function parseBound(field: string, text: string): { at: number; dateOnly: boolean } {
  const dateOnly = DATE_ONLY.test(text);
  if (!dateOnly && !DATE_TIME.test(text)) {
    throw fieldError(
      field,
      "must be an ISO 8601 date (2025-01-31) or date-time with a zone (2025-01-31T12:00:00Z)",
    );
  }
  const at = Date.parse(dateOnly ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(at) || !realCalendarFields(text) || at < EARLIEST || at >= LATEST) {
    throw fieldError(field, "is not a real date between 1970 and 9999");
  }
  return { at, dateOnly };
}

/**
 * `from` is inclusive; `to` is inclusive too, to the millisecond the API shows (a date-only `to` takes the
 * whole day): both become the half-open range [from, before).
 */
export function parseRange(
  q: { from?: string; to?: string },
  required: boolean,
): { from?: Date; before?: Date } {
  if (required && (q.from === undefined || q.to === undefined)) {
    const field = q.from === undefined ? "from" : "to";
    throw fieldError(field, "is required: an export covers a bounded period");
  }
  const from = q.from === undefined ? undefined : parseBound("from", q.from).at;
  let before: number | undefined;
  if (q.to !== undefined) {
    const to = parseBound("to", q.to);
    before = to.dateOnly ? to.at + DAY_MS : to.at + 1;
  }
  if (from !== undefined && before !== undefined && before <= from) {
    throw fieldError("to", "must not be before from");
  }
  return {
    from: from === undefined ? undefined : new Date(from),
    before: before === undefined ? undefined : new Date(before),
  };
}

/** A search term: trimmed, 3 to 100 characters, no control characters; matched literally. */
export function searchPattern(search: string | undefined): string | undefined {
  if (search === undefined) return undefined;
  const term = search.trim();
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(term)) throw fieldError("search", "must not contain control characters");
  if ([...term].length < SEARCH_MIN) {
    throw fieldError("search", `needs at least ${SEARCH_MIN} characters`);
  }
  if ([...term].length > SEARCH_MAX) throw fieldError("search", `takes at most ${SEARCH_MAX} characters`);
  return likeContains(term);
}

/** The cursor is the last row's time (ms) and id, base64url: opaque to clients, checked when it comes back. */
export function encodeCursor(k: Keyset): string {
  const text = `${k.createdAt.getTime()}.${k.id}`;
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function decodeCursor(cursor: string): Keyset {
  const bad = () => fieldError("cursor", "is not a cursor this API gave (take meta.nextCursor as it is)");
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw bad();
  let text: string;
  try {
    text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    throw bad();
  }
  const match = /^(\d{1,15})\.(.+)$/.exec(text);
  if (!match || !isTransactionId(match[2])) throw bad();
  const ms = Number(match[1]);
  if (ms < EARLIEST || ms >= LATEST) throw bad();
  return { createdAt: new Date(ms), id: match[2] };
}

export type ListQuery = {
  type?: string;
  status?: string;
  currency?: string;
  from?: string;
  to?: string;
  search?: string;
  page?: number;
  limit: number;
  cursor?: string;
};

export type ListPlan = {
  filter: TransactionFilter;
  limit: number;
  /** Offset paging (page given or nothing given) or keyset paging (cursor). */
  page: number | null;
  offset: number;
  after?: Keyset;
};

export function planList(scope: { merchantId: string; isSandbox: boolean }, q: ListQuery): ListPlan {
  const range = parseRange(q, false);
  const filter: TransactionFilter = {
    ...scope,
    type: q.type,
    status: q.status,
    currency: q.currency,
    from: range.from,
    before: range.before,
    searchPattern: searchPattern(q.search),
  };
  if (q.cursor !== undefined) {
    // page=1 (the default, said out loud) goes with a cursor; a later page does not.
    if (q.page !== undefined && q.page !== 1) throw fieldError("page", "give a page or a cursor, not both");
    return { filter, limit: q.limit, page: null, offset: 0, after: decodeCursor(q.cursor) };
  }
  const page = q.page ?? 1;
  const offset = (page - 1) * q.limit;
  if (offset + q.limit > OFFSET_WINDOW) {
    throw fieldError(
      "page",
      `pages reach the first ${OFFSET_WINDOW} rows; go further with cursor (meta.nextCursor)`,
    );
  }
  return { filter, limit: q.limit, page, offset };
}
