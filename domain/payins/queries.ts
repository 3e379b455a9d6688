// Reading pay-ins as a merchant, and the sandbox's simulated settlement.
import { findMerchantPayin, listMerchantPayins } from "../../db/payins.ts";
import { disputedPayins } from "../../db/disputes.ts";
import { refundedAmounts } from "../../db/refunds.ts";
import type { Caller } from "../auth.ts";
import { toHex } from "../crypto.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { Decimal } from "../money.ts";
import { settleUsdtReceipt } from "./settle.ts";
import { applyFiatOutcome } from "./settle_fiat.ts";
import { isPublishableKind } from "../keys/api_keys.ts";
import { payinRecordView, publishablePayinView } from "./view.ts";

export async function getPayin(deps: Pick<Deps, "db" | "config">, caller: Caller, id: string) {
  const payin = await findMerchantPayin(deps.db, caller.merchantId, caller.isSandbox, id);
  if (!payin) throw new AppError("NOT_FOUND", "Pay-in not found");
  const refunded = await refundedAmounts(deps.db, [payin.id]);
  const disputed = await disputedPayins(deps.db, [payin.id]);
  const record = payinRecordView(deps.config, payin, refunded.get(payin.id), disputed.has(payin.id));
  return isPublishableKind(caller.kind) ? publishablePayinView(record) : record;
}

export async function listPayins(
  deps: Pick<Deps, "db" | "config">,
  caller: Caller,
  q: { page: number; limit: number; status?: string; currency?: string },
) {
  const { rows, total } = await listMerchantPayins(deps.db, {
    merchantId: caller.merchantId,
    isSandbox: caller.isSandbox,
    status: q.status,
    currency: q.currency,
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  });
  const ids = rows.map((p) => p.id);
  const refunded = await refundedAmounts(deps.db, ids);
  const disputed = await disputedPayins(deps.db, ids);
  return {
    items: rows.map((p) => payinRecordView(deps.config, p, refunded.get(p.id), disputed.has(p.id))),
    total,
  };
}

/**
 * POST /v1/sandbox/payments/:id/simulate: settles a sandbox pay-in in AWAITING_PAYMENT as if the exact
 * amount had arrived, through the same settlement (ledger credit, event, real signed webhook).
 */
export async function simulateSandboxPayin(deps: Deps, caller: Caller, id: string) {
  const payin = await findMerchantPayin(deps.db, caller.merchantId, caller.isSandbox, id);
  if (!payin) throw new AppError("NOT_FOUND", "Pay-in not found");
  if (!payin.is_sandbox) throw new AppError("INVALID_STATE", "Only sandbox pay-ins can be simulated");
  if (payin.status !== "AWAITING_PAYMENT") {
    throw new AppError(
      "INVALID_STATE",
      `Pay-in is ${payin.status}; only AWAITING_PAYMENT pay-ins can be simulated`,
    );
  }
  const simulatedTx = toHex(crypto.getRandomValues(new Uint8Array(32)));
  // Card and mobile money settle as if the provider had captured the full amount.
  const settled = payin.payment_method === "USDT_TRC20"
    ? await settleUsdtReceipt(
      deps,
      payin.id,
      () =>
        Promise.resolve({
          received: new Decimal(payin.amount_expected),
          txHash: simulatedTx,
          transferKeys: [],
        }),
    )
    : await applyFiatOutcome(deps, payin.id, {
      status: "SUCCEEDED",
      amount: payin.amount,
      providerRef: payin.provider_ref ?? `sim_${simulatedTx.slice(0, 24)}`,
    });
  if (!settled) throw new AppError("INVALID_STATE", "Pay-in was settled meanwhile");
  return { message: "Sandbox pay-in confirmed", transactionId: payin.id };
}
