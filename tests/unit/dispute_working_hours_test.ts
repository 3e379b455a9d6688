// Evidence deadlines in working hours: Monday to Friday, 08:00-18:00 Ouagadougou time (UTC).
import { assertEquals } from "../assert.ts";
import { addWorkingHours } from "../../domain/disputes/working_hours.ts";

const at = (iso: string) => new Date(iso);

Deno.test("working hours skip nights and weekends", () => {
  // Monday 2 March 2026, 09:00.
  assertEquals(addWorkingHours(at("2026-03-02T09:00:00Z"), 10).toISOString(), "2026-03-03T09:00:00.000Z");
  assertEquals(addWorkingHours(at("2026-03-02T09:00:00Z"), 30).toISOString(), "2026-03-05T09:00:00.000Z");
  // Friday 17:00: one hour on Friday, nine on Monday.
  assertEquals(addWorkingHours(at("2026-03-06T17:00:00Z"), 10).toISOString(), "2026-03-09T17:00:00.000Z");
  // Opened on a Saturday night or before opening time: the clock starts Monday 08:00.
  assertEquals(addWorkingHours(at("2026-03-07T23:30:00Z"), 10).toISOString(), "2026-03-09T18:00:00.000Z");
  assertEquals(addWorkingHours(at("2026-03-04T06:00:00Z"), 2).toISOString(), "2026-03-04T10:00:00.000Z");
  // After closing time: the next morning.
  assertEquals(addWorkingHours(at("2026-03-04T19:00:00Z"), 1).toISOString(), "2026-03-05T09:00:00.000Z");
  // Exactly at closing: that evening's 18:00 is the deadline.
  assertEquals(addWorkingHours(at("2026-03-04T08:00:00Z"), 10).toISOString(), "2026-03-04T18:00:00.000Z");
});
