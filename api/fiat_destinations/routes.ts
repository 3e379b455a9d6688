// /v1/merchants/fiat-destinations: where XOF withdrawals go, a mobile money number or a bank account
// (list, register, update, delete). Scopes fiat_destinations_read / fiat_destinations_write.
import { createRoute, z } from "@hono/zod-openapi";
import {
  deleteFiatDestination,
  fiatDestinationView,
  listFiatDestinationsOf,
  registerFiatDestination,
  updateFiatDestinationOf,
} from "../../domain/fiat_destinations/mod.ts";
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

const security = KEY_SECURITY;
const tags = ["Fiat destinations"];
// Detail fields are plain strings here so that a missing or wrong one is the catalogue's code
// (MISSING_MOBILE_MONEY_FIELDS, MISSING_BANK_FIELDS, FIAT_DESTINATION_INVALID, OPERATOR_NOT_SUPPORTED).
const Field = (max: number, description: string, example?: string) =>
  z.string().max(max).optional().openapi({ description, ...(example ? { example } : {}) });
const details = {
  label: z.string().max(100).nullable().optional().openapi({ example: "Orange wallet of the shop" }),
  isPrimary: z.boolean().optional().openapi({
    description: "the default destination of XOF withdrawals; exactly one per merchant and mode",
  }),
  momoOperator: Field(
    32,
    "MOMO: OPERATOR_A_BF or OPERATOR_B_BF, checked against the number (else OPERATOR_NOT_SUPPORTED)",
    "OPERATOR_B_BF",
  ).openapi({ enum: ["OPERATOR_A_BF", "OPERATOR_B_BF"] }),
  momoPhone: Field(32, "MOMO: E.164 number (+226 and 8 digits)", "+22670123456").openapi({
    pattern: "^\\+226[0-9]{8}$",
  }),
  bankName: Field(140, "BANK: the bank's name", "Banque Atlantique Burkina"),
  bankAccountName: Field(140, "BANK: the account holder's name", "Boutique Wend-Kuuni SARL"),
  bankIban: Field(64, "BANK: IBAN (ISO 13616, mod-97 checked); or bankAccountNumber and bankCode"),
  bankAccountNumber: Field(64, "BANK: account number, when there is no IBAN (needs bankCode)"),
  bankCode: Field(32, "BANK: the bank's code"),
};

const RegisterBody = z.strictObject({
  kind: z.enum(["MOMO", "BANK"]),
  ...details,
}).openapi("RegisterFiatDestination");

const UpdateBody = z.strictObject(details).openapi("UpdateFiatDestination");

const DestinationSchema = z.object({
  id: z.string(),
  kind: z.enum(["MOMO", "BANK"]),
  label: z.string().nullable(),
  isPrimary: z.boolean(),
  momoOperator: z.string().nullable(),
  momoPhone: z.string().nullable(),
  bankName: z.string().nullable(),
  bankAccountName: z.string().nullable(),
  bankIban: z.string().nullable(),
  bankAccountNumber: z.string().nullable(),
  bankCode: z.string().nullable(),
  isSandbox: z.boolean(),
  availableAt: z.string().openapi({
    description: "first use in a withdrawal: 24 hours after registration or after the details changed",
  }),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletedAt: z.string().nullable(),
}).openapi("FiatDestination");

const IdParam = idParam("fdst", "FIAT_DESTINATION_NOT_FOUND");

export function fiatDestinationRoutes() {
  const r = newRouter();
  const scope = (c: { get(k: "auth"): { merchantId: string; isSandbox: boolean } }) => ({
    merchantId: c.get("auth").merchantId,
    isSandbox: c.get("auth").isSandbox,
  });

  r.openapi(
    createRoute({
      method: "get",
      path: "/merchants/fiat-destinations",
      operationId: "listFiatDestinations",
      tags,
      summary: "List fiat destinations, newest first",
      security,
      middleware: [requireKey("fiat_destinations_read", "read")],
      request: { query: PageQuerySchema.extend({ kind: z.enum(["MOMO", "BANK"]).optional() }) },
      responses: { 200: jsonContent(pagedSchema(DestinationSchema), "Fiat destinations"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { rows, total } = await listFiatDestinationsOf(c.get("deps"), scope(c), q);
      return ok(c, pageOf(rows.map(fiatDestinationView), total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/merchants/fiat-destinations",
      operationId: "registerFiatDestination",
      tags,
      summary: "Register a mobile money number or bank account (usable after 24 hours)",
      security,
      middleware: [requireKey("fiat_destinations_write", "write")],
      request: { body: { required: true, content: { "application/json": { schema: RegisterBody } } } },
      responses: { 201: jsonContent(successSchema(DestinationSchema), "Registered"), ...errorResponses },
    }),
    async (c) =>
      ok(
        c,
        fiatDestinationView(await registerFiatDestination(c.get("deps"), scope(c), c.req.valid("json"))),
        201,
      ),
  );

  r.openapi(
    createRoute({
      method: "patch",
      path: "/merchants/fiat-destinations/{id}",
      operationId: "updateFiatDestination",
      tags,
      summary: "Update a fiat destination (new payment details restart the 24-hour cooldown)",
      security,
      middleware: [requireKey("fiat_destinations_write", "write")],
      request: {
        params: IdParam,
        body: { required: true, content: { "application/json": { schema: UpdateBody } } },
      },
      responses: { 200: jsonContent(successSchema(DestinationSchema), "Updated"), ...errorResponses },
    }),
    async (c) =>
      ok(
        c,
        fiatDestinationView(
          await updateFiatDestinationOf(
            c.get("deps"),
            scope(c),
            c.req.valid("param").id,
            c.req.valid("json"),
          ),
        ),
      ),
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/merchants/fiat-destinations/{id}",
      operationId: "deleteFiatDestination",
      tags,
      summary: "Delete a fiat destination (withdrawals already accepted are still paid to it)",
      security,
      middleware: [requireKey("fiat_destinations_write", "write")],
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(DestinationSchema), "Deleted"), ...errorResponses },
    }),
    async (c) =>
      ok(
        c,
        fiatDestinationView(await deleteFiatDestination(c.get("deps"), scope(c), c.req.valid("param").id)),
      ),
  );
  return r;
}
