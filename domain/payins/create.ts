// Creating a USDT pay-in: checks, a fresh deposit address, then the row, its claim and `payin.created` at once.
import { PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode } from "../../db/mod.ts";
import { newPayinRow, type PayinRow, setPricing } from "../../db/payins.ts";
import {
  type DepositAddress,
  returnDepositAddress,
  takeDepositAddress,
  WATCH_AFTER_EXPIRY_MS,
} from "./address_pool.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { queueDeliveriesAfterCommit, webhookBodyOfJson } from "../webhooks/events.ts";
import { effectiveFees } from "../fees.ts";
import { idTimePrefix, newId } from "../ids.ts";
import { qrPngDataUrlSync } from "../../rails/tron/qr.ts";
import { Decimal, DECIMAL_STRING, formatAmount, hasAtMostDecimals } from "../money.ts";
import { writeClaimedPayin } from "./create_batch.ts";
import { logPayinState } from "./transition.ts";
import { payinEventData } from "./view.ts";
import { assertLiveAllowed } from "../merchants/live_gate.ts";
import { takePayinLimits } from "../limits/plan.ts";

export const USDT_MINIMUM = "5";
export const DEFAULT_EXPIRES_IN_SECONDS = 1800;

export type CreateUsdtPayinInput = {
  amount: string;
  externalRef?: string;
  expiresInSeconds?: number;
  successUrl?: string;
  cancelUrl?: string;
  metadata?: Record<string, unknown>;
  /** What the price was before conversion (a paylink priced in XOF); absent: priced in USDT directly. */
  pricing?: PayinPricing;
};

/** The price a pay-in was converted from: its currency, the amount in it, and the rate used (1 unit in the rail's). */
export type PayinPricing = { currency: string; amount: string; fxRate: string };

/** Parses a USDT amount string: INVALID_AMOUNT when it is not a decimal of at most 6 places. */
export function parseUsdtAmount(amount: string): Decimal {
  if (!DECIMAL_STRING.test(amount) || !hasAtMostDecimals(amount, 6)) {
    throw new AppError(
      "INVALID_AMOUNT",
      'amount must be a decimal string with at most 6 decimals, e.g. "25.50"',
    );
  }
  return new Decimal(amount);
}

/** Rail and verification checks shared by every rail. */
export function assertMayCreatePayin(
  caller: Caller,
  rail: "USDT_TRC20" | "CARD" | "MOBILE_MONEY",
  isSandbox: boolean,
  now: Date,
) {
  if (!caller.enabledRails.includes(rail)) {
    const code = rail === "CARD"
      ? "CARD_PAYMENTS_DISABLED"
      : rail === "MOBILE_MONEY"
      ? "MOBILE_MONEY_PAYMENTS_DISABLED"
      : "USDT_PAYMENTS_DISABLED";
    throw new AppError(code);
  }
  assertLiveAllowed({ ...caller, isSandbox }, now);
}

export async function createUsdtPayin(
  deps: Deps,
  caller: Caller,
  isSandbox: boolean,
  input: CreateUsdtPayinInput,
  /**
   * A deposit address the caller took from the pool before opening its transaction (a paylink checkout
   * creates the pay-in inside one; the pool is kept per database handle, and on PGlite reserving a range
   * on the root handle would wait for that very transaction). The caller returns it on failure.
   */
  preTaken?: DepositAddress,
): Promise<{ payin: PayinRow; qrPng: string }> {
  const amount = parseUsdtAmount(input.amount);
  if (amount.lessThan(USDT_MINIMUM)) {
    throw new AppError("AMOUNT_TOO_LOW", `The minimum USDT pay-in is ${USDT_MINIMUM} USDT`);
  }
  assertMayCreatePayin(caller, "USDT_TRC20", isSandbox, deps.clock.now());
  const fees = effectiveFees(caller.feeSchedule);
  const networkFee = new Decimal(fees.usdtNetworkFee);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + (input.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS) * 1000);
  const id = newId("pay", now.getTime());
  const draft = {
    id,
    merchantId: caller.merchantId,
    isSandbox,
    paymentMethod: "USDT_TRC20" as const,
    currency: "USDT_TRC20" as const,
    chain: "TRON",
    amount: formatAmount(amount, "USDT_TRC20"),
    amountExpected: formatAmount(amount.plus(networkFee), "USDT_TRC20"),
    networkFee: formatAmount(networkFee, "USDT_TRC20"),
    externalRef: input.externalRef ?? null,
    metadata: input.metadata ?? {},
    successUrl: input.successUrl ?? null,
    cancelUrl: input.cancelUrl ?? null,
    expiresAt,
    now,
  };
  const eventId = newId("evt", now.getTime());
  const deliveryIdPrefix = idTimePrefix("dlv", now.getTime());
  // The plan's limits on pay-ins (maximum, balance cap, daily and monthly volume), given back if no
  // pay-in is written after all.
  const limits = await takePayinLimits(
    deps,
    { merchantId: caller.merchantId, isSandbox },
    "USDT_TRC20",
    amount,
    caller.planLimits,
  );
  try {
    return await writeUsdtPayin(deps, caller, isSandbox, input, draft, eventId, deliveryIdPrefix, preTaken);
  } catch (err) {
    await limits.giveBack().catch((e) =>
      deps.log.error("pay-in limits not given back", { error: String(e) })
    );
    throw err;
  }
}

async function writeUsdtPayin(
  deps: Deps,
  caller: Caller,
  isSandbox: boolean,
  input: CreateUsdtPayinInput,
  draft: Omit<Parameters<typeof newPayinRow>[0], "address"> & { id: string; expiresAt: Date; now: Date },
  eventId: string,
  deliveryIdPrefix: string,
  preTaken?: DepositAddress,
): Promise<{ payin: PayinRow; qrPng: string }> {
  const { id, expiresAt, now } = draft;
  // The address's claim, the pay-in, payin.created and its deliveries: one atomic statement, shared with
  // the creations of the same moment (create_batch.ts).
  for (let attempt = 1;; attempt++) {
    const deposit = preTaken && attempt === 1 ? preTaken : await takeDepositAddress(deps, isSandbox);
    const payin = newPayinRow({ ...draft, address: deposit.address });
    const eventDataJson = JSON.stringify(payinEventData(deps.config, payin, "payin.created"));
    try {
      const deliveryIds = await writeClaimedPayin(deps.db, {
        id,
        merchantId: caller.merchantId,
        isSandbox,
        amount: payin.amount,
        amountExpected: payin.amount_expected,
        networkFee: payin.network_fee,
        address: deposit.address,
        addressHex: deposit.addressHex,
        accountIndex: deposit.accountIndex,
        derivationIndex: deposit.derivationIndex,
        externalRef: draft.externalRef,
        metadata: draft.metadata,
        successUrl: draft.successUrl,
        cancelUrl: draft.cancelUrl,
        expiresAt,
        now,
        watchUntil: new Date(expiresAt.getTime() + WATCH_AFTER_EXPIRY_MS),
        eventId,
        eventDataJson,
        deliveryBody: webhookBodyOfJson("payin.created", eventDataJson, now, {
          livemode: !isSandbox,
          test: false,
        }),
        deliveryIdPrefix,
      });
      if (input.pricing) {
        // Inside the caller's transaction (a paylink checkout), so the pay-in never exists without it.
        await setPricing(deps.db, id, input.pricing);
        payin.pricing_currency = input.pricing.currency;
        payin.pricing_amount = input.pricing.amount;
        payin.fx_rate = input.pricing.fxRate;
      }
      queueDeliveriesAfterCommit(deps, deliveryIds);
      logPayinState(deps, payin, null);
      return { payin, qrPng: qrPngDataUrlSync(deposit.address) };
    } catch (err) {
      const unique = pgErrorCode(err) === PG_UNIQUE_VIOLATION;
      // Never expected (ranges are reserved, so no index is derived twice): an address already recorded
      // is skipped, not handed back, and another is taken.
      if (unique && pgConstraint(err) === "deposit_addresses_pkey" && attempt < 3) continue;
      if (!preTaken) returnDepositAddress(deps, isSandbox, deposit);
      if (unique && pgConstraint(err) === "payins_external_ref_unique") {
        throw new AppError(
          "DUPLICATE_EXTERNAL_REF",
          `externalRef ${input.externalRef} was already used by this merchant`,
        );
      }
      throw err;
    }
  }
}
