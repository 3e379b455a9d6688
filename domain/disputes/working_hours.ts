// Evidence deadlines count working hours, as the card processor the issue cites does (10 for a local
// card, 30 for an international one). Working hours are Monday to Friday, 08:00 to 18:00 in Ouagadougou,
// which keeps UTC all year (no daylight saving), so the arithmetic is plain UTC. Public holidays are not
// counted out (docs/decisions.md).
export const WORKDAY_START_HOUR = 8;
export const WORKDAY_END_HOUR = 18;

const HOUR_MS = 3_600_000;

function isWorkday(d: Date): boolean {
  const day = d.getUTCDay();
  return day >= 1 && day <= 5;
}

function at(d: Date, hour: number): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), hour));
}

/** The next moment at or after `d` that is inside working hours. */
function nextWorkingMoment(d: Date): Date {
  let t = new Date(d.getTime());
  for (;;) {
    if (isWorkday(t)) {
      if (t < at(t, WORKDAY_START_HOUR)) return at(t, WORKDAY_START_HOUR);
      if (t < at(t, WORKDAY_END_HOUR)) return t;
    }
    t = at(new Date(at(t, 0).getTime() + 24 * HOUR_MS), 0);
  }
}

/** `start` plus `hours` working hours (a deadline that falls on a day's end is that day's 18:00). */
export function addWorkingHours(start: Date, hours: number): Date {
  let remaining = hours * HOUR_MS;
  let t = nextWorkingMoment(start);
  for (;;) {
    const left = at(t, WORKDAY_END_HOUR).getTime() - t.getTime();
    if (remaining <= left) return new Date(t.getTime() + remaining);
    remaining -= left;
    t = nextWorkingMoment(at(t, WORKDAY_END_HOUR));
  }
}
