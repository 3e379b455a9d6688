// An operator signed in on the console's pages (not the API): the session cookie, the CSRF token the
// page's forms carry, and GET / form POST with them, as a browser would send.
import { assert, assertEquals, assertMatch } from "./assert.ts";
import type { TestGateway } from "./helpers.ts";
import { cookieOf, newOperator, OPERATOR_TEST_ENV, PASSWORD } from "./operator_helpers.ts";
import { totpCode } from "../domain/operators/totp.ts";
import type { Role } from "../domain/operators/roles.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

export type PageOperator = Awaited<ReturnType<typeof pageSignIn>>;

export async function pageSignIn(gw: TestGateway, role: Role) {
  const op = await newOperator(gw, role);
  const res = await gw.request("POST", "/admin/sign-in", {
    headers: FORM,
    rawBody: new URLSearchParams({
      email: op.email,
      password: PASSWORD,
      code: totpCode(op.totpSecret, gw.deps.clock.now()),
    }).toString(),
  });
  assertEquals(res.status, 303, res.text);
  const cookie = cookieOf(res.headers.get("set-cookie"));
  const queue = await gw.request("GET", "/admin/queue", { headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(queue.text)![1];
  const get = (path: string) => gw.request("GET", path, { headers: { cookie } });
  const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    gw.request("POST", path, {
      headers: { ...FORM, cookie, ...headers },
      rawBody: new URLSearchParams(body).toString(),
    });
  return { op, cookie, csrf, get, post };
}

/** The page's text without its tags, to assert what an operator reads. */
export function textOf(html: string): string {
  return html.replace(/<[^>]+>/g, " ").replace(/&#x27;|&#39;/g, "'").replace(/\s+/g, " ");
}

/** Four eyes above 20,000 XOF, so a test needs no large sums. */
export const REVIEW_ENV = { ...OPERATOR_TEST_ENV, FOUR_EYES_ABOVE_XOF: "20000" };

export const journalsLike = async (gw: TestGateway, prefix: string) =>
  (await gw.db.query<{ reference: string }>(
    "SELECT reference FROM journals WHERE reference LIKE $1 ORDER BY reference",
    [`${prefix}%`],
  )).map((r) => r.reference);

export const auditActions = async (gw: TestGateway, itemId: string) =>
  ((await gw.admin("GET", `/admin/api/audit?itemId=${itemId}`)).json.data.items as Array<{ action: string }>)
    .map((r) => r.action);

/** The refusals every decision route gives before any rule is read; nothing changes. */
export async function refusedForms(
  viewer: PageOperator,
  reviewer: PageOperator,
  path: string,
  action: string,
) {
  const story = await viewer.get(path);
  assertEquals(story.status, 200, story.text);
  assert(!story.text.includes('id="decide"') && !story.text.includes(`value="${action}"`), "no button");
  const byViewer = await viewer.post(`${path}/decide`, { action, note: "x", _csrf: viewer.csrf });
  assertEquals(byViewer.status, 403, "a viewer may not decide");
  for (const forged of [{}, { _csrf: "forged" }] as Array<Record<string, string>>) {
    assertEquals((await reviewer.post(`${path}/decide`, { action, note: "x", ...forged })).status, 403);
  }
  const crossSite = await reviewer.post(`${path}/decide`, { action, note: "x", _csrf: reviewer.csrf }, {
    origin: "https://evil.example",
  });
  assertEquals(crossSite.status, 403, "another site's form");
  const noNote = await reviewer.post(`${path}/decide?lang=en`, { action, _csrf: reviewer.csrf });
  assertEquals(noNote.status, 400);
  assertMatch(textOf(noNote.text), /REASON_NOTE_REQUIRED/);
  for (const note of ["a\u0000b", "x".repeat(5000)]) {
    assertEquals((await reviewer.post(`${path}/decide`, { action, note, _csrf: reviewer.csrf })).status, 400);
  }
  assert(!(await reviewer.get(path)).text.includes('role="status"'), "nothing decided");
}
