// An operator's own account on the page: change the password (wrong current password, a short new one, a
// forged form: refused, nothing changed; done: every session ends, the old password no longer signs in),
// enrol a new authenticator (a wrong code, an altered or another operator's enrolment: refused; done: the
// old secret's codes stop working, the new one's sign in) and renew the backup codes (the old ones stop
// working). Each change is one audit record without its secrets.
import { manualClock } from "../../domain/clock.ts";
import { totpCode } from "../../domain/operators/totp.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { type TestGateway, withGateway } from "../helpers.ts";
import { cookieOf, newOperator, OPERATOR_TEST_ENV, PASSWORD } from "../operator_helpers.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const NEW_PASSWORD = "a brand new passphrase 42";

async function signInForm(gw: TestGateway, email: string, password: string, code: string) {
  return await gw.request("POST", "/admin/sign-in", {
    headers: FORM,
    rawBody: new URLSearchParams({ email, password, code }).toString(),
  });
}

async function pageSession(gw: TestGateway, email: string, password: string, code: string) {
  const res = await signInForm(gw, email, password, code);
  assertEquals(res.status, 303, res.text);
  const cookie = cookieOf(res.headers.get("set-cookie"));
  const account = await gw.request("GET", "/admin/account", { headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(account.text)![1];
  const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    gw.request("POST", path, {
      headers: { ...FORM, cookie, ...headers },
      rawBody: new URLSearchParams(body).toString(),
    });
  return { cookie, csrf, post, account };
}

const STEP_MS = 30_000;

Deno.test("operator self-service: password, authenticator re-enrolment, backup codes", async () => {
  const clock = manualClock(new Date(Math.floor(Date.now() / STEP_MS) * STEP_MS + 1000));
  const nextCode = (secret: string) => {
    clock.advance(STEP_MS);
    return totpCode(secret, clock.now());
  };
  await withGateway(async (gw) => {
    const op = await newOperator(gw, "viewer");
    const other = await newOperator(gw, "viewer");
    const me = await pageSession(gw, op.email, PASSWORD, nextCode(op.totpSecret));
    assertMatch(me.account.text, /Mon compte/);
    assert(!/<script|\son[a-z]+=/i.test(me.account.text));

    // Password: refusals change nothing.
    const change = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      me.post("/admin/account/password", body, headers);
    assertEquals(
      (await change({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status,
      403,
      "no CSRF",
    );
    assertEquals(
      (await change({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD, _csrf: me.csrf }, {
        origin: "https://evil.example",
      })).status,
      403,
    );
    const wrong = await change({
      currentPassword: "not my password!!",
      newPassword: NEW_PASSWORD,
      _csrf: me.csrf,
    });
    assertEquals(wrong.status, 401);
    const short = await change({ currentPassword: PASSWORD, newPassword: "short", _csrf: me.csrf });
    assertEquals(short.status, 400);
    const nul = await change({
      currentPassword: PASSWORD,
      newPassword: "long enough\u0000pw",
      _csrf: me.csrf,
    });
    assertEquals(nul.status, 400);

    // Backup codes: renewed, shown once; an old one no longer signs in, a new one does.
    const renewed = await me.post("/admin/account/backup-codes", { password: PASSWORD, _csrf: me.csrf });
    assertEquals(renewed.status, 200);
    const codes = /id="codes">[\s\S]*?<p class="mono">([^<]+)<\/p>/.exec(renewed.text)![1].trim().split(
      /\s+/,
    );
    assertEquals(codes.length, 10);
    const oldCode = await signInForm(gw, op.email, PASSWORD, op.backupCodes[0]);
    assertEquals(oldCode.status, 400);
    assertMatch(oldCode.text, /Code de secours inconnu/);
    assertEquals((await signInForm(gw, op.email, PASSWORD, codes[0])).status, 303);

    // Authenticator: a new secret, confirmed by a code of it.
    const started = await me.post("/admin/account/totp", { password: PASSWORD, _csrf: me.csrf });
    assertEquals(started.status, 200, started.text);
    const secret = /id="new-secret">([A-Z2-7]+)</.exec(started.text)![1];
    const sealed = /name="sealed" value="([^"]+)"/.exec(started.text)![1];
    const confirm = (body: Record<string, string>) =>
      me.post("/admin/account/totp/confirm", { _csrf: me.csrf, ...body });
    assertEquals((await confirm({ sealed, code: "000000" })).status, 400);
    const altered = sealed.slice(0, -4) + (sealed.endsWith("AAAA") ? "BBBB" : "AAAA");
    assertEquals((await confirm({ sealed: altered, code: totpCode(secret, clock.now()) })).status, 400);
    const them = await pageSession(gw, other.email, PASSWORD, nextCode(other.totpSecret));
    const stolen = await them.post("/admin/account/totp/confirm", {
      _csrf: them.csrf,
      sealed,
      code: totpCode(secret, clock.now()),
    });
    assertEquals(stolen.status, 400, "another operator's enrolment");
    const done = await confirm({ sealed, code: nextCode(secret) });
    assertEquals([done.status, done.headers.get("location")], [303, "/admin/account?lang=fr&done=totp"]);
    const oldSecret = await signInForm(gw, op.email, PASSWORD, nextCode(op.totpSecret));
    assertEquals(oldSecret.status, 400, "the old app's codes stop working");
    assertEquals((await signInForm(gw, op.email, PASSWORD, nextCode(secret))).status, 303);

    // Password: changed; this and every other session end; only the new password signs in.
    const changed = await change({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD, _csrf: me.csrf });
    assertEquals(changed.status, 303);
    assertEquals((await gw.request("GET", "/admin/account", { headers: { cookie: me.cookie } })).status, 303);
    assertEquals((await signInForm(gw, op.email, PASSWORD, nextCode(secret))).status, 401);
    assertEquals((await signInForm(gw, op.email, NEW_PASSWORD, nextCode(secret))).status, 303);

    const trail = (await gw.admin("GET", `/admin/api/audit?itemId=${op.id}`)).json.data.items as Array<
      { action: string; after: unknown }
    >;
    const mine = trail.map((r) => r.action).filter((a) => !a.startsWith("operator.sign_"));
    assertEquals(mine, [
      "operator.create",
      "operator.backup_codes_renew",
      "operator.totp_reenrol",
      "operator.password_change",
    ]);
    const text = JSON.stringify(trail);
    assert(!text.includes(secret) && !text.includes(codes[1]) && !text.includes(NEW_PASSWORD), "no secret");
    assertEquals((await gw.admin("GET", "/admin/api/audit/verify")).json.data.ok, true);
  }, { clock, env: OPERATOR_TEST_ENV })();
});
