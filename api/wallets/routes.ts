// GET /v1/merchants/wallets, /v1/wallets/balance, /v1/merchant/balances/:currency.
import { createRoute, z } from "@hono/zod-openapi";
import { getBalanceByCurrency, getBalanceSummary, listMerchantWallets } from "../../domain/wallets/mod.ts";
import { getDepositAddress } from "../../domain/payins/direct_deposits.ts";
import { newRouter } from "../router.ts";
import { errorResponses, iso, jsonContent, KEY_SECURITY, ok, successSchema } from "../envelope.ts";
import { requireKey } from "../middleware/auth.ts";

const CurrencySchema = z.enum(["USDT_TRC20", "XOF"]);
const RailSchema = z.enum(["TRC20", "MOMO", "CARD"]);
const WalletSchema = z.object({
  id: z.string(),
  currency: CurrencySchema,
  rail: RailSchema,
  balance: z.string().openapi({ example: "125.500000" }),
  updatedAt: z.string(),
}).openapi("Wallet");

const security = KEY_SECURITY;

/** What each wallet shows beside its balance (domain/wallets/mod.ts). */
const Figures = {
  available: z.string().openapi({ description: "spendable now: balance less pending" }),
  pending: z.string().openapi({
    description:
      "credited but not spendable yet (USDT pay-ins whose block is not solidified); part of balance",
  }),
  reserved: z.string().openapi({
    description: "accepted payouts and withdrawals not final yet (reservedInReview + reservedInFlight); " +
      "already taken out of balance, returned to it if they fail or are cancelled",
  }),
  reservedInReview: z.string().openapi({ description: "reserved and waiting for an operator's review" }),
  reservedInFlight: z.string().openapi({ description: "reserved, approved and on its way out" }),
  heldForDisputes: z.string().openapi({
    description: "held by disputes not decided yet (GET /v1/disputes); already taken out of balance",
  }),
  owedToDisputes: z.string().openapi({
    description: "what disputes could not hold yet (the wallet had less); taken from the next credits",
  }),
  reservedForRefunds: z.string().openapi({
    description: "held by refunds not final yet (not COMPLETED, REJECTED, CANCELLED or FAILED; " +
      "GET /v1/refunds); already taken out of balance, given back if the refund is rejected, cancelled or fails",
  }),
};

export function walletRoutes() {
  const r = newRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/merchants/wallets",
      tags: ["Wallets"],
      summary: "List the merchant's wallets",
      operationId: "listWallets",
      security,
      middleware: [requireKey("balances_read", "read")],
      responses: {
        200: jsonContent(successSchema(z.array(WalletSchema)), "One wallet per (currency, rail)"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const auth = c.get("auth");
      const wallets = await listMerchantWallets(c.get("deps"), auth);
      return ok(c, wallets.map((w) => ({ ...w, updatedAt: iso(w.updatedAt)! })));
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/wallets/balance",
      tags: ["Wallets"],
      summary: "Balances of every wallet (available, pending, reserved), with totals per currency",
      operationId: "getBalanceSummary",
      security,
      middleware: [requireKey("balances_read", "read")],
      responses: {
        200: jsonContent(
          successSchema(z.object({
            isSandbox: z.boolean(),
            balances: z.array(
              z.object({
                walletId: z.string(),
                currency: CurrencySchema,
                rail: RailSchema,
                balance: z.string(),
                ...Figures,
              }),
            ),
            totals: z.record(z.string(), z.string()),
            availableTotals: z.record(z.string(), z.string()).openapi({
              description: "available per currency",
            }),
          })),
          "Balances of every wallet and the total per currency",
        ),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await getBalanceSummary(c.get("deps"), c.get("auth"))),
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/merchant/balances/{currency}",
      tags: ["Wallets"],
      summary: "Balance in one currency",
      operationId: "getBalanceByCurrency",
      security,
      middleware: [requireKey("balances_read", "read")],
      request: { params: z.object({ currency: CurrencySchema }) },
      responses: {
        200: jsonContent(
          successSchema(z.object({
            currency: CurrencySchema,
            total: z.string(),
            available: z.string(),
            pending: z.string(),
            reserved: z.string(),
            wallets: z.array(z.object({ id: z.string(), rail: RailSchema, balance: z.string(), ...Figures })),
          })),
          "Balance in one currency across its rails",
        ),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { currency } = c.req.valid("param");
      return ok(c, await getBalanceByCurrency(c.get("deps"), { ...c.get("auth"), currency }));
    },
  );
  r.openapi(
    createRoute({
      method: "get",
      path: "/wallets/deposit-address",
      tags: ["Wallets"],
      operationId: "getDepositAddress",
      summary: "The merchant's standing USDT address for top-ups (direct deposits), created on first request",
      description:
        "Transfers to it credit the USDT_TRC20/TRC20 wallet at DEPOSIT_CONFIRMATIONS (20), less the " +
        "network fee, with `deposit.confirmed` (or `deposit.failed` below the fee). One address per mode.",
      security,
      middleware: [requireKey("balances_read", "read")],
      responses: {
        200: jsonContent(
          successSchema(z.object({
            address: z.string(),
            currency: z.literal("USDT_TRC20"),
            chain: z.literal("TRON"),
            qrCodeUrl: z.string().openapi({ description: "data URL of a PNG image" }),
            networkFee: z.string(),
            confirmations: z.number().int(),
            isSandbox: z.boolean(),
            createdAt: z.string(),
          })),
          "The standing deposit address",
        ),
        ...errorResponses,
      },
    }),
    async (c) => ok(c, await getDepositAddress(c.get("deps"), c.get("auth"))),
  );
  return r;
}
