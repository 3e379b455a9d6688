// PayDunya behind the gateway's seams: checkout invoices (card and mobile money on PayDunya's page) and
// disbursements.
//
// Refunds: PayDunya publishes no refund call for a checkout invoice. A mobile money refund is a
// disbursement (createPayDunyaDisbursements().send) to the payer under the reference `refund:<rfd_id>`,
// made by domain/refunds through the disbursement seam; a card refund answers REFUND_RAIL_NOT_AVAILABLE.
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
