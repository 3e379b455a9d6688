// A database that is not there answers 503 SERVICE_UNAVAILABLE with Retry-After, never a 500; a wrong
// statement is still a 500. (tests/e2e/database_outage_test.ts stops a real server under load.)
import { isDatabaseUnavailable } from "../../db/postgres.ts";
import { assertEquals } from "../assert.ts";
import { probeRouter, withGateway } from "../helpers.ts";

/** Errors as the drivers throw them: node:net socket codes, postgres.js's own, and server SQLSTATEs. */
const UNAVAILABLE = [
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
  Object.assign(new Error("write CONNECTION_CLOSED"), { code: "CONNECTION_CLOSED" }),
  Object.assign(new Error("connect_timeout"), { code: "CONNECT_TIMEOUT" }),
  Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
  Object.assign(new Error("the database system is starting up"), { code: "57P03" }),
  Object.assign(new Error("sorry, too many clients already"), { code: "53300" }),
  Object.assign(new Error("connection failure"), { code: "08006" }),
  new Error("could not claim a deposit address", {
    cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
  }),
];
const BROKEN = [
  Object.assign(new Error('relation "nope" does not exist'), { code: "42P01" }),
  Object.assign(new Error("duplicate key"), { code: "23505" }),
  new Error("plain bug"),
];

Deno.test("connection failures are told apart from wrong statements", () => {
  assertEquals(UNAVAILABLE.map((e) => isDatabaseUnavailable(e)), UNAVAILABLE.map(() => true));
  assertEquals(BROKEN.map((e) => isDatabaseUnavailable(e)), BROKEN.map(() => false));
});

Deno.test(
  "a request that meets an absent database answers 503 SERVICE_UNAVAILABLE with Retry-After",
  withGateway(async (gw) => {
    const probe = probeRouter(gw);
    let next: Error = UNAVAILABLE[0];
    probe.get("/probe", () => {
      throw next;
    });
    for (const err of UNAVAILABLE) {
      next = err;
      const res = await probe.request("/probe");
      const body = await res.json();
      assertEquals([res.status, body.error.code, res.headers.get("retry-after")], [
        503,
        "SERVICE_UNAVAILABLE",
        "2",
      ]);
    }
    for (const err of BROKEN) {
      next = err;
      const res = await probe.request("/probe");
      assertEquals([res.status, (await res.json()).error.code], [500, "INTERNAL_ERROR"]);
    }
  }),
);
