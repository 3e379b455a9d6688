// README's walk-throughs through a client generated from /v1/openapi.json: `createClient<paths>()` of
// openapi-fetch over the types openapi-typescript made (tests/generated/gateway_api.ts), and nothing else.
// The gateway runs in-process as `deno task start` runs it (development profile, the devnet, the card and
// mobile money simulators, no fiat destination cooldown, the hot wallet funded by the devnet's faucet);
// `tick()` is one block of its life: a block mined, the scanner, the simulators, the queue and the crons.
// Every request the client sends and every answer it gets is checked against the served document.
import createClient, { type Middleware } from "openapi-fetch";
import { scanChain } from "../domain/chain_scanner.ts";
import { fundDevelopmentHotWallet } from "../domain/treasury/dev_funding.ts";
import { dispatchJob } from "../jobs/mod.ts";
import { handleBulkSweep } from "../jobs/bulk.ts";
import { handleDisbursementSweep } from "../jobs/fiat_out.ts";
import { handleFiatReconcile } from "../jobs/maintenance.ts";
import { handleOutboundSweep } from "../jobs/money_out.ts";
import { handleMailSweep, handleSubscriptionCron } from "../jobs/subscriptions.ts";
import { handleSweepCron } from "../jobs/treasury.ts";
import { deliveryPump } from "../jobs/webhook_delivery.ts";
import type { paths } from "./generated/gateway_api.ts";
import { contractFor } from "./contract.ts";
import { ADMIN_TOKEN, startTestGateway } from "./helpers.ts";

/** README's host: customer links and callbacks name it, and the client calls it. */
export const BASE_URL = "http://localhost:8000";

/** The data of an answer that has `status`, or an error naming what came instead. */
export function ok<D>(result: { data?: D; error?: unknown; response: Response }, status: number): D {
  if (result.response.status !== status || result.data === undefined) {
    throw new Error(
      `answered ${result.response.status} where ${status} was expected: ${JSON.stringify(result.error)}`,
    );
  }
  return result.data;
}

/** Starts a development gateway with one approved merchant made through the operator API (README). */
export async function startWalkthrough() {
  const gw = await startTestGateway({ env: { FIAT_DESTINATION_COOLDOWN_SECONDS: "0" } });
  try {
    await fundDevelopmentHotWallet(gw.deps, gw.devnet);
    const contract = contractFor(await (await gw.app.request("/v1/openapi.json")).text());
    const bodies = new WeakMap<Request, unknown>();
    const checked: Middleware = {
      async onRequest({ request, schemaPath }) {
        if (request.headers.get("content-type")?.startsWith("application/json")) {
          const body: unknown = JSON.parse(await request.clone().text());
          const problem = contract.checkRequest(request.method, schemaPath, body);
          if (problem) throw new Error(`the typed client sent a request off the document: ${problem}`);
          bodies.set(request, body);
        }
        return request;
      },
      async onResponse({ request, response }) {
        if (!response.headers.get("content-type")?.startsWith("application/json")) return response;
        const json: unknown = await response.clone().json();
        const problem = contract.checkResponse(request.method, request.url, response.status, json);
        if (problem) throw new Error(`The answer contradicts /v1/openapi.json: ${problem}`);
        return response;
      },
    };
    const client = (headers: Record<string, string>) => {
      const c = createClient<paths>({
        baseUrl: BASE_URL,
        fetch: (request) => Promise.resolve(gw.app.fetch(request)),
        headers,
      });
      c.use(checked);
      return c;
    };
    const operator = client({ authorization: `Bearer ${ADMIN_TOKEN}` });
    const created = ok(
      await operator.POST("/admin/api/merchants", { body: { name: "Boutique Ouaga", kybStatus: "APPROVED" } }),
      201,
    );
    const keys = created.data.keys;

    /** Runs the queue messages due now, as the KV listener does (a message that re-enqueues waits a tick). */
    const drainQueue = async () => {
      for (const { message } of gw.enqueued.splice(0)) {
        if (message.type !== "tron.scan") await dispatchJob(message, gw.deps);
      }
    };
    /** One block of the running server's life. */
    const tick = async () => {
      gw.devnet.mine(1);
      await scanChain(gw.deps);
      await gw.simulators.flush();
      await drainQueue();
      await handleSweepCron(gw.deps);
      await handleOutboundSweep(gw.deps);
      await handleBulkSweep(gw.deps);
      await handleDisbursementSweep(gw.deps);
      await handleFiatReconcile(gw.deps);
      await handleSubscriptionCron(gw.deps);
      await handleMailSweep(gw.deps);
      await drainQueue();
      await deliveryPump(gw.deps).idle(); // the webhook attempts of this block have been made
    };
    /**
     * README's `until ...; do sleep ...; done`: asks `done` once every `blocks` blocks, at most `polls`
     * times. A real server lets seconds pass between polls; here blocks do, so waits on many confirmations
     * poll every few blocks, as README's loops do, and stay within the key's 100 requests a minute.
     */
    const until = async (what: string, done: () => Promise<boolean>, { blocks = 1, polls = 60 } = {}) => {
      for (let i = 0; i < polls; i++) {
        if (await done()) return;
        for (let b = 0; b < blocks; b++) await tick();
      }
      if (!(await done())) throw new Error(`still not ${what} after ${polls * blocks} blocks`);
    };
    /** A plain HTTP call to what the document does not describe (the devnet, the simulators' pages). */
    const plain = async (method: string, path: string, body?: string, contentType = "application/json") => {
      const res = await gw.app.request(path, {
        method,
        body,
        headers: body === undefined ? {} : { "content-type": contentType },
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
      return text;
    };

    return {
      gw,
      keys,
      merchantId: created.data.merchantId,
      operator,
      live: client({ "x-api-key": keys.liveSecret }),
      sandbox: client({ "x-api-key": keys.testSecret }),
      /** The customer's browser or a shop front: no key. */
      anonymous: client({}),
      tick,
      until,
      plain,
      close: () => gw.close(),
    };
  } catch (err) {
    await gw.close();
    throw err;
  }
}

export type Walkthrough = Awaited<ReturnType<typeof startWalkthrough>>;

/** Runs a walk-through against a fresh gateway and always closes it. */
export function withWalkthrough(fn: (w: Walkthrough) => Promise<void>) {
  return async () => {
    const w = await startWalkthrough();
    try {
      await fn(w);
    } finally {
      await w.close();
    }
  };
}
