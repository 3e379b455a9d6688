// /v1/wallets/whitelist: saved TRON recipients for payouts and withdrawals (add, bulk add, replace
// contexts, list); removal answers ADDRESS_REMOVAL_DISABLED.
import { createRoute, z } from "@hono/zod-openapi";
import {
  addWhitelistEntries,
  addWhitelistEntry,
  BULK_MAX,
  listWhitelist,
  removeWhitelistEntry,
  replaceWhitelistContexts,
} from "../../domain/whitelist/mod.ts";
import { newRouter } from "../router.ts";
import {
  errorResponses,
  errorResponsesWith,
  idParam,
  jsonContent,
  KEY_SECURITY,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
} from "../envelope.ts";
import { TronAddress, UsageContexts } from "../shape_schemas.ts";
import { requireKey } from "../middleware/auth.ts";

const security = KEY_SECURITY;
const tags = ["Whitelist"];
// Contexts are strings here so that an unknown one is the catalogue's INVALID_CONTEXT, not a zod error.
// The document still lists the values and at least one (api/shape_schemas.ts).
const Contexts = UsageContexts;
const Address = TronAddress;
const Label = z.string().max(100);

const EntrySchema = z.object({
  id: z.string(),
  currency: z.literal("USDT_TRC20"),
  chain: z.literal("TRON"),
  address: z.string(),
  label: z.string().nullable(),
  usageContexts: z.array(z.enum(["PAYOUT", "WITHDRAWAL"])),
  isPrimary: z.boolean().openapi({
    description: "the oldest WITHDRAWAL entry: the default withdrawal address",
  }),
  availableAt: z.string().openapi({ description: "24 hours after the entry was added" }),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("WhitelistEntry");

const AddBody = z.strictObject({
  currency: z.literal("USDT_TRC20").optional(),
  chain: z.literal("TRON").optional(),
  address: Address,
  label: Label.optional(),
  usageContexts: Contexts.optional().openapi({ description: "default ['WITHDRAWAL']" }),
}).openapi("AddWhitelistEntry");

const BulkBody = z.strictObject({
  // The count is checked by the domain (WHITELIST_VALIDATION_FAILED); the 1 MB body limit bounds it here.
  // A malformed address is reported in `invalid`, not refused, so the bulk form declares no pattern.
  addresses: z.array(z.strictObject({
    address: z.string().max(64).openapi({ example: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE" }),
    label: Label.optional(),
  })).openapi({ minItems: 1, maxItems: BULK_MAX, description: "otherwise WHITELIST_VALIDATION_FAILED" }),
  usageContexts: Contexts.optional(),
}).openapi("BulkAddWhitelist");

const IdParam = idParam("wla");

export function whitelistRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "post",
      path: "/wallets/whitelist",
      operationId: "addWhitelistAddress",
      tags,
      summary: "Whitelist a TRON address (an existing one merges the new contexts)",
      security,
      middleware: [requireKey("wallets_write", "write")],
      request: { body: { required: true, content: { "application/json": { schema: AddBody } } } },
      responses: {
        201: jsonContent(successSchema(EntrySchema), "Added"),
        200: jsonContent(successSchema(EntrySchema), "Already whitelisted; contexts merged"),
        ...errorResponsesWith(["VALIDATION_ERROR", "INVALID_ADDRESS", "INVALID_CONTEXT"]),
      },
    }),
    async (c) => {
      const { entry, created } = await addWhitelistEntry(c.get("deps"), {
        ...c.get("auth"),
        ...c.req.valid("json"),
        via: "API_KEY",
      });
      return ok(c, entry, created ? 201 : 200);
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/wallets/whitelist/bulk",
      operationId: "bulkAddWhitelistAddresses",
      tags,
      summary: `Whitelist up to ${BULK_MAX} addresses`,
      security,
      middleware: [requireKey("wallets_write", "write")],
      request: { body: { required: true, content: { "application/json": { schema: BulkBody } } } },
      responses: {
        200: jsonContent(
          successSchema(z.object({
            added: z.array(EntrySchema),
            alreadyExists: z.array(EntrySchema),
            invalid: z.array(
              z.object({ address: z.string(), label: z.string().nullable(), reason: z.string() }),
            ),
          })),
          "What was added, what existed, what failed TRON address validation",
        ),
        ...errorResponses,
      },
    }),
    async (c) =>
      ok(
        c,
        await addWhitelistEntries(c.get("deps"), {
          ...c.get("auth"),
          ...c.req.valid("json"),
          via: "API_KEY",
        }),
      ),
  );

  r.openapi(
    createRoute({
      method: "patch",
      path: "/wallets/whitelist/{id}/contexts",
      operationId: "replaceWhitelistContexts",
      tags,
      summary: "Replace an entry's usage contexts (the 24-hour wait is not restarted)",
      security,
      middleware: [requireKey("wallets_write", "write")],
      request: {
        params: IdParam,
        body: {
          required: true,
          content: { "application/json": { schema: z.strictObject({ usageContexts: Contexts }) } },
        },
      },
      responses: { 200: jsonContent(successSchema(EntrySchema), "Updated"), ...errorResponses },
    }),
    async (c) =>
      ok(
        c,
        await replaceWhitelistContexts(c.get("deps"), {
          ...c.get("auth"),
          id: c.req.valid("param").id,
          usageContexts: c.req.valid("json").usageContexts,
        }),
      ),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/wallets/whitelist",
      operationId: "listWhitelist",
      tags,
      summary: "List whitelisted addresses, newest first",
      description:
        "Whitelisted addresses cannot be removed: `DELETE /v1/wallets/whitelist/{id}` answers 410 " +
        "`ADDRESS_REMOVAL_DISABLED` for the merchant's own entry (404 for any other id).",
      security,
      middleware: [requireKey("wallets_read", "read")],
      request: {
        query: PageQuerySchema.extend({
          // Declared as the enum it is; the domain answers an unknown one INVALID_CONTEXT (the spec's code).
          usageContext: z.string().max(32).optional().openapi({
            enum: ["PAYOUT", "WITHDRAWAL"],
            description: "PAYOUT or WITHDRAWAL; anything else: INVALID_CONTEXT",
          }),
        }),
      },
      responses: { 200: jsonContent(pagedSchema(EntrySchema), "Entries, newest first"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listWhitelist(c.get("deps"), { ...c.get("auth"), ...q });
      return ok(c, pageOf(items, total, q));
    },
  );

  // Saved recipients cannot be removed: a plain route (an operation whose only answer is 410 is no
  // operation a client can call), named in the list operation's description.
  r.delete("/wallets/whitelist/:id", requireKey("wallets_write", "write"), async (c) => {
    const id = c.req.param("id");
    return await removeWhitelistEntry(c.get("deps"), { ...c.get("auth"), id });
  });
  return r;
}
