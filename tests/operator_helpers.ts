// Operators in API tests: create one (domain, as the CLI does), sign in through the API with its TOTP code
// and call operator routes with its session cookie and CSRF token.
import { type CreatedOperator, createOperator } from "../domain/operators/accounts.ts";
import { type Role, tokenActor } from "../domain/operators/roles.ts";
import { totpCode } from "../domain/operators/totp.ts";
import type { TestGateway } from "./helpers.ts";

/** A cheap scrypt cost for tests (production refuses it): sign-ins take milliseconds. */
export const OPERATOR_TEST_ENV = { OPERATOR_SCRYPT_LOG_N: "10" };

export const PASSWORD = "correct horse battery staple";

export async function newOperator(gw: TestGateway, role: Role, email?: string): Promise<CreatedOperator> {
  return await createOperator(gw.deps, tokenActor("test"), {
    email: email ?? `${role}-${crypto.randomUUID().slice(0, 8)}@example.com`,
    role,
    password: PASSWORD,
  });
}

/** The session cookie (`name=value`) a Set-Cookie header sets. */
export function cookieOf(setCookie: string | null): string {
  if (!setCookie) throw new Error("no Set-Cookie in the answer");
  return setCookie.split(";")[0];
}

export type OperatorClient = {
  operator: CreatedOperator;
  cookie: string;
  csrf: string;
  /** A call with the session cookie, and the CSRF token unless `csrf` says otherwise (false: none). */
  call(
    method: string,
    path: string,
    body?: unknown,
    opts?: { csrf?: string | false; headers?: Record<string, string>; clientAddress?: string },
  ): ReturnType<TestGateway["request"]>;
};

export async function signInAs(gw: TestGateway, operator: CreatedOperator): Promise<OperatorClient> {
  const res = await gw.request("POST", "/admin/api/session", {
    body: {
      email: operator.email,
      password: PASSWORD,
      totp: totpCode(operator.totpSecret, gw.deps.clock.now()),
    },
  });
  if (res.status !== 201) throw new Error(`sign-in failed: ${res.text}`);
  const cookie = cookieOf(res.headers.get("set-cookie"));
  const csrf = res.json.data.csrfToken as string;
  return {
    operator,
    cookie,
    csrf,
    call: (method, path, body, opts = {}) =>
      gw.request(method, path, {
        body,
        clientAddress: opts.clientAddress,
        headers: {
          cookie,
          ...(opts.csrf === false ? {} : { "x-csrf-token": opts.csrf ?? csrf }),
          ...opts.headers,
        },
      }),
  };
}

/** A fresh operator of `role`, signed in. */
export async function operatorClient(gw: TestGateway, role: Role): Promise<OperatorClient> {
  return await signInAs(gw, await newOperator(gw, role));
}
