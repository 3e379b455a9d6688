// Schemas the payout and withdrawal routes share.
import { z } from "@hono/zod-openapi";

/** Why an accepted payout or withdrawal is not on its way yet (`domain/money_out/view.ts` waitingView). */
export const WaitingSchema = z.object({
  reason: z.string().openapi({
    description: "HOT_WALLET_FUNDS: the hot wallet waits for a sweep of customer deposits to cover it",
    example: "HOT_WALLET_FUNDS",
  }),
  message: z.string().openapi({ description: "the reason in words, for the merchant's staff" }),
  since: z.string().openapi({ description: "when it started waiting (ISO 8601)" }),
}).nullable().openapi("OutboundWaiting", {
  description:
    "null unless the item is accepted and waits to be sent; cleared once its transaction is signed",
});
