// POST/GET /v1/payments and the sandbox simulation of a pay-in.
import { createRoute, z } from "@hono/zod-openapi";
import { resolveCreationMode, sandboxFlagged } from "../../domain/sandbox/flag.ts";
import { createUsdtPayin } from "../../domain/payins/create.ts";
import { createCardPayin, createMobileMoneyPayin } from "../../domain/payins/create_fiat.ts";
import { submitPayinOtp } from "../../domain/payins/otp.ts";
import type { Deps } from "../../domain/deps.ts";
import type { Caller } from "../../domain/auth.ts";
import { getPayin, listPayins, simulateSandboxPayin } from "../../domain/payins/queries.ts";
import { PAYIN_STATUSES } from "../../domain/payins/states.ts";
import { cardCreationView, mobileMoneyCreationView, usdtCreationView } from "../../domain/payins/view.ts";
import { newRouter } from "../router.ts";
import {
  errorResponses,
  errorResponsesWith,
  HttpUrl,
  idParam,
  jsonContent,
  KEY_SECURITY,
  ok,
  pagedSchema,
  pageOf,
  PageQuerySchema,
  providerErrorResponses,
  successSchema,
} from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";
import {
  CardCreatedSchema,
  CreationHeaders,
  MobileMoneyCreatedSchema,
  PayinSchema,
  SandboxQuery,
  UsdtCreatedSchema,
} from "./schemas.ts";
import { idempotent } from "../middleware/idempotency.ts";
import { openapiRoute } from "../openapi_route.ts";
import { E164_PHONE, EMAIL_PATTERN, IDEMPOTENCY_CODES, UsdtAmount, XofAmount } from "../shape_schemas.ts";
import type { ErrorCode } from "../../domain/errors.ts";

const security = KEY_SECURITY;

/** What every rail takes besides its amount; fields another rail uses are accepted and ignored. */
const paymentFields = {
  externalRef: z.string().min(1).max(128).optional(),
  expiresInSeconds: z.number().int().min(900).max(86400).optional().openapi({
    description: "USDT only; default 1800",
  }),
  successUrl: HttpUrl.optional(),
  cancelUrl: HttpUrl.optional(),
  metadata: z.record(z.string().max(64), z.unknown()).optional()
    .refine(
      (m) => m === undefined || JSON.stringify(m).length <= 8192,
      "metadata must be at most 8 KB of JSON",
    ),
  customerName: z.string().min(1).max(200).optional(),
  customerEmail: z.string().email().max(320).optional().openapi({ pattern: EMAIL_PATTERN }),
  customerPhone: z.string().max(32).optional(),
  operatorCode: z.enum(["OPERATOR_A_BF", "OPERATOR_B_BF"]).optional(),
};

// Left unnamed: a named set would make the generator add a `discriminator`, which says paymentMethod is
// always present; a USDT body may omit it, and generated clients would then demand it.
const UsdtPaymentBody = z.strictObject({
  ...paymentFields,
  paymentMethod: z.literal("USDT_TRC20").optional().openapi({ description: "absent: USDT_TRC20" }),
  amount: UsdtAmount.openapi({ example: "25.00" }),
});

/** The card rail's fields, without paymentMethod: POST /v1/card-payments names the rail by its path. */
const cardFields = {
  ...paymentFields,
  amount: XofAmount.openapi({ description: "XOF, a whole number of francs; minimum 100" }),
  customerName: z.string().min(1).max(200).openapi({ example: "Awa Ouedraogo" }),
  customerEmail: z.string().email().max(320).openapi({ example: "awa@example.com", pattern: EMAIL_PATTERN }),
};

const CardPaymentBody = z.strictObject({ ...cardFields, paymentMethod: z.literal("CARD") })
  .openapi("CreateCardPayment");

// customerPhone is required, but its absence answers the catalogue's CUSTOMER_PHONE_REQUIRED (domain),
// so zod lets it through and the document alone lists it as required.
const MobileMoneyPaymentBody = z.strictObject({
  ...paymentFields,
  paymentMethod: z.literal("MOBILE_MONEY"),
  customerPhone: z.string().max(32).regex(E164_PHONE, "must be an E.164 number such as +22670123456")
    .optional().openapi({ example: "+22670123456" }),
  amount: XofAmount.openapi({ description: "XOF, a whole number of francs; minimum 500" }),
}).openapi("CreateMobileMoneyPayment", { required: ["paymentMethod", "amount", "customerPhone"] });

const CreatePaymentBody = z.discriminatedUnion("paymentMethod", [
  UsdtPaymentBody,
  CardPaymentBody,
  MobileMoneyPaymentBody,
]).openapi("CreatePayment", {
  description: "One body per rail, told apart by `paymentMethod` (absent: USDT_TRC20)",
});

const CardPaymentsBody = z.strictObject({
  ...cardFields,
  paymentMethod: z.literal("CARD").optional().openapi({
    description: "this path always makes a CARD pay-in",
  }),
}).openapi("CreateCardPaymentOnly");

const IdParam = idParam("pay");

/** What creating a pay-in may answer besides a shape error: mode, verification, rails, minimums. */
const PAYIN_CREATION_CODES: ErrorCode[] = [
  "VALIDATION_ERROR",
  "INVALID_AMOUNT",
  "AMOUNT_TOO_LOW",
  "AMOUNT_BELOW_MINIMUM",
  "CUSTOMER_PHONE_REQUIRED",
  "OPERATOR_NOT_SUPPORTED",
  "SANDBOX_KEY_LIVE_REQUEST",
  "LIVE_KEY_SANDBOX_REQUEST",
  "KYB_REQUIRED",
  "USDT_PAYMENTS_DISABLED",
  "CARD_PAYMENTS_DISABLED",
  "MOBILE_MONEY_PAYMENTS_DISABLED",
  "DUPLICATE_EXTERNAL_REF",
  "MERCHANT_LIMIT_EXCEEDED",
  "BALANCE_CAP_REACHED",
  "DAILY_CAP_EXCEEDED",
  "MONTHLY_LIMIT_EXCEEDED",
  ...IDEMPOTENCY_CODES,
];

type CreateBody = z.infer<typeof CreatePaymentBody>;

/** One domain function per rail; the route only picks which. */
async function createPayinOnRail(deps: Deps, caller: Caller, isSandbox: boolean, body: CreateBody) {
  switch (body.paymentMethod ?? "USDT_TRC20") {
    case "CARD":
      return cardCreationView((await createCardPayin(deps, caller, isSandbox, body)).payin);
    case "MOBILE_MONEY": {
      const created = await createMobileMoneyPayin(deps, caller, isSandbox, body);
      return mobileMoneyCreationView(created.payin, created);
    }
    default: {
      const { payin, qrPng } = await createUsdtPayin(deps, caller, isSandbox, body);
      return usdtCreationView(deps.config, payin, qrPng);
    }
  }
}

const OtpBody = z.strictObject({
  otp: z.string().regex(/^\d{4,8}$/, "must be 4 to 8 digits").openapi({ example: "123456" }),
});
const OtpAnswer = successSchema(
  z.object({ transactionId: z.string(), status: z.literal("AWAITING_PAYMENT") }),
);

export function paymentRoutes() {
  const r = newRouter();

  openapiRoute(
    r,
    createRoute({
      method: "post",
      path: "/payments",
      tags: ["Pay-ins"],
      summary: "Create a pay-in (USDT deposit address, card hosted page, or mobile money)",
      operationId: "createPayment",
      security,
      middleware: [requireKey("payments_write", "write"), idempotent({ required: false })],
      request: {
        query: SandboxQuery,
        headers: CreationHeaders,
        body: { required: true, content: { "application/json": { schema: CreatePaymentBody } } },
      },
      responses: {
        ...errorResponsesWith(PAYIN_CREATION_CODES),
        201: jsonContent(
          successSchema(
            // Exactly one matches: USDT has no paymentMethod, card and mobile money each name theirs.
            z.union([UsdtCreatedSchema, CardCreatedSchema, MobileMoneyCreatedSchema]).openapi({}, {
              unionPreferredType: "oneOf",
            }),
          ),
          "Pay-in created: the USDT, card or mobile money answer, by `paymentMethod`",
        ),
        ...providerErrorResponses,
      },
    }),
    async (c) => {
      const caller = c.get("auth");
      const isSandbox = resolveCreationMode(
        caller.isSandbox,
        sandboxFlagged(c.req.query("sandbox"), c.req.header("x-sandbox")),
      );
      return ok(c, await createPayinOnRail(c.get("deps"), caller, isSandbox, c.req.valid("json")), 201);
    },
  );

  openapiRoute(
    r,
    createRoute({
      method: "post",
      path: "/card-payments",
      tags: ["Pay-ins"],
      summary: "Create a card pay-in (the card row set of POST /v1/payments)",
      operationId: "createCardPayment",
      security,
      middleware: [requireKey("payments_write", "write"), idempotent({ required: false })],
      request: {
        query: SandboxQuery,
        headers: CreationHeaders,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: CardPaymentsBody,
            },
          },
        },
      },
      responses: {
        201: jsonContent(successSchema(CardCreatedSchema), "Card pay-in created"),
        ...errorResponsesWith(PAYIN_CREATION_CODES),
        ...providerErrorResponses,
      },
    }),
    async (c) => {
      const caller = c.get("auth");
      const flagged = sandboxFlagged(c.req.query("sandbox"), c.req.header("x-sandbox"));
      const isSandbox = resolveCreationMode(caller.isSandbox, flagged);
      const body = { ...c.req.valid("json"), paymentMethod: "CARD" as const };
      return ok(c, await createPayinOnRail(c.get("deps"), caller, isSandbox, body), 201);
    },
  );

  for (const base of ["/payments", "/payins"]) {
    r.openapi(
      createRoute({
        method: "post",
        path: `${base}/{id}/submit-otp`,
        tags: ["Pay-ins"],
        summary: base === "/payins"
          ? "Submit a mobile money OTP (kept for existing callers)"
          : "Submit a mobile money OTP",
        operationId: base === "/payins" ? "submitPayinOtpLegacy" : "submitPaymentOtp",
        security,
        middleware: [requireKey("payments_write", "write")],
        request: {
          params: IdParam,
          body: { required: true, content: { "application/json": { schema: OtpBody } } },
        },
        responses: {
          200: jsonContent(OtpAnswer, "Code passed on; the outcome arrives by webhook"),
          ...errorResponses,
          ...providerErrorResponses,
        },
      }),
      async (c) => {
        const { id } = c.req.valid("param");
        return ok(c, await submitPayinOtp(c.get("deps"), c.get("auth"), id, c.req.valid("json").otp));
      },
    );
  }

  r.openapi(
    createRoute({
      method: "get",
      path: "/payments/{id}",
      tags: ["Pay-ins"],
      summary: "Retrieve a pay-in",
      operationId: "getPayment",
      security,
      middleware: [requireKey("payments_read", "read")],
      request: { params: IdParam },
      responses: { 200: jsonContent(successSchema(PayinSchema), "The pay-in record"), ...errorResponses },
    }),
    async (c) => ok(c, await getPayin(c.get("deps"), c.get("auth"), c.req.valid("param").id)),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/payments",
      tags: ["Pay-ins"],
      summary: "List pay-ins",
      operationId: "listPayments",
      security,
      middleware: [requireKey("payments_read", "list")],
      request: {
        query: PageQuerySchema.extend({
          status: z.enum(PAYIN_STATUSES).optional(),
          currency: z.enum(["USDT_TRC20", "XOF"]).optional(),
        }),
      },
      responses: { 200: jsonContent(pagedSchema(PayinSchema), "Pay-ins, newest first"), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await listPayins(c.get("deps"), c.get("auth"), q);
      return ok(c, pageOf(items, total, q));
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/sandbox/payments/{id}/simulate",
      tags: ["Sandbox"],
      summary: "Confirm a sandbox pay-in that awaits payment",
      operationId: "simulateSandboxPayment",
      security,
      middleware: [requireKey("sandbox_write", "write")],
      request: { params: IdParam },
      responses: {
        200: jsonContent(
          successSchema(z.object({ message: z.string(), transactionId: z.string() })),
          "Settled",
        ),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await simulateSandboxPayin(c.get("deps"), c.get("auth"), c.req.valid("param").id)),
  );
  return r;
}
