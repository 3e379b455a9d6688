// A reporting period `[from, to)`: both ends required (no unbounded range), ISO 8601, `from` before `to`,
// and at most `maxDays` long. Statements, the PDF and analytics share these rules and their answers.
import { AppError } from "../errors.ts";

export type Period = { from: Date; to: Date };

/** Longest period any report reads (analytics over a year and a bit; statements are bounded below). */
export const MAX_PERIOD_DAYS = 366;
const DAY_MS = 86_400_000;

/** ISO 8601 date (`2026-01-31`, read as midnight UTC) or date-time with a zone (`...T10:00:00Z`, `+01:00`). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function parseInstant(value: string, field: string): Date {
  const text = value.trim();
  const ok = ISO_DATE.test(text) || ISO_DATE_TIME.test(text);
  const date = ok ? new Date(ISO_DATE.test(text) ? `${text}T00:00:00Z` : text) : new Date(NaN);
  // Date accepts 2026-02-31 by rolling over; the calendar date must be the one written.
  if (Number.isNaN(date.getTime()) || (ISO_DATE.test(text) && date.toISOString().slice(0, 10) !== text)) {
    throw new AppError("VALIDATION_ERROR", `${field} must be an ISO 8601 date or date-time`, {
      details: [{
        field,
        reason: "an ISO 8601 date (2026-01-31) or date-time with a zone (2026-01-31T10:00:00Z)",
      }],
    });
  }
  return date;
}

/**
 * Parses and checks a period. `maxDays` bounds its length; `tooLongCause` names the refusal of a longer
 * one (VALIDATION_ERROR, cause e.g. RANGE_TOO_LARGE_FOR_PDF) so a client can tell it from a typo.
 */
export function parsePeriod(
  input: { from?: string; to?: string },
  options: { maxDays?: number; tooLongCause?: string; tooLongHint?: string } = {},
): Period {
  const missing = (["from", "to"] as const).filter((f) => input[f] === undefined || input[f] === "");
  if (missing.length > 0) {
    throw new AppError(
      "VALIDATION_ERROR",
      "A period needs both from and to (an unbounded range is refused)",
      {
        details: missing.map((field) => ({ field, reason: "required: an ISO 8601 date or date-time" })),
      },
    );
  }
  const from = parseInstant(input.from!, "from");
  const to = parseInstant(input.to!, "to");
  if (to.getTime() <= from.getTime()) {
    throw new AppError("VALIDATION_ERROR", "to must be after from", {
      details: [{ field: "to", reason: "must be after from (the period is [from, to))" }],
    });
  }
  const maxDays = options.maxDays ?? MAX_PERIOD_DAYS;
  if (to.getTime() - from.getTime() > maxDays * DAY_MS) {
    throw new AppError(
      "VALIDATION_ERROR",
      `The period is longer than ${maxDays} days${options.tooLongHint ? `; ${options.tooLongHint}` : ""}`,
      {
        details: [{ field: "to", reason: `at most ${maxDays} days after from` }],
        reason: options.tooLongCause ?? "RANGE_TOO_LARGE",
      },
    );
  }
  return { from, to };
}
