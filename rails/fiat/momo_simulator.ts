// A mobile money aggregator stand-in for the two Burkina Faso operators. OPERATOR_A_BF sends an SMS code
// (always 123456 here, valid 5 minutes, 3 tries); OPERATOR_B_BF pushes an approval request that the
// simulator approves by itself after `delayMs` unless the customer approves or declines first
// (POST /simulators/momo/<ref>/approve|decline). Outcomes reach the gateway as signed callbacks.
// State lives in a Map: a restart forgets pending simulated payments.
import {
  isBurkinaFasoNumber,
  nationalNumber,
  OPERATOR_MODES,
  operatorInstruction,
  type OperatorMode,
} from "./operators.ts";
import type {
  InitiateInput,
  MomoInitiateResult,
  MomoProvider,
  OperatorCode,
  OtpResult,
  StatusAnswer,
} from "./provider.ts";
import { ProviderError } from "./provider.ts";
import { createCallbackAuthenticator, createCallbackParser, type Dispatcher } from "./signing.ts";

/** The simulated SMS code. */
export const SIMULATED_OTP = "123456";
export const OTP_VALIDITY_MS = 5 * 60_000;
export const OTP_MAX_ATTEMPTS = 3;

/** What the simulated provider does with a number, by its 8 national digits. Anything else succeeds. */
export type MomoScenario = "succeed" | "insufficient_funds" | "no_answer" | "duplicate_callback";
export const TEST_NUMBERS: Record<string, MomoScenario> = {
  "70000001": "insufficient_funds",
  "54000001": "insufficient_funds",
  "70000002": "no_answer",
  "54000002": "no_answer",
  "70000003": "duplicate_callback",
  "54000003": "duplicate_callback",
};

export function scenarioOf(phone: string): MomoScenario {
  return TEST_NUMBERS[nationalNumber(phone) ?? ""] ?? "succeed";
}

export type MomoStep = "otp" | "approval" | "processing" | "done";

export type MomoPayment = {
  providerRef: string;
  reference: string;
  amount: string;
  callbackUrl: string;
  operatorCode: OperatorCode;
  phone: string;
  mode: OperatorMode;
  scenario: MomoScenario;
  createdAt: number;
  otpAttempts: number;
  step: MomoStep;
  status: StatusAnswer["status"];
  reason?: string;
  cancelAutoApproval?: () => void;
};

export type PhoneActionResult = { ok: true } | { ok: false; code: "NOT_FOUND" | "NOT_APPLICABLE" };

export type MomoSimulator = MomoProvider & {
  get(providerRef: string): MomoPayment | undefined;
  /** The customer approves the pushed request (approval mode). */
  approve(providerRef: string): PhoneActionResult;
  /** The customer declines it: FAILED with reason CUSTOMER_REJECTED. */
  decline(providerRef: string): PhoneActionResult;
};

type Outcome = { status: "SUCCEEDED" | "FAILED"; reason?: string };

/** How many simulated payments are remembered (oldest forgotten first). */
export const MAX_PAYMENTS = 10_000;

export function createMomoSimulator(opts: {
  secret: string;
  delayMs: number;
  dispatcher: Dispatcher;
  now: () => number;
}): MomoSimulator {
  const payments = new Map<string, MomoPayment>();
  const d = opts.dispatcher;

  /** The customer authorized: what the operator then does with the money. */
  const authorized = (p: MomoPayment): Outcome =>
    p.scenario === "insufficient_funds"
      ? { status: "FAILED", reason: "INSUFFICIENT_FUNDS" }
      : { status: "SUCCEEDED" };

  /** The payment is decided; its callback goes out after `delayMs` (never for no-answer numbers). */
  function finish(p: MomoPayment, outcome: Outcome, delayMs: number): void {
    p.step = "processing";
    p.cancelAutoApproval?.();
    p.cancelAutoApproval = undefined;
    if (p.scenario === "no_answer") return;
    d.schedule(delayMs, async () => {
      p.step = "done";
      p.status = outcome.status;
      if (outcome.reason) p.reason = outcome.reason;
      await d.send(
        p.callbackUrl,
        {
          notificationId: d.notificationId(),
          providerRef: p.providerRef,
          reference: p.reference,
          status: outcome.status,
          amount: outcome.status === "SUCCEEDED" ? p.amount : "0",
          ...(outcome.reason ? { reason: outcome.reason } : {}),
          occurredAt: new Date(opts.now()).toISOString(),
        },
        p.scenario === "duplicate_callback" ? 2 : 1,
      );
    });
  }

  function approvalAction(ref: string, outcome: (p: MomoPayment) => Outcome): PhoneActionResult {
    const p = payments.get(ref);
    if (!p) return { ok: false, code: "NOT_FOUND" };
    if (p.step !== "approval") return { ok: false, code: "NOT_APPLICABLE" };
    finish(p, outcome(p), 0);
    return { ok: true };
  }

  function initiateNow(
    input: InitiateInput & { operatorCode: OperatorCode; phone: string },
  ): MomoInitiateResult {
    if (!input.callbackUrl) throw new ProviderError("missing_url", "callbackUrl is required");
    if (!/^[1-9]\d*$/.test(input.amount)) {
      throw new ProviderError("initiate_failed", "amount must be a positive XOF integer string");
    }
    if (input.currency !== "XOF") throw new ProviderError("initiate_failed", "only XOF is supported");
    if (!isBurkinaFasoNumber(input.phone)) {
      throw new ProviderError(
        "initiate_failed",
        "phone must be a Burkina Faso number in E.164 (+226 and 8 digits)",
      );
    }
    const mode = OPERATOR_MODES[input.operatorCode];
    if (!mode) throw new ProviderError("initiate_failed", `unknown operator ${input.operatorCode}`);
    const providerRef = `sim_momo_${crypto.randomUUID().replaceAll("-", "")}`;
    const p: MomoPayment = {
      providerRef,
      reference: input.reference,
      amount: input.amount,
      callbackUrl: input.callbackUrl,
      operatorCode: input.operatorCode,
      phone: input.phone,
      mode,
      scenario: scenarioOf(input.phone),
      createdAt: opts.now(),
      otpAttempts: 0,
      step: mode,
      status: "PENDING",
    };
    // Bounded memory in a long-running process: the oldest simulated payments are forgotten first.
    if (payments.size >= MAX_PAYMENTS) payments.delete(payments.keys().next().value!);
    payments.set(providerRef, p);
    if (mode === "approval") {
      // The customer "approves on the phone" by themselves after the delay.
      p.cancelAutoApproval = d.schedule(opts.delayMs, () => {
        p.cancelAutoApproval = undefined;
        if (p.step === "approval") finish(p, authorized(p), 0);
      });
    }
    return {
      providerRef,
      nextStep: mode,
      instruction: operatorInstruction(input.operatorCode, input.amount),
    };
  }

  return {
    name: "momo-simulator",
    initiate(
      input: InitiateInput & { operatorCode: OperatorCode; phone: string },
    ): Promise<MomoInitiateResult> {
      return new Promise((resolve) => resolve(initiateNow(input)));
    },
    submitOtp(providerRef: string, otp: string): Promise<OtpResult> {
      const p = payments.get(providerRef);
      if (!p || p.mode !== "otp" || p.step !== "otp") {
        return Promise.resolve({ ok: false, code: "OTP_NOT_APPLICABLE" });
      }
      if (opts.now() - p.createdAt > OTP_VALIDITY_MS) {
        return Promise.resolve({ ok: false, code: "OTP_EXPIRED" });
      }
      if (otp.trim() !== SIMULATED_OTP) {
        p.otpAttempts++;
        if (p.otpAttempts >= OTP_MAX_ATTEMPTS) {
          finish(p, { status: "FAILED", reason: "OTP_ATTEMPTS_EXCEEDED" }, opts.delayMs);
        }
        return Promise.resolve({ ok: false, code: "OTP_INVALID" });
      }
      finish(p, authorized(p), opts.delayMs);
      return Promise.resolve({ ok: true });
    },
    queryStatus(providerRef: string): Promise<StatusAnswer> {
      const p = payments.get(providerRef);
      if (!p) {
        return Promise.reject(
          new ProviderError(
            "unavailable",
            `unknown mobile money payment ${providerRef} (the simulator forgets on restart)`,
          ),
        );
      }
      return Promise.resolve({
        status: p.status,
        ...(p.status === "SUCCEEDED" ? { amount: p.amount } : {}),
        ...(p.reason ? { reason: p.reason } : {}),
      });
    },
    authenticateCallback: createCallbackAuthenticator(opts.secret, opts.now),
    parseCallback: createCallbackParser(opts.secret, opts.now),
    get: (ref) => payments.get(ref),
    approve: (ref) => approvalAction(ref, authorized),
    decline: (ref) => approvalAction(ref, () => ({ status: "FAILED", reason: "CUSTOMER_REJECTED" })),
  };
}
