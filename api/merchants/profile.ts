// GET and PATCH /v1/merchant/profile: the name and logo customers see on the merchant's hosted pages.
import { createRoute, z } from "@hono/zod-openapi";
import { getMerchant } from "../../domain/merchants/mod.ts";
import {
  brandingOf,
  LOGO_DATA_URL,
  MAX_LOGO_BYTES,
  updateMerchantBranding,
} from "../../domain/merchants/branding.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, KEY_SECURITY, ok, successSchema } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";

export const DisplayNameSchema = z.string().trim().min(1).max(80).openapi({ example: "Boutique Awa" });
/** Base64 of MAX_LOGO_BYTES plus the data URL's prefix; the bytes themselves are checked in the domain. */
export const LogoUrlSchema = z.string().max(Math.ceil(MAX_LOGO_BYTES / 3) * 4 + 32)
  .regex(LOGO_DATA_URL, "must be a data:image/png, image/jpeg or image/webp;base64 URL")
  .openapi({
    description: `data:image/png, image/jpeg or image/webp;base64 URL, at most ${MAX_LOGO_BYTES} bytes ` +
      "decoded, whose bytes are an image of that type",
    // A real 1x1 PNG: the example is accepted as it stands.
    example:
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  });

const ProfileSchema = z.object({
  merchantId: z.string(),
  displayName: z.string(),
  logoUrl: z.string().nullable(),
}).openapi("MerchantProfile");

export function merchantProfileRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/merchant/profile",
      tags: ["Merchant"],
      summary: "The display name and logo customers see on hosted pages",
      operationId: "getMerchantProfile",
      security: KEY_SECURITY,
      middleware: [requireKey("payments_read", "read")],
      responses: { 200: jsonContent(successSchema(ProfileSchema), "Merchant profile"), ...errorResponses },
    }),
    async (c) => {
      const row = await getMerchant(c.get("deps"), c.get("auth").merchantId);
      return ok(c, { merchantId: row.id, ...brandingOf(row) });
    },
  );

  r.openapi(
    createRoute({
      method: "patch",
      path: "/merchant/profile",
      tags: ["Merchant"],
      summary: "Change the display name or logo customers see on hosted pages",
      operationId: "updateMerchantProfile",
      security: KEY_SECURITY,
      middleware: [requireKey("payments_write", "write")],
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({
                displayName: DisplayNameSchema.nullable().optional(),
                logoUrl: LogoUrlSchema.nullable().optional(),
              }),
            },
          },
        },
      },
      responses: { 200: jsonContent(successSchema(ProfileSchema), "Updated profile"), ...errorResponses },
    }),
    async (c) => {
      const row = await updateMerchantBranding(c.get("deps"), c.get("auth").merchantId, c.req.valid("json"));
      return ok(c, { merchantId: row.id, ...brandingOf(row) });
    },
  );

  return r;
}
