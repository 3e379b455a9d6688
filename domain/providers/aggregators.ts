// The live aggregator named by FIAT_PROVIDER, built from its settings. Sandbox money never reaches it: the
// simulators keep answering sandbox pay-ins and disbursements whatever this says.
import { findAggregatorReference, storeAggregatorReference } from "../../db/provider_polls.ts";
import type { Db } from "../../db/mod.ts";
import { createCinetPay } from "../../rails/fiat/cinetpay/mod.ts";
import { createPayDunya } from "../../rails/fiat/paydunya/mod.ts";
import type { FiatProviderSet } from "../../rails/fiat/provider.ts";
import type { Config } from "../../config.ts";

/** The configured live aggregator, or undefined for FIAT_PROVIDER=simulator. */
export function openAggregator(
  config: Pick<Config, "fiat">,
  db: Db,
  http: { fetch: typeof fetch; now?: () => number },
): FiatProviderSet | undefined {
  const f = config.fiat;
  const common = { fetch: http.fetch, timeoutMs: f.aggregatorTimeoutMs, now: http.now };
  if (f.provider === "cinetpay" && f.cinetpay) return createCinetPay({ ...common, ...f.cinetpay });
  if (f.provider === "paydunya" && f.paydunya) {
    const provider = "paydunya-disburse";
    return createPayDunya({
      ...common,
      ...f.paydunya,
      refs: {
        get: (reference) => findAggregatorReference(db, provider, reference),
        put: (reference, token) => storeAggregatorReference(db, provider, reference, token),
      },
    });
  }
  return undefined;
}
