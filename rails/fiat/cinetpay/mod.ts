// CinetPay behind the gateway's seams: card and mobile money collection, mobile money transfers.
//
// Refunds (not built here): CinetPay publishes no refund call for a collected payment; a refund would be a
// transfer (createCinetPayTransfers().send) to the payer's number under its own reference, which is the
// seam a refund feature plugs into.
import { AggregatorCallStats } from "../aggregators/call_stats.ts";
import type { AggregatorHttp } from "../aggregators/http.ts";
import type { FiatProviderSet } from "../provider.ts";
import { createCinetPayCollection } from "./collect.ts";
import { createCinetPayTransfers } from "./transfer.ts";

export type CinetPayOptions = AggregatorHttp & {
  /** Collection API base, https://api-checkout.cinetpay.com in production. */
  apiUrl: string;
  /** Transfer API base, https://client.cinetpay.com in production. */
  transferUrl: string;
  apiKey: string;
  siteId: string;
  /** The site's secret key: the x-token HMAC of payment notifications. */
  secretKey: string;
  /** The transfer API password set in the merchant back office. */
  transferPassword: string;
  now?: () => number;
};

export function createCinetPay(opts: CinetPayOptions): FiatProviderSet {
  const now = opts.now ?? (() => Date.now());
  const calls = opts.monitor?.calls ?? new AggregatorCallStats(now);
  const monitored = { ...opts, now, monitor: { calls, aggregator: "cinetpay" } };
  const collection = createCinetPayCollection(monitored);
  const momoPayout = createCinetPayTransfers({ ...monitored, password: opts.transferPassword });
  return { ...collection, momoPayout, calls };
}
