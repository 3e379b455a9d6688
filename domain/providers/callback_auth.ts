// Who may post a provider callback: the provider whose secret signed its raw body, recently. Checked
// before anything reads the body (the route's input guard, its parser), as a key is on every
// authenticated route: a caller without the signature learns nothing of what the route would refuse.
import { ProviderError } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { momoPayoutProvider } from "../fiat_out/disburse.ts";
import { fiatProvidersFor } from "../payins/create_fiat.ts";

/** Which provider a callback route listens to: a pay-in's rail, or mobile money disbursements. */
export type CallbackSource =
  | { kind: "payin"; rail: "card" | "momo"; simulator: boolean }
  | { kind: "disbursement"; simulator: boolean };

/** Throws INVALID_WEBHOOK_SIGNATURE unless the callback is signed by its provider within the tolerance. */
export async function authenticateProviderCallback(
  deps: Pick<Deps, "fiat">,
  source: CallbackSource,
  request: { headers: Headers; rawBody: string },
): Promise<void> {
  const provider = source.kind === "disbursement"
    ? momoPayoutProvider(deps, source.simulator)
    : fiatProvidersFor(deps, source.simulator)[source.rail];
  try {
    await provider.authenticateCallback(request);
  } catch (err) {
    if (err instanceof ProviderError) {
      throw new AppError("INVALID_WEBHOOK_SIGNATURE", "Provider callback refused: " + err.message);
    }
    throw err;
  }
}
