// Operator accounts (issue 22): sign-in with password and TOTP (replays refused), backup codes used once,
// failures that slow down and lock, sessions in a cookie that expire when idle, CSRF on every change, and
// roles: what a viewer, a reviewer, an admin, a merchant key, an anonymous caller and a forged form get.
import { manualClock } from "../../domain/clock.ts";
import { totpCode } from "../../domain/operators/totp.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { ADMIN_TOKEN, withGateway } from "../helpers.ts";
import {
  cookieOf,
  newOperator,
  OPERATOR_TEST_ENV,
  operatorClient,
  PASSWORD,
  signInAs,
} from "../operator_helpers.ts";

const STEP_MS = 30_000;

function clockAtStepStart() {
  return manualClock(new Date(Math.floor(Date.now() / STEP_MS) * STEP_MS + 1000));
}

Deno.test("sign-in: password, then TOTP; a replayed code, a wrong one, a backup code used twice", async () => {
  const clock = clockAtStepStart();
  await withGateway(async (gw) => {
    const op = await newOperator(gw, "reviewer", "Awa@Example.com");
    assertEquals([op.email, op.role, op.status, op.backupCodes.length], [
      "awa@example.com",
      "reviewer",
      "ACTIVE",
      10,
    ]);
    assertMatch(op.totpUri, /^otpauth:\/\/totp\/.*secret=/);
    const signIn = (body: Record<string, unknown>) => gw.request("POST", "/admin/api/session", { body });

    const noCode = await signIn({ email: op.email, password: PASSWORD });
    assertEquals([noCode.status, noCode.json.error.code], [403, "TOTP_REQUIRED"]);
    const wrongPassword = await signIn({ email: op.email, password: "wrong password!", totp: "000000" });
    assertEquals([wrongPassword.status, wrongPassword.json.error.code], [401, "UNAUTHORIZED"]);
    const unknown = await signIn({ email: "nobody@example.com", password: PASSWORD, totp: "123456" });
    assertEquals([unknown.status, unknown.json.error.message], [401, wrongPassword.json.error.message]);

    clock.advance(2000); // the slow-down after two failures in a row
    const code = totpCode(op.totpSecret, clock.now());
    const wrongCode = await signIn({
      email: op.email,
      password: PASSWORD,
      totp: code === "000000" ? "111111" : "000000",
    });
    assertEquals([wrongCode.status, wrongCode.json.error.code], [400, "TOTP_INVALID"]);
    clock.advance(4000);
    const good = await signIn({ email: op.email.toUpperCase(), password: PASSWORD, totp: code });
    assertEquals(good.status, 201, good.text);
    assertEquals(good.json.data.operator, { id: op.id, email: op.email, role: "reviewer" });
    const cookie = good.headers.get("set-cookie")!;
    assertMatch(cookie, /^gw_operator=[0-9a-z]{51}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);

    const replay = await signIn({ email: op.email, password: PASSWORD, totp: code });
    assertEquals([replay.status, replay.json.error.code], [400, "TOTP_INVALID"]);
    assertMatch(replay.json.error.message, /already used/);
    clock.advance(STEP_MS);
    const next = await signIn({
      email: op.email,
      password: PASSWORD,
      totp: totpCode(op.totpSecret, clock.now()),
    });
    assertEquals(next.status, 201);

    const backup = op.backupCodes[3];
    const withBackup = await signIn({
      email: op.email,
      password: PASSWORD,
      backupCode: backup.toUpperCase(),
    });
    assertEquals(withBackup.status, 201);
    const again = await signIn({ email: op.email, password: PASSWORD, backupCode: backup });
    assertEquals([again.status, again.json.error.code], [400, "BACKUP_CODE_INVALID"]);
    const both = await signIn({ email: op.email, password: PASSWORD, backupCode: backup, totp: "123456" });
    assertEquals(both.json.error.code, "VALIDATION_ERROR");
  }, { clock, env: OPERATOR_TEST_ENV })();
});

Deno.test("failed sign-ins slow down, then lock the account for 15 minutes; 50 at once lock it too", async () => {
  const clock = clockAtStepStart();
  await withGateway(async (gw) => {
    const op = await newOperator(gw, "viewer");
    const attempt = (password: string, clientAddress = "203.0.113.7") =>
      gw.request("POST", "/admin/api/session", {
        body: { email: op.email, password, totp: totpCode(op.totpSecret, clock.now()) },
        clientAddress,
      });
    assertEquals((await attempt("wrong one")).status, 401);
    assertEquals((await attempt("wrong two")).status, 401);
    const hurried = await attempt(PASSWORD);
    assertEquals([hurried.status, hurried.json.error.code, hurried.headers.get("retry-after")], [
      429,
      "RATE_LIMIT_EXCEEDED",
      "1",
    ]);
    for (const wait of [1000, 2000, 4000]) {
      clock.advance(wait);
      assertEquals((await attempt("wrong again")).status, 401);
    }
    clock.advance(60_000);
    const locked = await attempt(PASSWORD);
    assertEquals([locked.status, locked.json.error.code], [429, "RATE_LIMIT_EXCEEDED"]);
    assertMatch(locked.json.error.message, /locked/);
    assertEquals(Number(locked.headers.get("retry-after")), 14 * 60);
    const listed = await gw.admin("GET", "/admin/api/operators");
    assertEquals(listed.json.data.items.find((o: { id: string }) => o.id === op.id).status, "LOCKED");
    clock.advance(15 * 60_000);
    const after = await attempt(PASSWORD);
    assertEquals(after.status, 201, after.text);

    // 50 wrong passwords at once from 50 addresses: the account locks, nothing answers 500.
    clock.advance(STEP_MS);
    const other = await newOperator(gw, "admin");
    const storm = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        gw.request("POST", "/admin/api/session", {
          body: { email: other.email, password: `wrong ${i}`, totp: "123456" },
          clientAddress: `198.51.100.${i}`,
        })),
    );
    assert(storm.every((r) => r.status === 401 || r.status === 429), storm.map((r) => r.status).join());
    const right = await gw.request("POST", "/admin/api/session", {
      body: { email: other.email, password: PASSWORD, totp: totpCode(other.totpSecret, clock.now()) },
    });
    assertEquals(right.status, 429);
    // An admin re-enables it: the lock is lifted.
    const lifted = await gw.admin("PATCH", `/admin/api/operators/${other.id}`, { status: "ACTIVE" });
    assertEquals(lifted.json.data.status, "ACTIVE");
  }, { clock, env: OPERATOR_TEST_ENV })();
});

Deno.test("sessions: idle expiry, sign-out, CSRF on changes, another origin refused, bound address", async () => {
  const clock = clockAtStepStart();
  await withGateway(async (gw) => {
    const viewer = await operatorClient(gw, "viewer");
    const me = await viewer.call("GET", "/admin/api/session");
    assertEquals([me.status, me.json.data.operator.role, me.json.data.csrfToken], [
      200,
      "viewer",
      viewer.csrf,
    ]);
    clock.advance(29 * 60_000);
    assertEquals((await viewer.call("GET", "/admin/api/review")).status, 200);
    clock.advance(29 * 60_000); // used 29 minutes ago: still alive
    assertEquals((await viewer.call("GET", "/admin/api/review")).status, 200);
    clock.advance(31 * 60_000);
    const idle = await viewer.call("GET", "/admin/api/review");
    assertEquals([idle.status, idle.json.error.code], [401, "UNAUTHORIZED"]);

    clock.advance(STEP_MS);
    const admin = await operatorClient(gw, "admin");
    const noCsrf = await admin.call("DELETE", "/admin/api/session", undefined, { csrf: false });
    assertEquals([noCsrf.status, noCsrf.json.error.code, noCsrf.json.error.cause], [
      403,
      "FORBIDDEN",
      "CSRF_TOKEN_INVALID",
    ]);
    const forged = await admin.call("POST", "/admin/api/merchants", { name: "Forged" }, {
      csrf: "a".repeat(38),
    });
    assertEquals([forged.status, forged.json.error.cause], [403, "CSRF_TOKEN_INVALID"]);
    const crossSite = await admin.call("POST", "/admin/api/merchants", { name: "Stolen form" }, {
      headers: { origin: "https://evil.example" },
    });
    assertEquals([crossSite.status, crossSite.json.error.cause], [403, "CROSS_ORIGIN"]);
    const out = await admin.call("DELETE", "/admin/api/session");
    assertEquals(out.status, 200);
    assertMatch(out.headers.get("set-cookie") ?? "", /^gw_operator=; Max-Age=0/);
    assertEquals((await admin.call("GET", "/admin/api/session")).status, 401);
    const tokenOut = await gw.admin("DELETE", "/admin/api/session");
    assertEquals([tokenOut.status, tokenOut.json.error.code], [400, "BAD_REQUEST"]);
  }, { clock, env: OPERATOR_TEST_ENV })();
});

Deno.test("a session bound to its address; over https the cookie is __Host- and Secure", async () => {
  await withGateway(async (gw) => {
    const op = await newOperator(gw, "viewer");
    const res = await gw.request("POST", "/admin/api/session", {
      body: { email: op.email, password: PASSWORD, totp: totpCode(op.totpSecret, gw.deps.clock.now()) },
      clientAddress: "203.0.113.1",
    });
    const setCookie = res.headers.get("set-cookie")!;
    assertMatch(
      setCookie,
      /^__Host-gw_operator=\w+; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    const cookie = cookieOf(setCookie);
    const here = await gw.request("GET", "/admin/api/session", {
      headers: { cookie },
      clientAddress: "203.0.113.1",
    });
    assertEquals(here.status, 200);
    const elsewhere = await gw.request("GET", "/admin/api/session", {
      headers: { cookie },
      clientAddress: "198.51.100.9",
    });
    assertEquals([elsewhere.status, elsewhere.json.error.code], [401, "UNAUTHORIZED"]);
  }, {
    env: {
      ...OPERATOR_TEST_ENV,
      PUBLIC_URL: "https://pay.example.com",
      OPERATOR_SESSION_BIND_ADDRESS: "true",
    },
  })();
});

Deno.test("roles: what a viewer, a reviewer, an admin, a merchant key and an anonymous caller get", async () => {
  const clock = clockAtStepStart();
  await withGateway(async (gw) => {
    const m = await gw.createMerchant("Roles");
    const viewer = await operatorClient(gw, "viewer");
    const reviewer = await operatorClient(gw, "reviewer");
    const admin = await operatorClient(gw, "admin");
    const id = "pout_00000000000000000000000000";
    // [method, path, body, least role]
    const routes: Array<[string, string, unknown, "viewer" | "reviewer" | "admin"]> = [
      ["GET", "/admin/api/review", undefined, "viewer"],
      ["GET", `/admin/api/merchants/${m.merchantId}`, undefined, "viewer"],
      ["GET", "/admin/api/treasury", undefined, "viewer"],
      ["POST", `/admin/api/review/${id}/approve`, { reviewer: "x" }, "reviewer"],
      ["POST", `/admin/api/review/${id}/reject`, { reviewer: "x", note: "no" }, "reviewer"],
      ["PATCH", `/admin/api/merchants/${m.merchantId}`, { status: "ACTIVE" }, "admin"],
      ["POST", `/admin/api/merchants/${m.merchantId}/kyb`, { status: "APPROVED" }, "admin"],
      ["GET", "/admin/api/operators", undefined, "admin"],
      ["GET", "/admin/api/mail-outbox", undefined, "admin"],
    ];
    const rank = { viewer: 0, reviewer: 1, admin: 2 };
    for (const [method, path, body, least] of routes) {
      clock.advance(61_000); // a new minute: the refused calls below count against the address
      for (const client of [viewer, reviewer, admin]) {
        const res = await client.call(method, path, body);
        const allowed = rank[client.operator.role] >= rank[least];
        const where = `${client.operator.role} ${method} ${path}: ${res.status} ${res.text.slice(0, 200)}`;
        if (allowed) assert(res.status !== 403 && res.status !== 401, where);
        else assertEquals([res.status, res.json.error.cause], [403, "INSUFFICIENT_ROLE"], where);
      }
      const merchantKey = await gw.request(method, path, { body, key: m.keys.liveSecret });
      assertEquals(merchantKey.status, 401, `merchant key ${method} ${path}`);
      const bearerKey = await gw.request(method, path, {
        body,
        headers: { authorization: `Bearer ${m.keys.liveSecret}` },
      });
      assertEquals(bearerKey.status, 401, `merchant key as bearer ${method} ${path}`);
      const anonymous = await gw.request(method, path, { body });
      assertEquals(anonymous.status, 401, `anonymous ${method} ${path}`);
      const token = await gw.request(method, path, {
        body,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert(token.status !== 401 && token.status !== 403, `token ${method} ${path}`);
    }
  }, { clock, env: OPERATOR_TEST_ENV })();
});

Deno.test("hostile sign-in input: NUL bytes, huge strings, wrong types, nothing answers 500", async () => {
  await withGateway(async (gw) => {
    const op = await newOperator(gw, "viewer");
    const bodies: unknown[] = [
      { email: op.email, password: "abc\u0000def", totp: "123456" },
      { email: "x".repeat(100_000), password: PASSWORD },
      { email: op.email, password: "p".repeat(100_000) },
      { email: op.email, password: PASSWORD, totp: 123456 },
      { email: op.email, password: PASSWORD, totp: "\ud800" },
      { email: ["a"], password: PASSWORD },
      { email: op.email, password: PASSWORD, extra: true },
      "not an object",
    ];
    for (const body of bodies) {
      const res = await gw.request("POST", "/admin/api/session", { body });
      assertEquals(
        [res.status, res.json.error.code],
        [400, "VALIDATION_ERROR"],
        JSON.stringify(body).slice(0, 80),
      );
    }
    const created = await gw.admin("POST", "/admin/api/operators", { email: "not-an-email", role: "viewer" });
    assertEquals(created.json.error.code, "VALIDATION_ERROR");
    const short = await gw.admin("POST", "/admin/api/operators", {
      email: "ok@example.com",
      role: "viewer",
      password: "short",
    });
    assertEquals(short.json.error.code, "VALIDATION_ERROR");
    const made = await gw.admin("POST", "/admin/api/operators", { email: "ok@example.com", role: "admin" });
    assertEquals(made.status, 201);
    assertEquals(made.json.data.password.length, 28); // 144 random bits
    const twice = await gw.admin("POST", "/admin/api/operators", { email: "OK@example.com", role: "admin" });
    assertEquals([twice.status, twice.json.error.code], [409, "DUPLICATE_RESOURCE"]);
    const signed = await signInAs(gw, op);
    const disabled = await gw.admin("PATCH", `/admin/api/operators/${op.id}`, { status: "DISABLED" });
    assertEquals(disabled.json.data.status, "DISABLED");
    assertEquals((await signed.call("GET", "/admin/api/session")).status, 401);
  }, { env: OPERATOR_TEST_ENV })();
});
