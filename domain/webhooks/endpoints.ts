// Webhook endpoints of a merchant in one mode (an endpoint made with a sandbox key gets sandbox events
// only), their secrets (shown on create and rotate, encrypted at rest), test deliveries and the delivery
// log. Sending lives in domain/webhooks/delivery.ts.
import { PLAN_DEFAULTS } from "../../config.ts";
import { planLimitsOf } from "../limits/plan.ts";
import * as eventsDb from "../../db/events.ts";
import * as endpointsDb from "../../db/webhooks.ts";
import type { EndpointRow, Owner } from "../../db/webhooks.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { type EventType, sampleEventData, writeEvent } from "./events.ts";
import { newId, randomToken } from "../ids.ts";
import { assertWebhookUrlAllowed, type Resolver } from "./urls.ts";

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_RETRY_INTERVAL_SECONDS = 60;
/**
 * The configured default plan limit per merchant and mode (PLAN_WEBHOOK_ENDPOINTS); an operator may set a
 * merchant's own (`webhookEndpoints` of its plan limits). The specification names LIMIT_EXCEEDED_WEBHOOKS
 * but not the number.
 */
export const MAX_ENDPOINTS = Number(PLAN_DEFAULTS.webhookEndpoints);

export type RetrySettings = {
  maxRetries?: number;
  retryBackoff?: "EXPONENTIAL";
  retryIntervalSeconds?: number;
};

export type WebhookEndpoint = {
  id: string;
  url: string;
  events: string[];
  maxRetries: number;
  retryBackoff: "EXPONENTIAL";
  retryIntervalSeconds: number;
  status: "ACTIVE" | "DISABLED";
  consecutiveFailures: number;
  isSandbox: boolean;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

type UrlDeps = Pick<Deps, "config"> & { resolveDns?: Resolver };

export function endpointView(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    maxRetries: row.max_retries,
    retryBackoff: row.retry_backoff,
    retryIntervalSeconds: row.retry_interval_seconds,
    status: row.status,
    consecutiveFailures: row.consecutive_failures,
    isSandbox: row.is_sandbox,
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function newSecret(): string {
  return `whs_${randomToken(32)}`;
}

async function mustFind(deps: Pick<Deps, "db">, owner: Owner, id: string): Promise<EndpointRow> {
  const row = await endpointsDb.findEndpoint(deps.db, owner, id);
  if (!row) throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  return row;
}

export async function createWebhookEndpoint(
  deps: Pick<Deps, "db" | "clock" | "secrets"> & UrlDeps,
  input: Owner & { url: string; events: EventType[] } & RetrySettings,
): Promise<WebhookEndpoint & { secret: string }> {
  await assertWebhookUrlAllowed(deps.config, input.url, deps.resolveDns);
  const secret = newSecret();
  const secretEncrypted = await deps.secrets.encrypt(secret);
  // Count and insert under the merchant's lock: 50 concurrent creations at the last slot make one endpoint.
  const row = await deps.db.tx(async (tx) => {
    await endpointsDb.lockMerchantEndpoints(tx, input.merchantId);
    const max = Number((await planLimitsOf({ ...deps, db: tx }, input.merchantId)).webhookEndpoints);
    if (await endpointsDb.countEndpoints(tx, input) >= max) {
      throw new AppError("LIMIT_EXCEEDED_WEBHOOKS", `At most ${max} webhook endpoints per mode`);
    }
    return await endpointsDb.insertEndpoint(tx, {
      id: newId("whe", deps.clock.now().getTime()),
      merchantId: input.merchantId,
      isSandbox: input.isSandbox,
      url: input.url,
      events: [...new Set(input.events)],
      maxRetries: input.maxRetries ?? DEFAULT_MAX_RETRIES,
      retryBackoff: input.retryBackoff ?? "EXPONENTIAL",
      retryIntervalSeconds: input.retryIntervalSeconds ?? DEFAULT_RETRY_INTERVAL_SECONDS,
      secretEncrypted,
      now: deps.clock.now(),
    });
  });
  return { ...endpointView(row), secret };
}

export async function listWebhookEndpoints(
  deps: Pick<Deps, "db">,
  input: Owner & { page: number; limit: number },
): Promise<{ items: WebhookEndpoint[]; total: number }> {
  const { rows, total } = await endpointsDb.listEndpoints(deps.db, input, {
    limit: input.limit,
    offset: (input.page - 1) * input.limit,
  });
  return { items: rows.map(endpointView), total };
}

export async function getWebhookEndpoint(
  deps: Pick<Deps, "db">,
  input: Owner & { id: string },
): Promise<WebhookEndpoint> {
  return endpointView(await mustFind(deps, input, input.id));
}

export async function updateWebhookEndpoint(
  deps: Pick<Deps, "db" | "clock"> & UrlDeps,
  input: Owner & { id: string; url?: string; events?: EventType[] } & RetrySettings,
): Promise<WebhookEndpoint> {
  await mustFind(deps, input, input.id);
  if (input.url !== undefined) await assertWebhookUrlAllowed(deps.config, input.url, deps.resolveDns);
  const row = await endpointsDb.updateEndpoint(deps.db, input, input.id, {
    url: input.url,
    events: input.events ? [...new Set(input.events)] : undefined,
    maxRetries: input.maxRetries,
    retryBackoff: input.retryBackoff,
    retryIntervalSeconds: input.retryIntervalSeconds,
    now: deps.clock.now(),
  });
  if (!row) throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  return endpointView(row);
}

/** Deletes the endpoint with its deliveries: nothing more is sent to it, even a retry in flight. */
export async function deleteWebhookEndpoint(
  deps: Pick<Deps, "db">,
  input: Owner & { id: string },
): Promise<{ id: string; deleted: true }> {
  if (!await endpointsDb.deleteEndpoint(deps.db, input, input.id)) {
    throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  }
  return { id: input.id, deleted: true };
}

/** The old secret stops working at once: every attempt signs with the secret current when it is sent. */
export async function rotateWebhookSecret(
  deps: Pick<Deps, "db" | "clock" | "secrets">,
  input: Owner & { id: string },
): Promise<WebhookEndpoint & { secret: string }> {
  const secret = newSecret();
  const row = await endpointsDb.updateEndpoint(deps.db, input, input.id, {
    secretEncrypted: await deps.secrets.encrypt(secret),
    now: deps.clock.now(),
  });
  if (!row) throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  return { ...endpointView(row), secret };
}

/**
 * DISABLED -> ACTIVE with the failure count reset (idempotent on an ACTIVE endpoint). Deliveries left
 * pending when it was disabled are queued again.
 */
export async function reactivateWebhookEndpoint(
  deps: Pick<Deps, "db" | "clock" | "queue">,
  input: Owner & { id: string },
): Promise<WebhookEndpoint> {
  const now = deps.clock.now();
  const row = await endpointsDb.reactivateEndpoint(deps.db, input, input.id, now);
  if (!row) throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  for (const deliveryId of await eventsDb.listDueDeliveryIds(deps.db, now, 1000, row.id)) {
    await deps.queue.enqueue({ type: "webhook.deliver", deliveryId });
  }
  return endpointView(row);
}

/** A test event (is_test) with a sample payload, delivered to this one endpoint whatever it subscribed. */
export async function sendTestWebhook(
  deps: Pick<Deps, "db" | "clock" | "queue">,
  input: Owner & { endpointId: string; eventType: EventType },
): Promise<{ message: string; deliveryId: string; eventId: string }> {
  const endpoint = await mustFind(deps, input, input.endpointId);
  if (endpoint.status !== "ACTIVE") {
    throw new AppError("INVALID_STATE", "The endpoint is DISABLED; reactivate it before sending a test");
  }
  const emitted = await writeEvent(deps, {
    merchantId: input.merchantId,
    isSandbox: input.isSandbox,
    type: input.eventType,
    data: sampleEventData(input.eventType, deps.clock.now()),
    isTest: true,
    onlyEndpointId: endpoint.id,
  });
  return {
    message: `Test ${input.eventType} event queued for delivery to ${endpoint.url}`,
    deliveryId: emitted.deliveryIds[0],
    eventId: emitted.eventId,
  };
}
