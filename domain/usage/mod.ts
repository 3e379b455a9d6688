// What a merchant's integration may ask about itself: its rate-limit buckets (read, never taken), its
// plan and quota limits with what is used of them, and the configuration it integrates against. Every
// figure comes from where the gateway enforces it (config.ts, the fee schedule, the limiters' constants),
// none is restated here.
import { countPaylinksOf, findPlanLimit } from "../../db/paylinks.ts";
import { countEndpoints } from "../../db/webhooks.ts";
import type { Caller } from "../auth.ts";
import { MAX_ITEMS_PER_BATCH, MOMO_MAXIMUM, MOMO_MINIMUM } from "../bulk/items.ts";
import type { Deps } from "../deps.ts";
import { effectiveFees } from "../fees.ts";
import { MANUAL_APPROVAL_ABOVE, MINIMUM_OUT } from "../money_out/request.ts";
import { DEFAULT_EXPIRES_IN_SECONDS, USDT_MINIMUM } from "../payins/create.ts";
import { CARD_MINIMUM_XOF, MOBILE_MONEY_MINIMUM_XOF } from "../payins/create_fiat.ts";
import { DEFAULT_PAYLINK_LIMIT } from "../paylinks/create.ts";
import { MINIMUM_XOF_OUT } from "../fiat_out/withdrawals.ts";
import { peekRateLimits, WINDOW_SECONDS } from "../limits/rate_limit.ts";
import { planCeilings, planLimitsOf, planUsage } from "../limits/plan.ts";

export async function rateLimitUsage(deps: Pick<Deps, "kv" | "db" | "config" | "clock">, caller: Caller) {
  return { windowSeconds: WINDOW_SECONDS, keyId: caller.keyId, buckets: await peekRateLimits(deps, caller) };
}

export async function limitsUsage(deps: Pick<Deps, "db" | "clock" | "config">, caller: Caller) {
  const owner = { merchantId: caller.merchantId, isSandbox: caller.isSandbox };
  const maxPaylinks = (await findPlanLimit(deps.db, caller.merchantId)) ?? DEFAULT_PAYLINK_LIMIT;
  const paylinks = await countPaylinksOf(deps.db, owner);
  const endpoints = await countEndpoints(deps.db, owner);
  const limits = await planLimitsOf(deps, caller.merchantId);
  const quota = (limit: number, used: number) => ({ limit, used, remaining: Math.max(0, limit - used) });
  return {
    isSandbox: caller.isSandbox,
    quotas: {
      paylinks: {
        ...quota(maxPaylinks, paylinks),
        per: "merchant and mode",
        code: "LIMIT_EXCEEDED_PAYLINKS",
      },
      webhookEndpoints: {
        ...quota(Number(limits.webhookEndpoints), endpoints),
        per: "merchant and mode",
        code: "LIMIT_EXCEEDED_WEBHOOKS",
      },
    },
    perOperation: {
      bulkBatchItems: { limit: MAX_ITEMS_PER_BATCH, per: "batch", code: "LIMIT_EXCEEDED_BULK_BATCH" },
      bulkMobileMoneyItemMaximum: {
        limit: MOMO_MAXIMUM.toFixed(),
        currency: "XOF",
        code: "AMOUNT_TOO_LARGE",
      },
      payoutManualApprovalAbove: {
        limit: MANUAL_APPROVAL_ABOVE.toFixed(),
        currency: "USDT_TRC20",
        note: "above it a payout or withdrawal waits in PENDING for an operator",
      },
    },
    plan: await planUsage(deps, owner),
    ceilings: await planCeilings(deps, owner, limits),
  };
}

export function integrationConfig(deps: Pick<Deps, "config">, caller: Caller) {
  const tron = deps.config.tron;
  return {
    isSandbox: caller.isSandbox,
    enabledRails: caller.enabledRails,
    network: { chain: "TRON", name: tron.network, usdtContract: tron.usdtContract },
    confirmations: {
      payin: tron.payinConfirmations,
      deposit: tron.depositConfirmations,
      payout: tron.payoutConfirmations,
    },
    minimums: {
      payin: {
        USDT_TRC20: USDT_MINIMUM,
        CARD: String(CARD_MINIMUM_XOF),
        MOBILE_MONEY: String(MOBILE_MONEY_MINIMUM_XOF),
      },
      payout: MINIMUM_OUT.toFixed(),
      withdrawal: { USDT_TRC20: MINIMUM_OUT.toFixed(), XOF: MINIMUM_XOF_OUT.toFixed() },
      bulkMobileMoneyItem: MOMO_MINIMUM.toFixed(),
    },
    fees: effectiveFees(caller.feeSchedule),
    payinDefaults: { expiresInSeconds: DEFAULT_EXPIRES_IN_SECONDS },
    publicUrl: deps.config.publicUrl,
  };
}
