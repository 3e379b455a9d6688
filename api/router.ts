// The router every route file builds on: validation failures become the VALIDATION_ERROR envelope.
// Apart from api/app.ts so route files and the app that mounts them do not import each other.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "./errors.ts";

export function newRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}
