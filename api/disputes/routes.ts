// /v1/disputes: a merchant's disputes in the key's mode (list, retrieve), its evidence and its acceptance
// (paths not in the specification: docs/decisions.md). Evidence is multipart/form-data: `text` and up to
// three files `file1`..`file3` per request (PDF, PNG or JPEG judged by their bytes), within the app's
// 1 MB body cap; each file at most DISPUTE_EVIDENCE_MAX_FILE_BYTES.
import { createRoute, z } from "@hono/zod-openapi";
import { acceptDispute, submitEvidence } from "../../domain/disputes/evidence.ts";
import { getDisputeView, listDisputes } from "../../domain/disputes/queries.ts";
import { DISPUTE_STATUSES } from "../../domain/disputes/states.ts";
import { disputeView } from "../../domain/disputes/view.ts";
import { AppError } from "../../domain/errors.ts";
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
import { requireKey } from "../middleware/auth.ts";
import { DisputeSchema, EvidenceForm } from "./schemas.ts";

const security = KEY_SECURITY;
const tags = ["Disputes"];
const IdParam = idParam("dsp");

const ListQuery = PageQuerySchema.extend({
  status: z.enum(DISPUTE_STATUSES).optional(),
  transactionId: z.string().max(64).optional().openapi({ description: "only this pay-in's disputes" }),
});

const one = (description: string) => ({
  200: jsonContent(successSchema(DisputeSchema), description),
  ...errorResponses,
});

/** The files of the validated form, in order, as bytes with their names. */
async function filesOf(form: Record<string, unknown>) {
  const files = [];
  for (const name of ["file1", "file2", "file3"]) {
    const part = form[name];
    if (part === undefined) continue;
    if (!(part instanceof File)) {
      throw new AppError("VALIDATION_ERROR", `${name} must be a file part`, {
        details: [{ field: name, reason: "a file part" }],
      });
    }
    files.push({ name: part.name, bytes: new Uint8Array(await part.arrayBuffer()) });
  }
  return files;
}

export function disputeRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/disputes",
      operationId: "listDisputes",
      tags,
      summary: "List disputes, newest first",
      security,
      middleware: [requireKey("payments_read", "list")],
      request: { query: ListQuery },
      responses: { 200: jsonContent(pagedSchema(DisputeSchema), "Disputes"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listDisputes(c.get("deps"), c.get("auth"), q);
      return ok(c, pageOf(items, total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/disputes/{id}",
      operationId: "getDispute",
      tags,
      summary: "Retrieve a dispute with its evidence",
      security,
      middleware: [requireKey("payments_read", "merchant")],
      request: { params: IdParam },
      responses: one("The dispute"),
    }),
    async (c) => ok(c, await getDisputeView(c.get("deps"), c.get("auth"), c.req.valid("param").id)),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/disputes/{id}/evidence",
      operationId: "submitDisputeEvidence",
      tags,
      summary: "Answer a dispute with evidence before its deadline (text and up to 3 files per request)",
      description: "multipart/form-data: `text` replaces earlier text; `file1`..`file3` are added (PDF, " +
        "PNG or JPEG, judged by their bytes; the same bytes twice are one file; 10 files per dispute). " +
        "OPEN becomes UNDER_REVIEW; after `evidenceDueAt` it is refused (INVALID_TRANSACTION_STATUS).",
      security,
      middleware: [requireKey("payments_write", "write")],
      request: {
        params: IdParam,
        body: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: EvidenceForm,
              encoding: {
                file1: { contentType: "application/pdf, image/png, image/jpeg" },
                file2: { contentType: "application/pdf, image/png, image/jpeg" },
                file3: { contentType: "application/pdf, image/png, image/jpeg" },
              },
            },
          },
        },
      },
      responses: one("The dispute with its evidence"),
    }),
    async (c) => {
      const form = c.req.valid("form") as Record<string, unknown>;
      const text = typeof form.text === "string" ? form.text : undefined;
      const { dispute, files } = await submitEvidence(c.get("deps"), c.get("auth"), c.req.valid("param").id, {
        text,
        files: await filesOf(form),
      });
      return ok(c, disputeView(dispute, files));
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/disputes/{id}/accept",
      operationId: "acceptDispute",
      tags,
      summary: "Accept a dispute: it is REJECTED at once and the held amount debited",
      security,
      middleware: [requireKey("payments_write", "write")],
      request: { params: IdParam },
      responses: one("The dispute, REJECTED"),
    }),
    async (c) => {
      const deps = c.get("deps");
      const row = await acceptDispute(deps, c.get("auth"), c.req.valid("param").id);
      return ok(c, await getDisputeView(deps, c.get("auth"), row.id));
    },
  );

  return r;
}
