// CinetPay behind the gateway's seams: card and mobile money collection, mobile money transfers.
//
// Refunds: CinetPay publishes no refund call for a collected payment. A mobile money refund is a transfer
// (createCinetPayTransfers().send) to the payer's number under the reference `refund:<rfd_id>`, made by
// domain/refunds through the disbursement seam; a card refund answers REFUND_RAIL_NOT_AVAILABLE.
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
