// IP allowlists: GET/PUT /v1/merchant/ip-allowlist (every key of the merchant) and
// PUT /v1/api-keys/:id/ip-allowlist (one key). CIDR ranges of IPv4 or IPv6; [] allows every address.
import { createRoute, z } from "@hono/zod-openapi";
import {
  merchantAllowlist,
  setKeyAllowlist,
  setMerchantAllowlist,
} from "../../domain/keys/allowlist_settings.ts";
import { MAX_ALLOWLIST_ENTRIES } from "../../domain/keys/ip_allowlist.ts";
import { clientAddress } from "../../http/client_address.ts";
import { errorResponsesWith, idParam, jsonContent, KEY_SECURITY, ok, successSchema } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import { newRouter } from "../router.ts";
import { KeySchema } from "./schemas.ts";

const OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const V4 = `${OCTET}(\\.${OCTET}){3}(/(3[0-2]|[12][0-9]|[1-9]))?`;
const H = "[0-9a-fA-F]{1,4}";
const V6_FORMS = [
  `(${H}:){7}${H}`,
  `(${H}:){1,7}:`,
  `(${H}:){1,6}:${H}`,
  `(${H}:){1,5}(:${H}){1,2}`,
  `(${H}:){1,4}(:${H}){1,3}`,
  `(${H}:){1,3}(:${H}){1,4}`,
  `(${H}:){1,2}(:${H}){1,5}`,
  `${H}:(:${H}){1,6}`,
  `:((:${H}){1,7}|:)`,
];
const V6 = `(${V6_FORMS.join("|")})(/(12[0-8]|1[01][0-9]|[1-9][0-9]|[1-9]))?`;
/** A range that allows everyone (/0) is not an allowlist: the pattern leaves it out ([] says "anyone"). */
const Cidr = z.string().max(49).regex(new RegExp(`^(${V4}|${V6})$`), "must be an IPv4 or IPv6 CIDR range")
  .openapi({ example: "203.0.113.0/24" });
const AllowlistBody = z.strictObject({ cidrs: z.array(Cidr).max(MAX_ALLOWLIST_ENTRIES) });
const AllowlistSchema = z.object({
  cidrs: z.array(z.string()),
  yourAddress: z.string().openapi({
    description: "The address this request came from, as the gateway sees it",
  }),
}).openapi("IpAllowlist");

const tags = ["API keys"];
const codes = errorResponsesWith(["FORBIDDEN", "VALIDATION_ERROR", "IP_ALLOWLIST_SELF_LOCKOUT"]);

export function ipAllowlistRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/merchant/ip-allowlist",
      tags,
      summary: "The merchant's IP allowlist (every key) and the address asking",
      operationId: "getMerchantIpAllowlist",
      security: KEY_SECURITY,
      middleware: [requireKey("api_keys_read", "merchant")],
      responses: { 200: jsonContent(successSchema(AllowlistSchema), "Allowlist"), ...codes },
    }),
    async (c) => ok(c, await merchantAllowlist(c.get("deps"), c.get("auth"), clientAddress(c))),
  );

  r.openapi(
    createRoute({
      method: "put",
      path: "/merchant/ip-allowlist",
      tags,
      summary: "Replace the merchant's IP allowlist (secret key only; [] allows every address)",
      operationId: "setMerchantIpAllowlist",
      security: KEY_SECURITY,
      middleware: [requireKey("api_keys_write", "write")],
      request: { body: { required: true, content: { "application/json": { schema: AllowlistBody } } } },
      responses: { 200: jsonContent(successSchema(AllowlistSchema), "The new allowlist"), ...codes },
    }),
    async (c) => {
      const input = { cidrs: c.req.valid("json").cidrs, address: clientAddress(c) };
      return ok(c, await setMerchantAllowlist(c.get("deps"), c.get("auth"), input));
    },
  );

  r.openapi(
    createRoute({
      method: "put",
      path: "/api-keys/{id}/ip-allowlist",
      tags,
      summary: "Replace one key's own IP allowlist ([] allows every address the merchant's list allows)",
      operationId: "setApiKeyIpAllowlist",
      security: KEY_SECURITY,
      middleware: [requireKey("api_keys_write", "write")],
      request: {
        params: idParam("key"),
        body: { required: true, content: { "application/json": { schema: AllowlistBody } } },
      },
      responses: {
        200: jsonContent(successSchema(KeySchema), "The key"),
        ...errorResponsesWith(["FORBIDDEN", "NOT_FOUND", "VALIDATION_ERROR", "IP_ALLOWLIST_SELF_LOCKOUT"]),
      },
    }),
    async (c) => {
      const input = {
        id: c.req.valid("param").id,
        cidrs: c.req.valid("json").cidrs,
        address: clientAddress(c),
      };
      return ok(c, await setKeyAllowlist(c.get("deps"), c.get("auth"), input));
    },
  );

  return r;
}
