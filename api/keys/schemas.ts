// Answers of the key routes (api/keys/routes.ts, api/keys/allowlist.ts).
import { z } from "@hono/zod-openapi";
import { SCOPES } from "../../domain/keys/api_keys.ts";
import { MANAGED_KINDS } from "../../domain/keys/manage.ts";

export const Scope = z.enum(SCOPES);

export const KeySchema = z.object({
  id: z.string(),
  kind: z.enum(MANAGED_KINDS),
  mode: z.enum(["live", "sandbox"]),
  name: z.string().nullable(),
  prefix: z.string().openapi({ description: "The first characters of the key, to recognise it" }),
  scopes: z.array(Scope).nullable().openapi({ description: "null for a secret key: it holds every scope" }),
  status: z.enum(["ACTIVE", "EXPIRING", "EXPIRED", "REVOKED"]).openapi({
    description: "EXPIRING: rotated, still accepted until expiresAt",
  }),
  createdAt: z.string(),
  createdBy: z.string().nullable().openapi({ description: "The key that created it (null: the operator)" }),
  lastUsedAt: z.string().nullable().openapi({ description: "To the minute" }),
  lastUsedFrom: z.string().nullable().openapi({ description: "The client address of that use" }),
  expiresAt: z.string().nullable(),
  rotatedTo: z.string().nullable(),
  ipAllowlist: z.array(z.string()).openapi({
    description: "This key's own CIDR ranges; [] : no restriction of its own",
  }),
  revokedAt: z.string().nullable(),
}).openapi("ApiKey");

export const NewKeySchema = KeySchema.extend({
  key: z.string().openapi({ description: "The key itself: shown in this answer only, store it now" }),
}).openapi("NewApiKey");

export const RotatedKeySchema = NewKeySchema.extend({
  replaces: z.object({ id: z.string(), expiresAt: z.string() }),
}).openapi("RotatedApiKey");
