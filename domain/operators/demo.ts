// Development only: a demo operator (an admin) whose login the start-up banner prints, so a developer can
// sign in at /admin at once. Its password and TOTP secret are constants in this file, published with the
// code: anyone can sign in as it, which is why nothing creates it outside APP_ENV=development.
import { AppError } from "../errors.ts";
import type { Deps } from "../deps.ts";
import { cliActor } from "./roles.ts";
import { createOperator } from "./accounts.ts";
import { findOperatorByEmail } from "../../db/operators.ts";

export const DEMO_OPERATOR = {
  email: "demo-operator@example.com",
  password: "development-only-demo-password",
  /** Base32, 160 bits: add it to an authenticator app, or `deno task cli operator demo-code`. */
  totpSecret: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
} as const;

/**
 * Creates the demo operator once per database (an existing account, made by an earlier start or by a
 * second process at the same moment, is left as it is). Refuses outside development.
 */
export async function ensureDemoOperator(
  deps: Pick<Deps, "db" | "clock" | "config" | "secrets">,
): Promise<{ created: boolean }> {
  if (deps.config.appEnv !== "development") {
    throw new AppError("FORBIDDEN", "The demo operator exists only in development");
  }
  if (await findOperatorByEmail(deps.db, DEMO_OPERATOR.email)) return { created: false };
  try {
    await createOperator(deps, cliActor("development-start"), { ...DEMO_OPERATOR, role: "admin" });
    return { created: true };
  } catch (err) {
    if (err instanceof AppError && err.code === "DUPLICATE_RESOURCE") return { created: false };
    throw err;
  }
}
