// What an operator's Prometheus scrapes: this process's request counts (memory, per process: Prometheus
// sums the processes) and the shared state read from the database at scrape time (the same from every
// process, so take max, not sum, across them).
import { readDatabaseGauges } from "../../db/metrics.ts";
import { addressPoolFree } from "../payins/address_pool.ts";
import type { Deps } from "../deps.ts";
import { aggregatorMetricLines } from "./aggregator_health.ts";

type RequestKey = string;

/** Requests by method, route pattern (never the raw path: ids would explode the series) and status. */
export class RequestMetrics {
  #counts = new Map<
    RequestKey,
    { method: string; route: string; status: number; count: number; secs: number }
  >();

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    const entry = this.#counts.get(key);
    if (entry) {
      entry.count++;
      entry.secs += seconds;
    } else this.#counts.set(key, { method, route, status, count: 1, secs: seconds });
  }

  entries() {
    return [...this.#counts.values()];
  }
}

/** Prometheus label values: backslash, double quote and newline escaped. */
function label(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

function family(name: string, type: "counter" | "gauge", help: string, samples: string[]): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples];
}

/** The Prometheus text exposition (format 0.0.4). */
export async function renderMetrics(
  deps: Pick<Deps, "db" | "clock" | "config" | "fiat">,
  requests: RequestMetrics,
): Promise<string> {
  const g = await readDatabaseGauges(deps.db, deps.clock.now());
  const pool = addressPoolFree(deps.db);
  const reqs = requests.entries();
  const labels = (r: (typeof reqs)[number]) =>
    `method="${label(r.method)}",route="${label(r.route)}",status="${r.status}"`;
  const lag = g.scannerHead !== null && g.scannerLastBlock !== null
    ? Math.max(0, g.scannerHead - g.scannerLastBlock)
    : null;
  const lines = [
    ...family(
      "gateway_http_requests_total",
      "counter",
      "HTTP requests answered by this process, by route pattern and status.",
      reqs.map((r) => `gateway_http_requests_total{${labels(r)}} ${r.count}`),
    ),
    ...family(
      "gateway_http_request_duration_seconds_sum",
      "counter",
      "Total seconds spent answering, by route pattern and status (divide by the count for the mean).",
      reqs.map((r) => `gateway_http_request_duration_seconds_sum{${labels(r)}} ${r.secs.toFixed(6)}`),
    ),
    ...family("gateway_webhook_deliveries_pending", "gauge", "Webhook deliveries not yet delivered.", [
      `gateway_webhook_deliveries_pending ${g.deliveriesPending}`,
    ]),
    ...family(
      "gateway_webhook_deliveries_failing",
      "gauge",
      "Pending webhook deliveries whose last attempt failed (waiting for a retry).",
      [`gateway_webhook_deliveries_failing ${g.deliveriesFailing}`],
    ),
    ...family(
      "gateway_webhook_deliveries_failed",
      "gauge",
      "Webhook deliveries that exhausted their retries.",
      [
        `gateway_webhook_deliveries_failed ${g.deliveriesFailed}`,
      ],
    ),
    ...family(
      "gateway_jobs_due",
      "gauge",
      "Work due now and not yet done (queue depth): webhook deliveries due, pay-ins due to expire.",
      [
        `gateway_jobs_due{job="webhook.deliver"} ${g.deliveriesDue}`,
        `gateway_jobs_due{job="payin.expire"} ${g.payinsExpiryDue}`,
      ],
    ),
    ...family(
      "gateway_address_pool_free",
      "gauge",
      "Deposit addresses this process derived ahead and has not yet given to a pay-in.",
      [
        `gateway_address_pool_free{mode="live"} ${pool.live}`,
        `gateway_address_pool_free{mode="sandbox"} ${pool.sandbox}`,
      ],
    ),
    ...family("gateway_scanner_head_block", "gauge", "Latest TRON block the scanner saw at the node.", [
      ...(g.scannerHead === null ? [] : [`gateway_scanner_head_block ${g.scannerHead}`]),
    ]),
    ...family("gateway_scanner_lag_blocks", "gauge", "Blocks between the node's head and the last scanned.", [
      ...(lag === null ? [] : [`gateway_scanner_lag_blocks ${lag}`]),
    ]),
    ...family(
      "gateway_outbound_waiting",
      "gauge",
      "Accepted live payouts and withdrawals waiting to be sent (the hot wallet short).",
      [`gateway_outbound_waiting ${g.outboundWaiting}`],
    ),
    ...family(
      "gateway_outbound_waiting_oldest_seconds",
      "gauge",
      "How long the oldest waiting payout or withdrawal has waited.",
      [`gateway_outbound_waiting_oldest_seconds ${g.outboundWaitingOldestSeconds}`],
    ),
    ...family(
      "gateway_outbound_waiting_alarm",
      "gauge",
      "1 when a payout or withdrawal has waited longer than OUTBOUND_WAIT_ALARM_SECONDS, else 0.",
      [
        `gateway_outbound_waiting_alarm ${
          g.outboundWaitingOldestSeconds > deps.config.outboundWaitAlarmSeconds ? 1 : 0
        }`,
      ],
    ),
    ...await aggregatorMetricLines(deps),
  ];
  return lines.join("\n") + "\n";
}
