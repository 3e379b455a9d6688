import type { MiddlewareHandler } from "hono";
import { timingSafeEqual } from "../../domain/crypto.ts";
import { AppError } from "../../domain/errors.ts";
import type { AppEnv } from "../env.ts";

/** Operator routes: `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.get("deps").config.adminToken;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  if (!expected || !match || !timingSafeEqual(match[1], expected)) {
    throw new AppError("UNAUTHORIZED", "Admin token missing or invalid");
  }
  await next();
};
