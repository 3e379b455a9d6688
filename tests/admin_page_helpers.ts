// An operator signed in on the console's pages (not the API): the session cookie, the CSRF token the
// page's forms carry, and GET / form POST with them, as a browser would send.
import { assertEquals } from "./assert.ts";
import type { TestGateway } from "./helpers.ts";
import { cookieOf, newOperator, PASSWORD } from "./operator_helpers.ts";
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
