// What every domain function receives. Built once in main.ts (or by tests) and passed down.
import type { Config } from "../config.ts";
import type { Db } from "../db/mod.ts";
import type { Clock } from "./clock.ts";
import type { SecretBox } from "./crypto.ts";
import type { Logger } from "./log.ts";
import type { TronClient } from "../rails/tron/client.ts";
import type { TronResources } from "../rails/tron/resources.ts";
import type { NodeHealth } from "../rails/tron/node_pool.ts";
import type { CardProvider, MomoDisbursementProvider, MomoProvider } from "../rails/fiat/provider.ts";
import type { AggregatorCallStats } from "../rails/fiat/aggregators/call_stats.ts";
import type { KeyCache } from "./keys/key_cache.ts";
import type { RateSource } from "../rails/fx/mod.ts";
import type { MailTransport } from "../rails/mail/mod.ts";

/** Messages on the single KV queue; `jobs/mod.ts` dispatches on `type`. */
export type JobMessage =
  | { type: "webhook.deliver"; deliveryId: string }
  | { type: "tron.scan"; loopId: string }
  | { type: "outbound.send"; outboundId: string }
  | { type: "treasury.sweep"; urgent?: boolean }
  | { type: "bulk.advance"; batchId: string }
  | { type: "fiat.disburse"; disbursementId: string }
  | { type: "mail.send"; mailId: string }
  | { type: "export.run"; jobId: string }
  | { type: "subscription.renew"; subscriptionId: string; periodIndex: number }
  | { type: "refund.send"; refundId: string };

export type Queue = { enqueue(message: JobMessage, options?: { delayMs?: number }): Promise<void> };

export type Deps = {
  db: Db;
  kv: Deno.Kv;
  clock: Clock;
  config: Config;
  secrets: SecretBox;
  queue: Queue;
  log: Logger;
  /** Outgoing HTTP (webhook deliveries); injectable so tests can observe or fail it. */
  fetch: typeof fetch;
  /** The TRON full node's HTTP API (the embedded devnet in development). */
  tron: TronClient;
  /** Staking, energy and broadcast of locally signed transactions (sweeps). */
  tronResources: TronResources;
  /**
   * The node pool behind `tron` (absent with the embedded devnet): per-node health for /metrics, /health,
   * and a probe on demand, which the scanner asks for before it believes a reorganisation.
   */
  tronNodes?: { health(): NodeHealth[]; probe(): Promise<{ disagreement: boolean }> };
  /**
   * Card acquirers and mobile money aggregators. Sandbox pay-ins only ever reach the simulators; live ones
   * the configured providers, absent in production until a real one is plugged in.
   */
  fiat: { sandbox: FiatProviders; live?: FiatProviders };
  /**
   * The rate source (rails/fx): USDT/EUR with its observation time; XOF comes from the peg. Read it through
   * domain/fx/rates.ts (`currentRate`, `convertAmount`), which applies RATE_STALE / RATE_UNAVAILABLE.
   */
  rates: RateSource;
  /** This process's API key lookups (domain/auth.ts); tests give a second one to play another process. */
  keyCache?: KeyCache;
  /** The mail seam (rails/mail); absent: the development outbox (nothing leaves the machine). */
  mail?: MailTransport;
};

export type FiatProviders = {
  card: CardProvider;
  momo: MomoProvider;
  momoPayout: MomoDisbursementProvider;
  /** A live aggregator's call counts (rails/fiat/aggregators/call_stats.ts), read by /health and /metrics. */
  calls?: AggregatorCallStats;
};

export function kvQueue(kv: Deno.Kv): Queue {
  return {
    async enqueue(message, options = {}) {
      await kv.enqueue(message, { delay: options.delayMs ?? 0 });
    },
  };
}
