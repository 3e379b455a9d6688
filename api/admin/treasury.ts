// GET /admin/api/treasury: the hot wallet, what waits to be swept, and the reconciliation (owed vs held).
import { createRoute, z } from "@hono/zod-openapi";
import { treasuryReport } from "../../domain/treasury/reconcile.ts";
import { newRouter } from "../router.ts";
import { errorResponses, jsonContent, ok, OPERATOR_SECURITY, successSchema } from "../envelope.ts";
import { requireViewer } from "../middleware/admin_auth.ts";

const TreasurySchema = z.object({
  checkedAt: z.string(),
  hotWallet: z.object({
    address: z.string(),
    usdt: z.string(),
    trx: z.string().openapi({ description: "TRX not staked" }),
    energy: z.object({
      limit: z.number().int(),
      used: z.number().int(),
      stakedTrx: z.string().openapi({ description: "own stake for energy, not lent out" }),
      delegatedTrx: z.string().openapi({ description: "stake lent to deposit addresses being swept" }),
    }),
  }),
  awaitingSweep: z.object({ addresses: z.number().int(), usdt: z.string() }),
  reconciliation: z.object({
    owedToMerchants: z.string(),
    merchantWallets: z.string(),
    reservedForPayouts: z.string(),
    heldOnChain: z.string(),
    difference: z.string(),
    shortfall: z.boolean().openapi({ description: "true when the chain holds less than merchants are owed" }),
  }),
  waitingToSend: z.object({
    count: z.number().int().openapi({
      description: "accepted live items the hot wallet cannot send yet (max 100)",
    }),
    oldestSeconds: z.number().int(),
    alarm: z.boolean().openapi({
      description: "true when the oldest waited over OUTBOUND_WAIT_ALARM_SECONDS",
    }),
    items: z.array(z.object({
      id: z.string(),
      kind: z.enum(["PAYOUT", "WITHDRAWAL"]),
      merchantId: z.string(),
      status: z.string(),
      amount: z.string().openapi({ description: "USDT the recipient is to receive" }),
      reason: z.string(),
      since: z.string(),
      waitingSeconds: z.number().int(),
    })),
  }).openapi({ description: "Payouts and withdrawals waiting for the hot wallet, oldest first" }),
  conversions: z.object({
    usdtPosition: z.string().openapi({
      description: "live conversions' net USDT: positive, taken in from merchants; negative, owed to cover",
    }),
    xofPosition: z.string().openapi({ description: "the same in XOF" }),
  }).openapi({ description: "The platform's own exposure from wallet conversions (sum of its FX accounts)" }),
}).openapi("Treasury");

export function adminTreasuryRoutes() {
  const r = newRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/treasury",
      operationId: "adminGetTreasury",
      tags: ["Admin"],
      summary: "Hot wallet, unswept deposits, and what merchants are owed against what the chain holds",
      security: OPERATOR_SECURITY,
      middleware: [requireViewer],
      responses: { 200: jsonContent(successSchema(TreasurySchema), "The live treasury"), ...errorResponses },
    }),
    async (c) => ok(c, await treasuryReport(c.get("deps"))),
  );
  return r;
}
