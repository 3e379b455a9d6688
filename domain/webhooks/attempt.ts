// One attempt of a claimed delivery (sign, vet, POST to the pinned address) and the recording of many
// attempts' outcomes in one transaction. deliverWebhook (one delivery) and the pump (many, concurrently)
// both go through these two steps, so a delivery behaves the same whichever path sent it.
import * as eventsDb from "../../db/events.ts";
import type { AttemptOutcome, ClaimedDelivery } from "../../db/events.ts";
import type { Db } from "../../db/mod.ts";
import * as endpointsDb from "../../db/webhooks.ts";
import { toHex } from "../crypto.ts";
import type { Deps } from "../deps.ts";
import { defaultTransport, type WebhookTransport } from "./http.ts";
import { type Resolver, vetConnectTarget } from "./urls.ts";

export const LEASE_MS = 60_000;
/** ARCHITECTURE.md: an endpoint is disabled after this many consecutive exhausted deliveries. */
export const DISABLE_AFTER_EXHAUSTED = 5;
const USER_AGENT = "PaymentGateway-Webhooks/1.0";

/**
 * What the merchant sees of a refused or failed connection: one fixed text each, so the delivery log is
 * no port scanner (refused, reset and TLS failure read the same). A name that gives no address and one
 * that gives only refused addresses read the same too, so the record says nothing of what the gateway's
 * resolver knows of inside names; a merchant whose DNS is not live yet still reads that it did not
 * resolve. The precise cause goes to the operator's log.
 */
export const REFUSED_ERROR = "destination refused by the webhook URL policy";
export const UNRESOLVED_ERROR = "host name did not resolve to an address webhooks may be sent to";
export const CONNECTION_ERROR = "could not connect to the endpoint or send the request";

export type DeliveryDeps = Pick<Deps, "db" | "clock" | "config" | "secrets" | "queue" | "log"> & {
  /** DNS for the URL policy; the system resolver unless a test injects one. */
  resolveDns?: Resolver;
  /** The pinned HTTP client (domain/webhooks/http.ts) unless a test injects one. */
  transport?: WebhookTransport;
};

export type DeliveryResult =
  | { outcome: "not_claimed" }
  | { outcome: "succeeded"; attemptNo: number; statusCode: number }
  | { outcome: "retrying"; attemptNo: number; statusCode: number | null; error: string; nextAttemptAt: Date }
  | {
    outcome: "failed";
    attemptNo: number;
    statusCode: number | null;
    error: string;
    endpointDisabled: boolean;
  }
  /** Sent, but the lease ran out first and another worker took over: its record stands, not ours. */
  | { outcome: "lease_lost"; attemptNo: number };

/** An attempt made, not yet recorded. */
export type Attempt = AttemptOutcome & { endpointId: string };

// Imported HMAC keys by secret: at volume most deliveries go to a few endpoints, and importing a key
// costs about as much as signing with it. Bounded; cleared whole when full.
const signingKeys = new Map<string, Promise<CryptoKey>>();
const encoder = new TextEncoder();

function signingKey(secret: string): Promise<CryptoKey> {
  let key = signingKeys.get(secret);
  if (!key) {
    if (signingKeys.size >= 1000) signingKeys.clear();
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    signingKeys.set(secret, key);
  }
  return key;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the specification's Signature section. */
export async function signatureHeader(secret: string, body: string, at: Date): Promise<string> {
  const t = Math.floor(at.getTime() / 1000);
  const mac = await crypto.subtle.sign("HMAC", await signingKey(secret), encoder.encode(`${t}.${body}`));
  return `t=${t},v1=${toHex(mac)}`;
}

/** Exponential backoff from the endpoint's interval: attempt 1 failed -> 1x, 2 -> 2x, 3 -> 4x... */
export function retryDelayMs(retryIntervalSeconds: number, attemptNo: number): number {
  return retryIntervalSeconds * 1000 * 2 ** (attemptNo - 1);
}

/** The lease a claim takes: long enough for the slowest attempt to finish and be recorded. */
export function leaseUntil(deps: Pick<Deps, "config">, now: Date): Date {
  return new Date(now.getTime() + Math.max(LEASE_MS, deps.config.webhookTimeoutMs + 15_000));
}

async function post(
  deps: DeliveryDeps,
  d: ClaimedDelivery,
  secret: string,
): Promise<{ statusCode: number | null; error: string | null }> {
  const vetted = await vetConnectTarget(deps.config, d.url, deps.resolveDns);
  if ("problem" in vetted) {
    if (vetted.cause === "unresolved") {
      deps.log.warn("webhook host name did not resolve", { deliveryId: d.id, host: new URL(d.url).hostname });
    } else deps.log.warn("webhook destination refused", { deliveryId: d.id, reason: vetted.problem });
    return { statusCode: null, error: vetted.cause === "url" ? REFUSED_ERROR : UNRESOLVED_ERROR };
  }
  const timeoutMs = deps.config.webhookTimeoutMs;
  try {
    const { status } = await (deps.transport ?? defaultTransport)(vetted.target, {
      headers: {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Service-Signature": await signatureHeader(secret, d.body, deps.clock.now()),
        "Service-Event-Id": d.event_id,
        "Service-Delivery-Id": d.id,
      },
      body: d.body,
      timeoutMs,
    });
    if (status >= 200 && status < 300) return { statusCode: status, error: null };
    const redirect = status >= 300 && status < 400;
    return {
      statusCode: status,
      error: redirect ? `redirect not followed (HTTP ${status})` : `HTTP ${status}`,
    };
  } catch (err) {
    const name = err instanceof Error || err instanceof DOMException ? err.name : "";
    if (name === "TimeoutError" || name === "AbortError") {
      return { statusCode: null, error: `no response within ${timeoutMs} ms` };
    }
    deps.log.warn("webhook connection failed", { deliveryId: d.id, cause: String(err).slice(0, 300) });
    return { statusCode: null, error: CONNECTION_ERROR };
  }
}

/**
 * Sends one claimed delivery. `secrets` caches decrypted endpoint secrets for a batch (many deliveries
 * share an endpoint). An undecryptable secret (APP_SECRET changed) is a failed attempt, not a throw.
 */
export async function attemptDelivery(
  deps: DeliveryDeps,
  d: ClaimedDelivery,
  lease: Date,
  secrets: Map<string, Promise<string | null>> = new Map(),
): Promise<Attempt> {
  const attemptNo = d.attempt_count + 1;
  const startedAt = deps.clock.now();
  const t0 = performance.now();
  let secret = secrets.get(d.secret_encrypted);
  if (!secret) {
    secret = deps.secrets.decrypt(d.secret_encrypted).catch(() => null);
    secrets.set(d.secret_encrypted, secret);
  }
  const plain = await secret;
  const { statusCode, error } = plain === null
    ? { statusCode: null, error: "endpoint secret cannot be decrypted; rotate the secret" }
    : await post(deps, d, plain);
  const now = deps.clock.now();
  const exhausted = error !== null && attemptNo >= 1 + d.max_retries;
  return {
    id: d.id,
    endpointId: d.endpoint_id,
    leaseUntil: lease,
    attemptNo,
    status: error === null ? "SUCCEEDED" : exhausted ? "FAILED" : "PENDING",
    nextAttemptAt: error === null || exhausted
      ? null
      : new Date(now.getTime() + retryDelayMs(d.retry_interval_seconds, attemptNo)),
    statusCode,
    error,
    startedAt,
    durationMs: Math.round(performance.now() - t0),
    now,
  };
}

/**
 * Records attempts in one transaction: the deliveries (under their leases), their attempt rows, the
 * endpoints' failure runs; retries are queued once it commits. Returns each attempt's result.
 */
export async function recordAttempts(
  deps: Pick<Deps, "db" | "queue" | "log">,
  attempts: Attempt[],
): Promise<Map<string, DeliveryResult>> {
  const results = new Map<string, DeliveryResult>();
  const write = async (db: Db) => {
    results.clear(); // a retried transaction starts over
    const recorded = await eventsDb.recordAttemptOutcomes(db, attempts);
    for (const a of attempts) {
      if (!recorded.has(a.id)) {
        results.set(a.id, { outcome: "lease_lost", attemptNo: a.attemptNo });
      } else if (a.status === "SUCCEEDED") {
        results.set(a.id, { outcome: "succeeded", attemptNo: a.attemptNo, statusCode: a.statusCode! });
      } else if (a.status === "FAILED") {
        // Rare, and each must count: one atomic increment per exhausted delivery.
        const ep = await endpointsDb.recordEndpointExhausted(
          db,
          a.endpointId,
          DISABLE_AFTER_EXHAUSTED,
          a.now,
        );
        results.set(a.id, {
          outcome: "failed",
          attemptNo: a.attemptNo,
          statusCode: a.statusCode,
          error: a.error!,
          endpointDisabled: ep?.status === "DISABLED",
        });
      } else {
        const delayMs = a.nextAttemptAt!.getTime() - a.now.getTime();
        db.afterCommit(() => deps.queue.enqueue({ type: "webhook.deliver", deliveryId: a.id }, { delayMs }));
        results.set(a.id, {
          outcome: "retrying",
          attemptNo: a.attemptNo,
          statusCode: a.statusCode,
          error: a.error!,
          nextAttemptAt: a.nextAttemptAt!,
        });
      }
    }
  };
  // The common case (no delivery exhausted) is one statement, atomic without BEGIN and COMMIT.
  if (attempts.some((a) => a.status === "FAILED")) await deps.db.tx(write);
  else await write(deps.db);
  for (const a of attempts) logAttempt(deps, a, results.get(a.id)!);
  return results;
}

function logAttempt(deps: Pick<Deps, "log">, a: Attempt, result: DeliveryResult): void {
  const fields = {
    deliveryId: a.id,
    endpointId: a.endpointId,
    attemptNo: a.attemptNo,
    statusCode: a.statusCode,
    durationMs: a.durationMs,
  };
  // Successes are the bulk at volume and are in the delivery log already: debug, not info.
  if (result.outcome === "succeeded") deps.log.debug("webhook delivered", fields);
  else if (result.outcome === "lease_lost") deps.log.warn("webhook lease lost; outcome not recorded", fields);
  else deps.log.warn("webhook attempt failed", { ...fields, error: a.error, outcome: result.outcome });
  if (result.outcome === "failed" && result.endpointDisabled) {
    deps.log.warn("webhook endpoint disabled after consecutive exhausted deliveries", {
      endpointId: a.endpointId,
    });
  }
}
