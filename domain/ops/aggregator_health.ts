// The live aggregator's availability as /health and /metrics show it: from the calls this process made
// (rails/fiat/aggregators/call_stats.ts; the gateway never pings an aggregator just to fill a dashboard),
// plus the statuses held for an operator, read from the database. An aggregator that stopped answering
// makes the gateway "degraded", not down: USDT, sandbox and everything already recorded keep working, and
// the reconciliation job settles what waited once it answers again.
import { LATENCY_BUCKETS } from "../../rails/fiat/aggregators/call_stats.ts";
import type { Deps } from "../deps.ts";
import { countHeldStatuses } from "../providers/held_statuses.ts";

export type AggregatorHealth = {
  name: string;
  /** unreachable: its most recent call got no usable answer; unknown: not called since this process began. */
  status: "ok" | "unreachable" | "unknown";
  lastSuccessAt: string | null;
  heldStatuses: number | null;
};

/** The aggregator a poll row or a call names: "cinetpay-transfer" belongs to "cinetpay". */
export function aggregatorOf(provider: string): string {
  return provider.split("-")[0];
}

async function heldByAggregator(deps: Pick<Deps, "db">): Promise<Map<string, number> | null> {
  try {
    const out = new Map<string, number>();
    for (const [provider, n] of await countHeldStatuses(deps)) {
      out.set(aggregatorOf(provider), (out.get(aggregatorOf(provider)) ?? 0) + n);
    }
    return out;
  } catch {
    return null; // the database does not answer: /health says so on its own line
  }
}

export async function aggregatorHealth(deps: Pick<Deps, "db" | "fiat">): Promise<AggregatorHealth[]> {
  const calls = deps.fiat.live?.calls;
  if (!calls) return [];
  const held = await heldByAggregator(deps);
  const seen = calls.availability();
  const names = new Set([...seen.keys(), ...(held?.keys() ?? [])]);
  return [...names].sort().map((name) => {
    const a = seen.get(name);
    return {
      name,
      status: a?.state ?? "unknown",
      lastSuccessAt: a?.lastSuccessAt == null ? null : new Date(a.lastSuccessAt).toISOString(),
      heldStatuses: held ? held.get(name) ?? 0 : null,
    };
  });
}

function label(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

/** Prometheus lines: per aggregator and call, requests, failures, latency histogram, last success; held. */
export async function aggregatorMetricLines(deps: Pick<Deps, "db" | "fiat">): Promise<string[]> {
  const calls = deps.fiat.live?.calls;
  if (!calls) return [];
  const stats = calls.entries();
  const l = (s: (typeof stats)[number]) => `aggregator="${label(s.provider)}",call="${label(s.kind)}"`;
  const help = (
    name: string,
    type: string,
    text: string,
  ) => [`# HELP ${name} ${text}`, `# TYPE ${name} ${type}`];
  const lines = [
    ...help(
      "gateway_aggregator_requests_total",
      "counter",
      "Calls this process made to the live aggregator.",
    ),
    ...stats.map((s) => `gateway_aggregator_requests_total{${l(s)}} ${s.requests}`),
    ...help(
      "gateway_aggregator_failures_total",
      "counter",
      "Calls that got no usable answer (refused, timed out, HTTP 5xx or 429, not JSON).",
    ),
    ...stats.map((s) => `gateway_aggregator_failures_total{${l(s)}} ${s.failures}`),
    ...help(
      "gateway_aggregator_request_duration_seconds",
      "histogram",
      "Latency of calls to the aggregator.",
    ),
  ];
  for (const s of stats) {
    LATENCY_BUCKETS.forEach((bound, i) => {
      lines.push(`gateway_aggregator_request_duration_seconds_bucket{${l(s)},le="${bound}"} ${s.buckets[i]}`);
    });
    lines.push(`gateway_aggregator_request_duration_seconds_bucket{${l(s)},le="+Inf"} ${s.requests}`);
    lines.push(`gateway_aggregator_request_duration_seconds_sum{${l(s)}} ${s.secondsSum.toFixed(6)}`);
    lines.push(`gateway_aggregator_request_duration_seconds_count{${l(s)}} ${s.requests}`);
  }
  lines.push(
    ...help(
      "gateway_aggregator_last_success_timestamp_seconds",
      "gauge",
      "When a call of this kind last got a usable answer (Unix seconds).",
    ),
    ...stats.filter((s) => s.lastSuccessAt !== null).map((s) =>
      `gateway_aggregator_last_success_timestamp_seconds{${l(s)}} ${Math.floor(s.lastSuccessAt! / 1000)}`
    ),
  );
  const health = await aggregatorHealth(deps);
  lines.push(
    ...help(
      "gateway_aggregator_up",
      "gauge",
      "0 when the aggregator's most recent call got no usable answer.",
    ),
    ...health.map((h) =>
      `gateway_aggregator_up{aggregator="${label(h.name)}"} ${h.status === "unreachable" ? 0 : 1}`
    ),
    ...help(
      "gateway_aggregator_held_statuses",
      "gauge",
      "Statuses the gateway does not know, held for an operator.",
    ),
    ...health.filter((h) => h.heldStatuses !== null).map((h) =>
      `gateway_aggregator_held_statuses{aggregator="${label(h.name)}"} ${h.heldStatuses}`
    ),
  );
  return lines;
}
