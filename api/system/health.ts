import { createRoute, z } from "@hono/zod-openapi";
import { checkHealth } from "../../domain/ops/health.ts";
import { newRouter } from "../router.ts";
import { ErrorSchema, jsonContent } from "../envelope.ts";

const HealthSchema = z.object({
  status: z.enum(["ok", "degraded"]),
  database: z.enum(["ok", "down"]),
  kv: z.enum(["ok", "down"]),
  tron: z.enum(["ok", "down", "embedded"]).openapi({
    description: "The TRON nodes: `down` when every node is benched, lagging or on a fork (the API still " +
      "answers; the scanner catches up afterwards); `embedded` for the development devnet.",
  }),
  driver: z.enum(["pglite", "postgres"]),
  gitRev: z.string(),
  aggregators: z.array(z.object({
    name: z.string().openapi({ example: "cinetpay" }),
    status: z.enum(["ok", "unreachable", "unknown"]).openapi({
      description: "unreachable: its most recent call got no usable answer; unknown: not called yet",
    }),
    lastSuccessAt: z.string().nullable(),
    heldStatuses: z.number().int().nullable().openapi({
      description: "statuses held for an operator (GET /admin/api/provider-statuses/held); null: no database",
    }),
  })).openapi({ description: "the live aggregator (empty with FIAT_PROVIDER=simulator)" }),
});

export function healthRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/health",
      tags: ["Health"],
      summary: "Whether the database, the queue and the TRON nodes answer",
      operationId: "getHealth",
      security: [],
      responses: {
        200: jsonContent(
          HealthSchema,
          "Serving (`status` is `degraded` when only the TRON nodes or the live aggregator do not answer)",
        ),
        400: jsonContent(ErrorSchema, "Refused at the edge: a body over 1 MB, or a NUL in the query string"),
        503: jsonContent(HealthSchema, "The database or KV does not answer"),
      },
    }),
    async (c) => {
      const health = await checkHealth(c.get("deps"));
      const { serving, ...body } = health;
      return c.json(body, serving ? 200 : 503);
    },
  );
  return r;
}
