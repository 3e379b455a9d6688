// For creation routes: checks the sandbox flag against the key (after requireKey).
import type { MiddlewareHandler } from "hono";
import { resolveCreationMode, sandboxFlagged } from "../../domain/sandbox/flag.ts";
import type { AppEnv } from "../../http/env.ts";

export const requireSandboxFlagMatch: MiddlewareHandler<AppEnv> = async (c, next) => {
  resolveCreationMode(
    c.get("auth").isSandbox,
    sandboxFlagged(c.req.query("sandbox"), c.req.header("x-sandbox")),
  );
  await next();
};
