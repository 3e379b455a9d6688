// Operator API under /admin/api, authenticated with ADMIN_TOKEN. Other tools drive these exact shapes.
import { createRoute, z } from "@hono/zod-openapi";
import { KEY_PREFIX, SCOPES } from "../../domain/keys/api_keys.ts";
import { effectiveFees, FeeSchedulePatchSchema } from "../../domain/fees.ts";
import { getMerchant, RAILS } from "../../domain/merchants/mod.ts";
import {
  createMerchantAs,
  issueKeyAs,
  revokeKeyAs,
  setKybStatusAs,
  updateMerchantAs,
} from "../../domain/operators/merchant_actions.ts";
import { DEFAULT_LIMITS } from "../../domain/limits/rate_limit.ts";
import { brandingOf } from "../../domain/merchants/branding.ts";
import { DisplayNameSchema, LogoUrlSchema } from "../merchants/profile.ts";
import type { MerchantRow } from "../../db/merchants.ts";
import { newRouter } from "../router.ts";
import {
  errorResponses,
  idParam,
  iso,
  jsonContent,
  ok,
  OPERATOR_SECURITY,
  successSchema,
} from "../envelope.ts";
import { requireAdmin, requireViewer } from "../middleware/admin_auth.ts";

const security = OPERATOR_SECURITY;
const mw = [requireAdmin];
const MerchantIdParam = idParam("mch", "MERCHANT_NOT_FOUND");

const CreatedMerchantSchema = z.object({
  merchantId: z.string(),
  keys: z.object({
    liveSecret: z.string(),
    livePublishable: z.string(),
    testSecret: z.string(),
    testPublishable: z.string(),
  }),
});

export const MerchantSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  kybStatus: z.string(),
  enabledRails: z.array(z.string()),
  feeSchedule: z.record(z.string(), z.string()),
  rateLimits: z.record(z.string(), z.number()),
  displayName: z.string().openapi({ description: "shown to customers on hosted pages" }),
  logoUrl: z.string().nullable().openapi({ description: "data URL of the logo shown on hosted pages" }),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("AdminMerchant");

export function merchantView(m: MerchantRow) {
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    kybStatus: m.kyb_status,
    enabledRails: m.enabled_rails,
    feeSchedule: effectiveFees(m.fee_schedule),
    rateLimits: { ...DEFAULT_LIMITS, ...m.rate_limits },
    ...brandingOf(m),
    createdAt: iso(m.created_at)!,
    updatedAt: iso(m.updated_at)!,
  };
}

const RateLimitsSchema = z.strictObject(
  Object.fromEntries(
    Object.keys(DEFAULT_LIMITS).map((k) => [k, z.number().int().min(1).max(1_000_000).optional()]),
  ),
);

export function adminRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "post",
      path: "/merchants",
      tags: ["Admin"],
      summary: "Create a merchant with its four keys",
      operationId: "adminCreateMerchant",
      security,
      middleware: mw,
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                name: z.string().trim().min(1).max(200),
                kybStatus: z.enum(["APPROVED", "PENDING"]).optional(),
              }),
            },
          },
        },
      },
      responses: {
        201: jsonContent(successSchema(CreatedMerchantSchema), "Merchant with its four keys, shown once"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await createMerchantAs(c.get("deps"), c.get("operator"), c.req.valid("json")), 201),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/merchants/{id}",
      tags: ["Admin"],
      summary: "Retrieve a merchant's settings",
      operationId: "adminGetMerchant",
      security,
      middleware: [requireViewer],
      request: { params: MerchantIdParam },
      responses: { 200: jsonContent(successSchema(MerchantSchema), "Merchant settings"), ...errorResponses },
    }),
    async (c) => ok(c, merchantView(await getMerchant(c.get("deps"), c.req.valid("param").id))),
  );

  r.openapi(
    createRoute({
      method: "patch",
      path: "/merchants/{id}",
      tags: ["Admin"],
      summary: "Change a merchant's status, rails, fees, rate limits, display name or logo",
      operationId: "adminUpdateMerchant",
      security,
      middleware: mw,
      request: {
        params: MerchantIdParam,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                status: z.enum(["ACTIVE", "SUSPENDED", "CLOSED"]).optional(),
                enabledRails: z.array(z.enum(RAILS)).max(3).optional(),
                feeSchedule: FeeSchedulePatchSchema.optional(),
                rateLimits: RateLimitsSchema.optional(),
                displayName: DisplayNameSchema.nullable().optional(),
                logoUrl: LogoUrlSchema.nullable().optional(),
              }),
            },
          },
        },
      },
      responses: { 200: jsonContent(successSchema(MerchantSchema), "Updated merchant"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const row = await updateMerchantAs(c.get("deps"), c.get("operator"), c.req.valid("param").id, {
        status: body.status,
        enabledRails: body.enabledRails ? [...new Set(body.enabledRails)] : undefined,
        feeSchedule: body.feeSchedule as Record<string, string> | undefined,
        rateLimits: body.rateLimits as Record<string, number> | undefined,
        displayName: body.displayName,
        logoUrl: body.logoUrl,
      });
      return ok(c, merchantView(row));
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/merchants/{id}/kyb",
      tags: ["Admin"],
      summary: "Set a merchant's KYB status",
      operationId: "adminSetKybStatus",
      security,
      middleware: mw,
      request: {
        params: MerchantIdParam,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({ status: z.enum(["PENDING", "APPROVED", "REJECTED"]) }),
            },
          },
        },
      },
      responses: { 200: jsonContent(successSchema(MerchantSchema), "KYB status set"), ...errorResponses },
    }),
    async (c) =>
      ok(
        c,
        merchantView(
          await setKybStatusAs(
            c.get("deps"),
            c.get("operator"),
            c.req.valid("param").id,
            c.req.valid("json").status,
          ),
        ),
      ),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/merchants/{id}/keys",
      tags: ["Admin"],
      summary: "Issue an API key",
      operationId: "adminIssueKey",
      security,
      middleware: mw,
      request: {
        params: MerchantIdParam,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                kind: z.enum(Object.keys(KEY_PREFIX) as [keyof typeof KEY_PREFIX]),
                scopes: z.array(z.enum(SCOPES)).min(1).optional(),
                sandbox: z.boolean().optional().openapi({
                  description: "restricted keys only: a sandbox key",
                }),
              }),
            },
          },
        },
      },
      responses: {
        201: jsonContent(
          successSchema(z.object({
            id: z.string(),
            kind: z.string(),
            key: z.string(),
            scopes: z.array(z.string()).nullable(),
            mode: z.enum(["live", "sandbox"]),
          })),
          "The key, shown once",
        ),
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const input = { merchantId: c.req.valid("param").id, ...body };
      return ok(c, await issueKeyAs(c.get("deps"), c.get("operator"), input), 201);
    },
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/keys/{id}",
      tags: ["Admin"],
      summary: "Revoke an API key",
      operationId: "adminRevokeKey",
      security,
      middleware: mw,
      request: { params: idParam("key") },
      responses: {
        200: jsonContent(successSchema(z.object({ id: z.string(), revokedAt: z.string() })), "Key revoked"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const row = await revokeKeyAs(c.get("deps"), c.get("operator"), c.req.valid("param").id);
      return ok(c, { id: row.id, revokedAt: iso(row.revoked_at)! });
    },
  );
  return r;
}
