// The fiat simulators: a card acquirer and a mobile money aggregator that behave like real providers
// (asynchronous, signed callbacks, hosted pages) without leaving the process. State is in memory only:
// a restart forgets pending simulated payments (the gateway's own expiry closes them).
import type { Hono } from "hono";
import { createCardSimulator } from "./card_simulator.ts";
import { createMomoSimulator } from "./momo_simulator.ts";
import { createMomoPayoutSimulator, type MomoPayoutSimulator } from "./momo_payout_simulator.ts";
import type { MomoProvider } from "./provider.ts";
import type { CardSimulator } from "./card_simulator.ts";
import { type Deliver, Dispatcher } from "./signing.ts";
import { simulatorRoutes } from "./simulator_routes.ts";
import { addChargebackRoutes } from "./chargebacks.ts";
import { addDisputeOutcomeRoutes } from "./dispute_outcomes.ts";

export {
  isBurkinaFasoNumber,
  isE164,
  OPERATOR_MODES,
  operatorInstruction,
  resolveOperator,
} from "./operators.ts";
export { SIGNATURE_HEADER, signCallback, verifyCallback } from "./signing.ts";
export { CHALLENGE_CODE, TEST_CARDS } from "./card_simulator.ts";
export { REFUND_TEST_AMOUNTS } from "./card_refund_simulator.ts";
export { SIMULATED_OTP, TEST_NUMBERS } from "./momo_simulator.ts";
export { PAYOUT_TEST_NUMBERS } from "./momo_payout_simulator.ts";

export type SimulatorOptions = {
  /** The gateway's public base URL; hosted card pages live at `<publicBase>/simulators/card/<ref>`. */
  publicBase: string;
  /** Shared secret of callbacks (config.fiat.callbackSecret). */
  secret: string;
  /** How long the simulated provider takes to answer (config.fiat.simulatorDelayMs). */
  delayMs: number;
  /** POSTs a callback to the gateway and answers the HTTP status; the runtime wires it in-process. */
  deliver: Deliver;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
};

export type Simulators = {
  card: CardSimulator;
  momo: MomoProvider;
  /** Mobile money disbursements (XOF out to a number), idempotent by reference. */
  momoPayout: MomoPayoutSimulator;
  /** Routes under /simulators/... (hosted card page, simulated phone); mount with `app.route("/", app)`. */
  app: Hono;
  /** Cancels every pending timer (decisions, deliveries, retries); nothing runs afterwards. */
  stop(): void;
  /** Runs every piece of work already due on the clock and waits for the callbacks it sends. */
  flush(): Promise<void>;
};

export function createSimulators(options: SimulatorOptions): Simulators {
  const now = options.now ?? (() => Date.now());
  const dispatcher = new Dispatcher({ secret: options.secret, deliver: options.deliver, now });
  const card = createCardSimulator({
    publicBase: options.publicBase,
    secret: options.secret,
    delayMs: options.delayMs,
    dispatcher,
    now,
  });
  const momo = createMomoSimulator({ secret: options.secret, delayMs: options.delayMs, dispatcher, now });
  const momoPayout = createMomoPayoutSimulator({
    secret: options.secret,
    delayMs: options.delayMs,
    dispatcher,
    now,
  });
  return {
    card,
    momo,
    momoPayout,
    app: addDisputeOutcomeRoutes(
      addChargebackRoutes(simulatorRoutes(card, momo), card, dispatcher),
      card,
      dispatcher,
    ),
    stop: () => dispatcher.stop(),
    flush: () => dispatcher.flush(),
  };
}
