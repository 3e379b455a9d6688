// Paylink images (cover and product, multipart/form-data), the CSV import of products, and the public
// image route.
import { createRoute, z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../domain/errors.ts";
import { importProductsCsv, MAX_CSV_BYTES } from "../../domain/paylinks/csv_import.ts";
import {
  assertProductOf,
  MAX_IMAGE_BYTES,
  readImage,
  removeCoverImage,
  setCoverImage,
  setProductImage,
} from "../../domain/paylinks/images.ts";
import { getPaylink } from "../../domain/paylinks/queries.ts";
import { paylinkView, productView } from "../../domain/paylinks/view.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, successSchema } from "../envelope.ts";
import type { AppEnv } from "../../http/env.ts";
import { requireKey } from "../middleware/auth.ts";
import { ownerOf, PaylinkId, ProductParams, security } from "./routes.ts";
import { PaylinkSchema, ProductSchema } from "./schemas.ts";
import { FilePart } from "../shape_schemas.ts";

const tags = ["Paylinks"];
const write = [requireKey("paylinks_write", "write")];

/** Multipart bodies are refused past `max` bytes before anything parses them (the app skips its 1 MB cap). */
export function uploadLimit(max: number): MiddlewareHandler<AppEnv> {
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

// A missing part is answered by fileBytes (VALIDATION_ERROR naming `file`), so zod lets it through and the
// document declares it required.
const FileForm = z.object({
  file: FilePart.openapi({ description: "the file" }),
});

/** The `file` part of a multipart body as bytes; anything else is a clear VALIDATION_ERROR. */
export async function fileBytes(form: { file?: unknown } | undefined): Promise<Uint8Array> {
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
export function formOf(c: { req: { valid: (target: never) => any } }): { file?: unknown } | undefined {
  try {
    return c.req.valid("form" as never);
  } catch {
    return undefined;
  }
}

/** A multipart body of one part `file`, of the media types `contentType` names (its bytes are checked). */
const multipart = (description: string, contentType: string) => ({
  required: true,
  description,
  content: { "multipart/form-data": { schema: FileForm, encoding: { file: { contentType } } } },
});
const IMAGE_TYPES = "image/png, image/jpeg, image/webp";

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
      request: { params: PaylinkId, body: multipart("The image as the part `file`", IMAGE_TYPES) },
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
      request: { params: ProductParams, body: multipart("The image as the part `file`", IMAGE_TYPES) },
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
      request: { params: PaylinkId, body: multipart("The CSV file as the part `file`", "text/csv") },
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
