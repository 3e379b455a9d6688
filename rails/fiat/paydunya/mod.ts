// PayDunya behind the gateway's seams: checkout invoices (card and mobile money on PayDunya's page) and
// disbursements.
//
// Refunds (not built here): PayDunya publishes no refund call for a checkout invoice; a refund would be a
// disbursement (createPayDunyaDisbursements().send) to the payer under its own reference, which is the
// seam a refund feature plugs into.
import { AggregatorCallStats } from "../aggregators/call_stats.ts";
import type { AggregatorHttp } from "../aggregators/http.ts";
import type { FiatProviderSet, OperatorCode } from "../provider.ts";
import { createPayDunyaCollection, type PayDunyaKeys } from "./collect.ts";
import { createPayDunyaDisbursements, type ReferenceStore } from "./disburse.ts";

export type { ReferenceStore } from "./disburse.ts";

export type PayDunyaOptions = AggregatorHttp & PayDunyaKeys & {
  apiUrl: string;
  storeName: string;
  withdrawModes: Partial<Record<OperatorCode, string>>;
  refs: ReferenceStore;
  now?: () => number;
};

export function createPayDunya(opts: PayDunyaOptions): FiatProviderSet {
  const now = opts.now ?? (() => Date.now());
  const calls = opts.monitor?.calls ?? new AggregatorCallStats(now);
  const monitored = { ...opts, now, monitor: { calls, aggregator: "paydunya" } };
  return {
    ...createPayDunyaCollection(monitored),
    momoPayout: createPayDunyaDisbursements(monitored),
    calls,
  };
}
