// /v1/api-keys: the merchant's own keys, managed with a key (scopes api_keys_read / api_keys_write): list,
// create with chosen scopes, rotate with an overlap of at most 24 hours, revoke. Secrets are shown once.
import { createRoute, z } from "@hono/zod-openapi";
import { SCOPES } from "../../domain/keys/api_keys.ts";
import {
  createKey,
  DEFAULT_OVERLAP_SECONDS,
  listKeys,
  MAX_OVERLAP_SECONDS,
  revokeOwnKey,
  rotateKey,
} from "../../domain/keys/manage.ts";
import { errorResponsesWith, idParam, jsonContent, KEY_SECURITY, ok, successSchema } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import { newRouter } from "../router.ts";
import { KeySchema, NewKeySchema, RotatedKeySchema, Scope } from "./schemas.ts";

const tags = ["API keys"];
const KeyId = idParam("key");

const KeyName = z.string().trim().min(1).max(100).optional();
/** One shape per kind: a restricted key names its scopes; the others' scopes are fixed. */
const CreateBody = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("secret"), name: KeyName }).openapi({
    description: "Every scope, in the calling key's mode; only a secret key may create one",
  }),
  z.strictObject({ kind: z.literal("publishable"), name: KeyName }).openapi({
    description: "payments_read and paylinks_read, for browsers",
  }),
  z.strictObject({
    kind: z.literal("restricted"),
    name: KeyName,
    scopes: z.array(Scope).min(1).max(SCOPES.length).openapi({
      description: "Only scopes the calling key holds",
    }),
  }),
]).openapi("NewApiKeyRequest");

const RotateBody = z.strictObject({
  overlapSeconds: z.number().int().min(0).max(MAX_OVERLAP_SECONDS).optional().openapi({
    description: `How long the old key keeps working (default ${DEFAULT_OVERLAP_SECONDS}; 0 ends it now)`,
  }),
});

const codes = errorResponsesWith(["FORBIDDEN", "NOT_FOUND", "INVALID_STATE", "VALIDATION_ERROR"]);

export function apiKeyRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/api-keys",
      tags,
      summary: "The keys of the calling key's mode, newest first (never their secrets)",
      operationId: "listApiKeys",
      security: KEY_SECURITY,
      middleware: [requireKey("api_keys_read", "list")],
      responses: { 200: jsonContent(successSchema(z.array(KeySchema)), "Keys"), ...codes },
    }),
    async (c) => ok(c, await listKeys(c.get("deps"), c.get("auth"))),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/api-keys",
      tags,
      summary: "Create a key with chosen scopes",
      operationId: "createApiKey",
      security: KEY_SECURITY,
      middleware: [requireKey("api_keys_write", "write")],
      request: { body: { required: true, content: { "application/json": { schema: CreateBody } } } },
      responses: {
        201: jsonContent(successSchema(NewKeySchema), "The new key, shown once"),
        ...errorResponsesWith(["FORBIDDEN", "VALIDATION_ERROR", "LIMIT_EXCEEDED_API_KEYS"]),
      },
    }),
    async (c) => ok(c, await createKey(c.get("deps"), c.get("auth"), c.req.valid("json")), 201),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/api-keys/{id}/rotate",
      tags,
      summary: "Replace a key; the old one keeps working for the overlap (at most 24 h)",
      operationId: "rotateApiKey",
      security: KEY_SECURITY,
      middleware: [requireKey("api_keys_write", "write")],
      request: {
        params: KeyId,
        body: { required: true, content: { "application/json": { schema: RotateBody } } },
      },
      responses: { 201: jsonContent(successSchema(RotatedKeySchema), "The successor, shown once"), ...codes },
    }),
    async (c) => {
      const input = { id: c.req.valid("param").id, ...c.req.valid("json") };
      return ok(c, await rotateKey(c.get("deps"), c.get("auth"), input), 201);
    },
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/api-keys/{id}",
      tags,
      summary: "Revoke a key at once (not the calling key itself)",
      operationId: "revokeApiKey",
      security: KEY_SECURITY,
      middleware: [requireKey("api_keys_write", "write")],
      request: { params: KeyId },
      responses: { 200: jsonContent(successSchema(KeySchema), "The revoked key"), ...codes },
    }),
    async (c) => ok(c, await revokeOwnKey(c.get("deps"), c.get("auth"), c.req.valid("param").id)),
  );

  return r;
}
