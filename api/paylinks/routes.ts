// /v1/paylinks (merchant side): create (both body shapes), retrieve, list, update, simulate, products and
// promo codes. The public checkout, apply-promo and rate-lock routes and the orders/stats/export routes
// live on the shop's side; the hosted page at `paymentUrl` too.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ZodError } from "zod";
import { ID_ALPHABET, ID_BODY_LENGTH, type IdPrefix, isWellFormedId } from "../../domain/ids.ts";
import { createPaylink, type CreatePaylinkInput } from "../../domain/paylinks/create.ts";
import { getPaylink, listPaylinks, type Owner } from "../../domain/paylinks/queries.ts";
import {
  createPromo,
  deletePromoCode,
  listPromoCodes,
  updatePromoCode,
} from "../../domain/paylinks/promos.ts";
import { simulatePaylink } from "../../domain/paylinks/simulate.ts";
import { addProduct, removeProduct, updatePaylink, updateProduct } from "../../domain/paylinks/update.ts";
import { paylinkView, paylinkViewFor, productView, promoView } from "../../domain/paylinks/view.ts";
import { newRouter } from "../router.ts";
import {
  errorResponses,
  idParam,
  jsonContent,
  KEY_SECURITY,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
} from "../envelope.ts";
import type { AppEnv } from "../../http/env.ts";
import { validationError } from "../errors.ts";
import { requireKey } from "../middleware/auth.ts";
import { requireSandboxFlagMatch } from "../middleware/sandbox_flag.ts";
import {
  AltShapeSchema,
  CreatePaylinkSchema,
  PaylinkPatchSchema,
  PaylinkReadSchema,
  PaylinkSchema,
  ProductInputSchema,
  ProductPatchSchema,
  ProductSchema,
  ProductShapeSchema,
  PromoInputSchema,
  PromoPatchSchema,
  PromoSchema,
  SimulateSchema,
  SimulationSchema,
} from "./schemas.ts";

export const security = KEY_SECURITY;
const tags = ["Paylinks"];
const write = [requireKey("paylinks_write", "write")];

export function ownerOf(c: Context<AppEnv>): Owner {
  const auth = c.get("auth");
  return { merchantId: auth.merchantId, isSandbox: auth.isSandbox };
}

/** A second path id (`productId`, `codeId`): malformed reads as unknown (NOT_FOUND), like `id`. */
export function childId(name: string, prefix: IdPrefix) {
  return z.string().refine((v) => isWellFormedId(prefix, v), {
    message: `not a ${prefix}_ id`,
    params: { notFound: "NOT_FOUND" },
  }).openapi({
    param: { name, in: "path" },
    pattern: `^${prefix}_[${ID_ALPHABET}]{${ID_BODY_LENGTH}}$`,
    example: `${prefix}_01k${"0".repeat(ID_BODY_LENGTH - 3)}`,
  });
}

export const PaylinkId = idParam("plk");
export const ProductParams = PaylinkId.extend({ productId: childId("productId", "prd") });
const CodeParams = PaylinkId.extend({ codeId: childId("codeId", "prm") });

/** Reports a failed creation body against the shape it was meant to be (amountMinor names the second). */
function createHook(
  result: { success: boolean; error?: unknown; data?: unknown },
  _c: Context<AppEnv>,
): undefined {
  if (result.success) return undefined;
  const body = result.data;
  const alt = body !== null && typeof body === "object" && "amountMinor" in body;
  const again = (alt ? AltShapeSchema : ProductShapeSchema).safeParse(body);
  throw validationError((again.success ? result.error : again.error) as ZodError);
}

export function paylinkRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "post",
      path: "/paylinks/simulate",
      operationId: "simulatePaylink",
      tags,
      summary: "Quote an amount on each rail: converted price, fees, what the customer pays and you receive",
      description:
        "Your fees are yours to read: a publishable key is refused (FORBIDDEN, INSUFFICIENT_SCOPE).",
      security,
      middleware: [requireKey("paylinks_read", "merchant")],
      request: {
        query: z.object({ sandbox: z.enum(["true", "false"]).optional() }),
        body: { required: true, content: { "application/json": { schema: SimulateSchema } } },
      },
      responses: {
        200: jsonContent(successSchema(SimulationSchema), "The quote per rail"),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await simulatePaylink(c.get("deps"), c.get("auth"), c.req.valid("json"))),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/paylinks",
      operationId: "createPaylink",
      tags,
      summary: "Create a paylink (products shape, or the slug/title/amountMinor shape)",
      description:
        "A sandbox key needs `?sandbox=true` or `x-sandbox: true` (and a live key must not send it).",
      security,
      middleware: [...write, requireSandboxFlagMatch],
      request: {
        query: z.object({ sandbox: z.enum(["true", "false"]).optional() }),
        headers: z.object({ "x-sandbox": z.string().optional() }),
        body: { required: true, content: { "application/json": { schema: CreatePaylinkSchema } } },
      },
      responses: { 201: jsonContent(successSchema(PaylinkSchema), "The paylink"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const caller = c.get("auth");
      const body = c.req.valid("json" as never) as CreatePaylinkInput;
      const created = await createPaylink(deps, caller, caller.isSandbox, body);
      return ok(c, paylinkView(deps.config, created, deps.clock.now()), 201);
    },
    createHook,
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/paylinks",
      operationId: "listPaylinks",
      tags,
      summary: "List paylinks, newest first",
      security,
      middleware: [requireKey("paylinks_read", "list")],
      request: { query: PageQuerySchema },
      responses: { 200: jsonContent(pagedSchema(PaylinkSchema), "Paylinks"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const q = c.req.valid("query");
      const { items, total } = await listPaylinks(deps, ownerOf(c), q);
      const now = deps.clock.now();
      return ok(c, pageOf(items.map((p) => paylinkView(deps.config, p, now)), total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/paylinks/{id}",
      operationId: "getPaylink",
      tags,
      summary: "Retrieve a paylink with its products and promo codes",
      description: "A publishable key reads the public view (`PublicPaylink`): what the hosted page shows " +
        "before payment, without promo codes, counts, the internal name, or digitalUrl, postPaymentAction " +
        "and successUrl.",
      security,
      middleware: [requireKey("paylinks_read", "read")],
      request: { params: PaylinkId },
      responses: {
        200: jsonContent(successSchema(PaylinkReadSchema), "The paylink (public view for a publishable key)"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const deps = c.get("deps");
      const found = await getPaylink(deps, ownerOf(c), c.req.valid("param").id);
      return ok(c, paylinkViewFor(c.get("auth"), deps.config, found, deps.clock.now()));
    },
  );

  r.openapi(
    createRoute({
      method: "patch",
      path: "/paylinks/{id}",
      operationId: "updatePaylink",
      tags,
      summary: "Update a paylink's settings, branding, limits or status (ACTIVE/INACTIVE)",
      description:
        "The currency cannot change once products exist (CANNOT_CHANGE_CURRENCY_AFTER_PRODUCTS); " +
        "the slug and type never change.",
      security,
      middleware: write,
      request: {
        params: PaylinkId,
        body: { required: true, content: { "application/json": { schema: PaylinkPatchSchema } } },
      },
      responses: { 200: jsonContent(successSchema(PaylinkSchema), "The updated paylink"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const caller = c.get("auth");
      const updated = await updatePaylink(
        deps,
        { ...ownerOf(c), enabledRails: caller.enabledRails },
        c.req.valid("param").id,
        c.req.valid("json"),
      );
      return ok(c, paylinkView(deps.config, updated, deps.clock.now()));
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/paylinks/{id}/products",
      operationId: "addPaylinkProduct",
      tags,
      summary: "Add a product to a paylink",
      security,
      middleware: write,
      request: {
        params: PaylinkId,
        body: { required: true, content: { "application/json": { schema: ProductInputSchema } } },
      },
      responses: { 201: jsonContent(successSchema(ProductSchema), "The product"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const product = await addProduct(deps, ownerOf(c), c.req.valid("param").id, c.req.valid("json"));
      return ok(c, productView(deps.config, product), 201);
    },
  );

  r.openapi(
    createRoute({
      method: "patch",
      path: "/paylinks/{id}/products/{productId}",
      operationId: "updatePaylinkProduct",
      tags,
      summary: "Change a product: price (new orders), stock left, threshold, order, delivery link",
      security,
      middleware: write,
      request: {
        params: ProductParams,
        body: { required: true, content: { "application/json": { schema: ProductPatchSchema } } },
      },
      responses: { 200: jsonContent(successSchema(ProductSchema), "The product"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const { id, productId } = c.req.valid("param");
      return ok(
        c,
        productView(deps.config, await updateProduct(deps, ownerOf(c), id, productId, c.req.valid("json"))),
      );
    },
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/paylinks/{id}/products/{productId}",
      operationId: "removePaylinkProduct",
      tags,
      summary: "Take a product off sale (past orders keep it); the last one cannot go (PAYLINK_EMPTY)",
      security,
      middleware: write,
      request: { params: ProductParams },
      responses: {
        200: jsonContent(successSchema(z.object({ deleted: z.literal(true), id: z.string() })), "Removed"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { id, productId } = c.req.valid("param");
      await removeProduct(c.get("deps"), ownerOf(c), id, productId);
      return ok(c, { deleted: true, id: productId });
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/paylinks/{id}/promo-codes",
      operationId: "createPromoCode",
      tags,
      summary: "Create a promo code on a paylink (stored upper-case)",
      security,
      middleware: write,
      request: {
        params: PaylinkId,
        body: { required: true, content: { "application/json": { schema: PromoInputSchema } } },
      },
      responses: { 201: jsonContent(successSchema(PromoSchema), "The promo code"), ...errorResponses },
    }),
    async (c) =>
      ok(
        c,
        promoView(await createPromo(c.get("deps"), ownerOf(c), c.req.valid("param").id, c.req.valid("json"))),
        201,
      ),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/paylinks/{id}/promo-codes",
      operationId: "listPromoCodes",
      tags,
      summary: "List a paylink's promo codes",
      security,
      middleware: [requireKey("paylinks_read", "list")],
      request: { params: PaylinkId, query: PageQuerySchema },
      responses: { 200: jsonContent(pagedSchema(PromoSchema), "Promo codes"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const all = await listPromoCodes(c.get("deps"), ownerOf(c), c.req.valid("param").id);
      const items = all.slice((q.page - 1) * q.limit, q.page * q.limit).map(promoView);
      return ok(c, pageOf(items, all.length, q));
    },
  );

  r.openapi(
    createRoute({
      method: "patch",
      path: "/paylinks/{id}/promo-codes/{codeId}",
      operationId: "updatePromoCode",
      tags,
      summary: "Update a promo code, including isActive",
      security,
      middleware: write,
      request: {
        params: CodeParams,
        body: { required: true, content: { "application/json": { schema: PromoPatchSchema } } },
      },
      responses: { 200: jsonContent(successSchema(PromoSchema), "The promo code"), ...errorResponses },
    }),
    async (c) => {
      const { id, codeId } = c.req.valid("param");
      return ok(
        c,
        promoView(await updatePromoCode(c.get("deps"), ownerOf(c), id, codeId, c.req.valid("json"))),
      );
    },
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/paylinks/{id}/promo-codes/{codeId}",
      operationId: "deletePromoCode",
      tags,
      summary: "Delete a promo code (orders that used it keep its text)",
      security,
      middleware: write,
      request: { params: CodeParams },
      responses: {
        200: jsonContent(successSchema(z.object({ deleted: z.literal(true), id: z.string() })), "Deleted"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { id, codeId } = c.req.valid("param");
      await deletePromoCode(c.get("deps"), ownerOf(c), id, codeId);
      return ok(c, { deleted: true, id: codeId });
    },
  );
  return r;
}
