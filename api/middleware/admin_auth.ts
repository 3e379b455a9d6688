import type { MiddlewareHandler } from "hono";
import { authenticateOperator } from "../../domain/auth.ts";
import type { AppEnv } from "../../http/env.ts";
import { authenticatesFirst, checkStorableInput } from "./input_guard.ts";
import { clientAddress } from "../../http/client_address.ts";

/**
 * Operator routes: `Authorization: Bearer $ADMIN_TOKEN`; failures are throttled per client address. The
 * input guard runs after it, so only the operator learns what a route refuses.
 */
export const requireAdmin: MiddlewareHandler<AppEnv> = authenticatesFirst(async (c, next) => {
  await authenticateOperator(c.get("deps"), c.req.header("authorization"), clientAddress(c));
  await checkStorableInput(c);
  await next();
});
