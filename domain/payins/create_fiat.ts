// Creating card and mobile money pay-ins in XOF: the row and `payin.created` commit first, then the
// provider is asked to start; a provider that fails leaves the pay-in FAILED, never half-made.
import { insertPayin, type PayinRow, setPricing } from "../../db/payins.ts";
import { PG_UNIQUE_VIOLATION, pgErrorCode } from "../../db/mod.ts";
import { isE164, OPERATOR_MODES, operatorInstruction, resolveOperator } from "../../rails/fiat/operators.ts";
import { type OperatorCode, ProviderError } from "../../rails/fiat/provider.ts";
import type { Caller } from "../auth.ts";
import type { Deps, FiatProviders } from "../deps.ts";
import { AppError } from "../errors.ts";
import { emitEvent } from "../webhooks/events.ts";
import { newId } from "../ids.ts";
import { assertMayCreatePayin, type PayinPricing } from "./create.ts";
import { payinEventData } from "./view.ts";
import { takePayinLimits } from "../limits/plan.ts";
import { logPayinState, transitionPayin } from "./transition.ts";

export const CARD_MINIMUM_XOF = 100;
export const MOBILE_MONEY_MINIMUM_XOF = 500;
/** How long a customer has to finish on the provider's side. */
export const FIAT_EXPIRES_IN_SECONDS = 1800;

export type CreateFiatPayinInput = {
  amount: string;
  externalRef?: string;
  successUrl?: string;
  cancelUrl?: string;
  metadata?: Record<string, unknown>;
  customerName?: string;
  customerEmail?: string;
  customerPhone?: string;
  operatorCode?: OperatorCode;
  /** What the price was before conversion (a paylink priced in USDT); absent: priced in XOF directly. */
  pricing?: PayinPricing;
};

/** XOF has no minor unit: an amount is a positive integer string. */
export function parseXofAmount(amount: string, minimum: number, label: string): bigint {
  if (!/^[1-9]\d{0,14}$/.test(amount)) {
    throw new AppError("INVALID_AMOUNT", 'amount must be a whole number of XOF as a string, e.g. "5000"');
  }
  const value = BigInt(amount);
  if (value < BigInt(minimum)) {
    throw new AppError("AMOUNT_BELOW_MINIMUM", `The minimum ${label} pay-in is ${minimum} XOF`);
  }
  return value;
}

function validation(field: string, reason: string): AppError {
  return new AppError("VALIDATION_ERROR", `Validation failed: ${field}: ${reason}`, {
    details: [{ field, reason }],
  });
}

async function insertFiatPayin(
  deps: Deps,
  caller: Caller,
  isSandbox: boolean,
  rail: "CARD" | "MOBILE_MONEY",
  input: CreateFiatPayinInput & { operatorCode?: OperatorCode },
): Promise<PayinRow> {
  const now = deps.clock.now();
  const id = newId("pay", now.getTime());
  try {
    return await deps.db.tx(async (tx) => {
      // The plan's limits on pay-ins, counted in this transaction (undone with it).
      await takePayinLimits(
        { ...deps, db: tx },
        { merchantId: caller.merchantId, isSandbox },
        "XOF",
        input.amount,
      );
      const payin = await insertPayin(tx, {
        id,
        merchantId: caller.merchantId,
        isSandbox,
        paymentMethod: rail,
        currency: "XOF",
        chain: null,
        amount: input.amount,
        amountExpected: input.amount,
        networkFee: "0",
        address: null,
        externalRef: input.externalRef ?? null,
        metadata: input.metadata ?? {},
        successUrl: input.successUrl ?? null,
        cancelUrl: input.cancelUrl ?? null,
        customerName: input.customerName ?? null,
        customerEmail: input.customerEmail ?? null,
        customerPhone: input.customerPhone ?? null,
        operatorCode: input.operatorCode ?? null,
        expiresAt: new Date(now.getTime() + FIAT_EXPIRES_IN_SECONDS * 1000),
        now,
      });
      await setPricing(tx, id, input.pricing ?? { currency: "XOF", amount: input.amount, fxRate: "1" });
      await emitEvent({ ...deps, db: tx }, {
        merchantId: caller.merchantId,
        isSandbox,
        type: "payin.created",
        data: payinEventData(deps.config, payin, "payin.created"),
      });
      logPayinState({ ...deps, db: tx }, payin, null);
      return payin;
    });
  } catch (err) {
    if (pgErrorCode(err) === PG_UNIQUE_VIOLATION && String(err).includes("payins_external_ref_unique")) {
      throw new AppError(
        "DUPLICATE_EXTERNAL_REF",
        `externalRef ${input.externalRef} was already used by this merchant`,
      );
    }
    throw err;
  }
}

/** The provider could not start: the pay-in fails with the reason, and the merchant gets a 502. */
async function failInitiation(deps: Deps, payin: PayinRow, err: unknown): Promise<never> {
  const missingUrl = err instanceof ProviderError && err.kind === "missing_url";
  const reason = missingUrl ? "PROVIDER_MISSING_URL" : "PROVIDER_INITIATE_FAILED";
  await deps.db.tx(async (tx) => {
    await transitionPayin({ ...deps, db: tx }, payin, "FAILED", { failure_reason: reason });
  });
  deps.log.warn("provider initiation failed", { payinId: payin.id, error: String(err) });
  throw new AppError(
    reason,
    missingUrl
      ? "The payment provider returned no payment page"
      : "The payment provider could not start this payment",
  );
}

/** Sandbox pay-ins never reach a provider other than the simulator. */
export function fiatProvidersFor(deps: Pick<Deps, "fiat">, isSandbox: boolean): FiatProviders {
  const providers = isSandbox ? deps.fiat.sandbox : deps.fiat.live;
  if (!providers) {
    throw new AppError(
      "CONFIG_MISSING",
      "No live card or mobile money provider is configured on this gateway",
    );
  }
  return providers;
}

function providerUrls(deps: Deps, payinId: string, rail: "card" | "momo", isSandbox: boolean) {
  return {
    callbackUrl: `${deps.config.publicUrl}/v1/providers/${isSandbox ? "simulator/" : ""}${rail}/callback`,
    returnUrl: `${deps.config.publicUrl}/checkout/${payinId}`,
  };
}

export async function createCardPayin(
  deps: Deps,
  caller: Caller,
  isSandbox: boolean,
  input: CreateFiatPayinInput,
) {
  assertMayCreatePayin(caller, "CARD", isSandbox, deps.clock.now());
  parseXofAmount(input.amount, CARD_MINIMUM_XOF, "card");
  if (!input.customerName) throw validation("customerName", "required for card payments");
  if (!input.customerEmail) throw validation("customerEmail", "required for card payments");
  const providers = fiatProvidersFor(deps, isSandbox);
  const payin = await insertFiatPayin(deps, caller, isSandbox, "CARD", input);
  let started;
  try {
    started = await providers.card.initiate({
      reference: payin.id,
      amount: input.amount,
      currency: "XOF",
      customer: { name: input.customerName, email: input.customerEmail, phone: input.customerPhone },
      isSandbox,
      ...providerUrls(deps, payin.id, "card", isSandbox),
    });
    if (!started.redirectUrl) throw new ProviderError("missing_url", "no redirect URL");
  } catch (err) {
    return await failInitiation(deps, payin, err);
  }
  const updated = await recordProviderStart(
    deps,
    payin,
    started.providerRef,
    "redirect",
    started.redirectUrl,
  );
  return { payin: updated };
}

export async function createMobileMoneyPayin(
  deps: Deps,
  caller: Caller,
  isSandbox: boolean,
  input: CreateFiatPayinInput,
) {
  assertMayCreatePayin(caller, "MOBILE_MONEY", isSandbox, deps.clock.now());
  parseXofAmount(input.amount, MOBILE_MONEY_MINIMUM_XOF, "mobile money");
  if (!input.customerPhone) {
    throw new AppError("CUSTOMER_PHONE_REQUIRED", "customerPhone (E.164) is required for mobile money");
  }
  if (!isE164(input.customerPhone)) {
    throw validation("customerPhone", "must be an E.164 number such as +22670123456");
  }
  const operatorCode = input.operatorCode ?? resolveOperator(input.customerPhone);
  if (!operatorCode) {
    throw new AppError(
      "OPERATOR_NOT_SUPPORTED",
      `No supported mobile money operator serves ${input.customerPhone}`,
    );
  }
  const providers = fiatProvidersFor(deps, isSandbox);
  const payin = await insertFiatPayin(deps, caller, isSandbox, "MOBILE_MONEY", { ...input, operatorCode });
  let started;
  try {
    started = await providers.momo.initiate({
      reference: payin.id,
      amount: input.amount,
      currency: "XOF",
      customer: { name: input.customerName, email: input.customerEmail, phone: input.customerPhone },
      isSandbox,
      operatorCode,
      phone: input.customerPhone,
      ...providerUrls(deps, payin.id, "momo", isSandbox),
    });
  } catch (err) {
    return await failInitiation(deps, payin, err);
  }
  const hosted = `${deps.config.publicUrl}/checkout/${payin.id}`;
  const updated = await recordProviderStart(deps, payin, started.providerRef, started.nextStep, hosted);
  return {
    payin: updated,
    nextStep: started.nextStep ?? OPERATOR_MODES[operatorCode],
    instruction: started.instruction ?? operatorInstruction(operatorCode, input.amount),
    operatorCode,
  };
}

async function recordProviderStart(
  deps: Deps,
  payin: PayinRow,
  providerRef: string,
  nextStep: "otp" | "approval" | "redirect",
  hostedUrl: string,
): Promise<PayinRow> {
  const rows = await deps.db.query<PayinRow>(
    `UPDATE payins SET provider_ref = $2, next_step = $3, hosted_payment_url = $4, updated_at = $5 WHERE id = $1 RETURNING *`,
    [payin.id, providerRef, nextStep, hostedUrl, deps.clock.now()],
  );
  return rows[0];
}
