// /v1/paylinks/templates: saved paylink shapes a merchant starts new paylinks from (list, create, update, delete).
import { createRoute, z } from "@hono/zod-openapi";
import {
  createTemplate,
  deleteTemplate,
  listTemplates,
  saveAsTemplate,
} from "../../domain/paylinks/templates.ts";
import { templateView } from "../../domain/paylinks/view.ts";
import { newRouter } from "../router.ts";
import {
  errorResponses,
  idParam,
  jsonContent,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  successSchema,
} from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import { ownerOf, PaylinkId, security } from "./routes.ts";
import { ProductShapeSchema, TemplateSchema } from "./schemas.ts";

const tags = ["Paylinks"];
/** A template id in the path: malformed is NOT_FOUND, like an unknown one (nothing to tell apart). */
const TemplateId = idParam("tpl");
const write = [requireKey("paylinks_write", "write")];

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
