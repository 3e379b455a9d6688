// /v1/paylinks templates, images (cover and product, multipart/form-data), CSV import of products, the
// public image route, and the operator's plan limit on paylinks.
import { createRoute, z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import { AppError } from "../domain/errors.ts";
import { getMerchant } from "../domain/merchants.ts";
import { getPaylinkLimit, setPaylinkLimit } from "../domain/paylinks/create.ts";
import { importProductsCsv, MAX_CSV_BYTES } from "../domain/paylinks/csv_import.ts";
import {
  assertProductOf,
  MAX_IMAGE_BYTES,
  readImage,
  removeCoverImage,
  setCoverImage,
  setProductImage,
} from "../domain/paylinks/images.ts";
import { getPaylink } from "../domain/paylinks/queries.ts";
import {
  createTemplate,
  deleteTemplate,
  listTemplates,
  saveAsTemplate,
} from "../domain/paylinks/templates.ts";
import { paylinkView, productView, templateView } from "../domain/paylinks/view.ts";
import { newRouter } from "./app.ts";
import {
  errorResponses,
  idParam,
  jsonContent,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
} from "./envelope.ts";
import type { AppEnv } from "./env.ts";
import { requireAdmin } from "./middleware/admin_auth.ts";
import { requireKey } from "./middleware/auth.ts";
import { ownerOf, PaylinkId, ProductParams, security } from "./paylinks.ts";
import { PaylinkSchema, ProductSchema, ProductShapeSchema, TemplateSchema } from "./paylink_schemas.ts";
import { FilePart } from "./shape_schemas.ts";

const tags = ["Paylinks"];
/** A template id in the path: malformed is NOT_FOUND, like an unknown one (nothing to tell apart). */
const TemplateId = idParam("tpl");
const write = [requireKey("paylinks_write", "write")];

/** Multipart bodies are refused past `max` bytes before anything parses them (the app skips its 1 MB cap). */
function uploadLimit(max: number): MiddlewareHandler<AppEnv> {
  const limit = bodyLimit({
    maxSize: max + 64 * 1024,
    onError: () => {
      throw new AppError("BAD_REQUEST", `Upload larger than ${Math.round(max / 1024)} KB`);
    },
  });
  // Other bodies were capped (and read) by the app's JSON limit already.
  return (c, next) =>
    /^multipart\/form-data\b/i.test(c.req.header("content-type") ?? "") ? limit(c, next) : next();
}

const FileForm = z.object({
  file: FilePart.openapi({ description: "the file" }),
});

/** The `file` part of a multipart body as bytes; anything else is a clear VALIDATION_ERROR. */
async function fileBytes(form: { file?: unknown } | undefined): Promise<Uint8Array> {
  const file = form?.file;
  if (!(file instanceof File)) {
    throw new AppError("VALIDATION_ERROR", "Send the file as the multipart/form-data part named `file`", {
      details: [{ field: "file", reason: "a file part is required" }],
    });
  }
  return new Uint8Array(await file.arrayBuffer());
}

/** The validated form, or nothing when the body was not multipart/form-data at all. */
// deno-lint-ignore no-explicit-any
function formOf(c: { req: { valid: (target: never) => any } }): { file?: unknown } | undefined {
  try {
    return c.req.valid("form" as never);
  } catch {
    return undefined;
  }
}

const multipart = (description: string) => ({
  required: true,
  description,
  content: { "multipart/form-data": { schema: FileForm } },
});

export function paylinkTemplateRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "post",
      path: "/paylinks/templates",
      operationId: "createPaylinkTemplate",
      tags,
      summary: "Create a template: paylink settings, branding and products under a name (never orders)",
      security,
      middleware: write,
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({ name: z.string().trim().min(1).max(200), config: ProductShapeSchema })
                .openapi("CreatePaylinkTemplate"),
            },
          },
        },
      },
      responses: { 201: jsonContent(successSchema(TemplateSchema), "The template"), ...errorResponses },
    }),
    async (c) =>
      ok(c, templateView(await createTemplate(c.get("deps"), ownerOf(c), c.req.valid("json"))), 201),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/paylinks/templates",
      operationId: "listPaylinkTemplates",
      tags,
      summary: "List templates, newest first",
      description: "Delete one with `DELETE /v1/paylinks/templates/{id}`.",
      security,
      middleware: [requireKey("paylinks_read", "list")],
      request: { query: PageQuerySchema },
      responses: { 200: jsonContent(pagedSchema(TemplateSchema), "Templates"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { rows, total } = await listTemplates(c.get("deps"), ownerOf(c), q);
      return ok(c, pageOf(rows.map(templateView), total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/paylinks/templates/{id}",
      operationId: "deletePaylinkTemplate",
      tags,
      summary: "Delete a template (paylinks made from it are not touched)",
      description: "An unknown, malformed or another merchant's id is NOT_FOUND.",
      security,
      middleware: write,
      request: { params: TemplateId },
      responses: {
        200: jsonContent(successSchema(z.object({ deleted: z.literal(true), id: z.string() })), "Deleted"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await deleteTemplate(c.get("deps"), ownerOf(c), id);
      return ok(c, { deleted: true as const, id });
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/paylinks/{id}/save-as-template",
      operationId: "savePaylinkAsTemplate",
      tags,
      summary: "Snapshot a paylink's settings, branding and products as a template",
      security,
      middleware: write,
      request: {
        params: PaylinkId,
        body: {
          required: false,
          content: {
            "application/json": {
              schema: z.strictObject({ name: z.string().trim().min(1).max(200).optional() }),
            },
          },
        },
      },
      responses: { 201: jsonContent(successSchema(TemplateSchema), "The template"), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.header("content-type")?.includes("json") ? c.req.valid("json") : {};
      const t = await saveAsTemplate(c.get("deps"), ownerOf(c), c.req.valid("param").id, body?.name);
      return ok(c, templateView(t), 201);
    },
  );
  return r;
}

export function paylinkMediaRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "post",
      path: "/paylinks/{id}/cover-image",
      operationId: "uploadPaylinkCover",
      tags,
      summary:
        "Upload the cover image (PNG, JPEG or WebP, at most 5 MB and 4096 px a side; metadata removed)",
      security,
      middleware: [...write, uploadLimit(MAX_IMAGE_BYTES)],
      request: { params: PaylinkId, body: multipart("The image as the part `file`") },
      responses: { 200: jsonContent(successSchema(PaylinkSchema), "The paylink"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const { id } = c.req.valid("param");
      await getPaylink(deps, ownerOf(c), id);
      await setCoverImage(deps, ownerOf(c), id, await fileBytes(formOf(c)));
      return ok(c, paylinkView(deps.config, await getPaylink(deps, ownerOf(c), id), deps.clock.now()));
    },
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/paylinks/{id}/cover-image",
      operationId: "removePaylinkCover",
      tags,
      summary: "Remove the cover image",
      security,
      middleware: write,
      request: { params: PaylinkId },
      responses: { 200: jsonContent(successSchema(PaylinkSchema), "The paylink"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const { id } = c.req.valid("param");
      await removeCoverImage(deps, ownerOf(c), id);
      return ok(c, paylinkView(deps.config, await getPaylink(deps, ownerOf(c), id), deps.clock.now()));
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/paylinks/{id}/products/{productId}/image",
      operationId: "uploadPaylinkProductImage",
      tags,
      summary: "Upload a product's image (PNG, JPEG or WebP, at most 5 MB; metadata removed)",
      security,
      middleware: [...write, uploadLimit(MAX_IMAGE_BYTES)],
      request: { params: ProductParams, body: multipart("The image as the part `file`") },
      responses: { 200: jsonContent(successSchema(ProductSchema), "The product"), ...errorResponses },
    }),
    async (c) => {
      const deps = c.get("deps");
      const { id, productId } = c.req.valid("param");
      await assertProductOf(deps, ownerOf(c), id, productId);
      const product = await setProductImage(
        deps,
        ownerOf(c),
        id,
        productId,
        await fileBytes(formOf(c)),
      );
      return ok(c, productView(deps.config, product));
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/paylinks/{id}/products/import-csv",
      operationId: "importPaylinkProductsCsv",
      tags,
      summary:
        "Import products from a CSV file (columns name, price, description, productType, digitalUrl, " +
        "stockQty, lowStockThreshold, sortOrder); all or nothing",
      security,
      middleware: [...write, uploadLimit(MAX_CSV_BYTES)],
      request: { params: PaylinkId, body: multipart("The CSV file as the part `file`") },
      responses: {
        201: jsonContent(
          successSchema(z.object({ imported: z.number().int(), products: z.array(ProductSchema) })),
          "The products added",
        ),
        ...errorResponses,
      },
    }),
    async (c) => {
      const deps = c.get("deps");
      await getPaylink(deps, ownerOf(c), c.req.valid("param").id);
      const products = await importProductsCsv(
        deps,
        ownerOf(c),
        c.req.valid("param").id,
        await fileBytes(formOf(c)),
      );
      return ok(
        c,
        { imported: products.length, products: products.map((p) => productView(deps.config, p)) },
        201,
      );
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/images/{key}",
      operationId: "getPaylinkImage",
      tags,
      summary: "A paylink image (public; content-addressed, cached for a year)",
      security: [],
      request: {
        params: z.object({
          key: z.string().regex(
            /^[0-9a-f]{64}\.(png|jpg|webp)$/,
            "an image key: 64 hex digits, then .png, .jpg or .webp",
          )
            .openapi({
              param: { name: "key", in: "path" },
              example: `${"0".repeat(64)}.png`,
            }),
        }),
      },
      responses: {
        200: {
          description: "The image",
          content: {
            "image/png": { schema: z.any().openapi({ type: "string", format: "binary" }) },
            "image/jpeg": { schema: z.any().openapi({ type: "string", format: "binary" }) },
            "image/webp": { schema: z.any().openapi({ type: "string", format: "binary" }) },
          },
        },
        304: { description: "Not modified (If-None-Match)" },
        ...errorResponses,
      },
    }),
    // deno-lint-ignore no-explicit-any
    async (c): Promise<any> => {
      const { key } = c.req.valid("param");
      const etag = `"${key.split(".")[0]}"`;
      const cacheHeaders = {
        "Cache-Control": "public, max-age=31536000, immutable",
        ETag: etag,
        "X-Content-Type-Options": "nosniff",
      };
      const image = await readImage(c.get("deps"), key);
      if (c.req.header("if-none-match")?.split(",").map((t) => t.trim()).includes(etag)) {
        return c.body(null, 304, cacheHeaders);
      }
      return c.body(image.bytes as Uint8Array<ArrayBuffer>, 200, {
        ...cacheHeaders,
        "Content-Type": image.contentType,
      });
    },
  );
  return r;
}

const LimitSchema = z.object({ merchantId: z.string(), maxPaylinks: z.number().int() }).openapi(
  "PaylinkPlanLimit",
);

export function adminPaylinkRoutes() {
  const r = newRouter();
  const params = idParam("mch", "MERCHANT_NOT_FOUND");
  r.openapi(
    createRoute({
      method: "get",
      path: "/merchants/{id}/paylink-limit",
      tags: ["Admin"],
      summary: "A merchant's plan limit on paylinks (per mode)",
      operationId: "adminGetPaylinkLimit",
      security: [{ OperatorToken: [] }],
      middleware: [requireAdmin],
      request: { params },
      responses: { 200: jsonContent(successSchema(LimitSchema), "The limit"), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await getMerchant(c.get("deps"), id);
      return ok(c, await getPaylinkLimit(c.get("deps"), id));
    },
  );
  r.openapi(
    createRoute({
      method: "put",
      path: "/merchants/{id}/paylink-limit",
      tags: ["Admin"],
      summary: "Set a merchant's plan limit on paylinks (LIMIT_EXCEEDED_PAYLINKS past it)",
      operationId: "adminSetPaylinkLimit",
      security: [{ OperatorToken: [] }],
      middleware: [requireAdmin],
      request: {
        params,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({ maxPaylinks: z.number().int().min(0).max(1_000_000) }),
            },
          },
        },
      },
      responses: { 200: jsonContent(successSchema(LimitSchema), "The limit"), ...errorResponses },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await getMerchant(c.get("deps"), id);
      return ok(c, await setPaylinkLimit(c.get("deps"), id, c.req.valid("json").maxPaylinks));
    },
  );
  return r;
}
