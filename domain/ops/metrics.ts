// What an operator's Prometheus scrapes: this process's request counts (memory, per process: Prometheus
// sums the processes) and the shared state read from the database at scrape time (the same from every
// process, so take max, not sum, across them).
import { readDatabaseGauges } from "../../db/metrics.ts";
import { addressPoolFree } from "../payins/address_pool.ts";
import type { Deps } from "../deps.ts";
import type { NodeHealth } from "../../rails/tron/node_pool.ts";
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
  deps: Pick<Deps, "db" | "clock" | "config" | "tronNodes" | "fiat">,
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
    ...tronNodeFamilies(deps.tronNodes?.health() ?? []),
    ...await aggregatorMetricLines(deps),
  ];
  return lines.join("\n") + "\n";
}

/** Per TRON node of this process's pool (none with the embedded devnet): counters and its health. */
function tronNodeFamilies(nodes: NodeHealth[]): string[] {
  const l = (n: NodeHealth) => `node="${label(n.url)}",role="${n.role}"`;
  const series = (
    name: string,
    type: "counter" | "gauge",
    help: string,
    value: (n: NodeHealth) => number | null,
  ) =>
    family(
      name,
      type,
      help,
      nodes.flatMap((n) => {
        const v = value(n);
        return v === null ? [] : [`${name}{${l(n)}} ${v}`];
      }),
    );
  return [
    ...series("gateway_tron_node_requests_total", "counter", "Requests sent to the node.", (n) => n.requests),
    ...series(
      "gateway_tron_node_throttled_total",
      "counter",
      "429 and 403 answers (the node's budget spent).",
      (n) => n.throttled,
    ),
    ...series(
      "gateway_tron_node_errors_total",
      "counter",
      "Failed requests: 429/403/5xx, timeouts, refused connections, truncated answers.",
      (n) => n.failures,
    ),
    ...series(
      "gateway_tron_node_budget_left",
      "gauge",
      "Requests this process may still send the node now (its token bucket, or its leased tokens plus what the window shared by every host had left at its last lease).",
      (n) => n.budgetLeft,
    ),
    ...series("gateway_tron_node_head_block", "gauge", "The node's head at the last probe.", (n) => n.head),
    ...series(
      "gateway_tron_node_lag_blocks",
      "gauge",
      "Blocks behind the best trusted node.",
      (n) => n.lagBlocks,
    ),
    ...series(
      "gateway_tron_node_error_rate",
      "gauge",
      "Moving share of failed requests (0 to 1).",
      (n) => Number(n.errorRate.toFixed(4)),
    ),
    ...series("gateway_tron_node_latency_ms", "gauge", "Moving average answer time.", (n) => n.latencyMs),
    ...series(
      "gateway_tron_node_benched",
      "gauge",
      "1 while the node is not used (benched after failures, lagging or on a fork).",
      (n) => Number(n.benched),
    ),
    ...series(
      "gateway_tron_node_forked",
      "gauge",
      "1 while the node disagrees with the majority on a block hash.",
      (
        n,
      ) => Number(n.forked),
    ),
    ...series(
      "gateway_tron_node_wrong_network",
      "gauge",
      "1 while the node serves another network's genesis block than TRON_NETWORK's (never used).",
      (n) => Number(n.identity === "wrong"),
    ),
  ];
}
