import type { MiddlewareHandler } from "hono";
import { authenticateOperator } from "../../domain/auth.ts";
import type { AppEnv } from "../env.ts";
import { clientAddress } from "./auth.ts";

/** Operator routes: `Authorization: Bearer $ADMIN_TOKEN`; failures are throttled per client address. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  await authenticateOperator(c.get("deps"), c.req.header("authorization"), clientAddress(c));
  await next();
};
