// README's walk-throughs through a client generated from /v1/openapi.json: `createClient<paths>()` of
// openapi-fetch over the types openapi-typescript made (tests/generated/gateway_api.ts), and nothing else.
// The gateway runs in-process as `deno task start` runs it (development profile, the devnet, the card and
// mobile money simulators, no fiat destination cooldown, the hot wallet funded by the devnet's faucet);
// `tick()` is one block of its life: 3 s on the server's clock (the devnet's pace under `deno task start`),
// a block mined, the scanner, the simulators, the queue messages that fell due, and at each new minute the
// crons jobs/mod.ts registers.
// Every request the client sends and every answer it gets is checked against the served document.
import createClient, { type Middleware } from "openapi-fetch";
import { scanChain } from "../domain/payins/chain_scanner.ts";
import { manualClock } from "../domain/clock.ts";
import type { JobMessage } from "../domain/deps.ts";
import { fundDevelopmentHotWallet } from "../domain/treasury/dev_funding.ts";
import { CRONS, dispatchJob } from "../jobs/mod.ts";
import { deliveryPump } from "../jobs/webhook_delivery.ts";
import type { paths } from "./generated/gateway_api.ts";
import { contractFor } from "./contract.ts";
import { ADMIN_TOKEN, startTestGateway } from "./helpers.ts";

/** The devnet's block interval under `deno task start`: one tick of the walk-through's server. */
const BLOCK_MS = 3000;

/** The crons jobs/mod.ts registers every minute, but the scanner's watchdog: the scanner runs every tick. */
const MINUTE_CRONS = CRONS.filter(([name, schedule]) =>
  schedule === "* * * * *" && name !== "tron-scan-watchdog"
)
  .map(([, , job]) => job);

/** README's host: customer links and callbacks name it, and the client calls it. */
export const BASE_URL = "http://localhost:8000";

/** The data of an answer that has `status`, or an error naming what came instead. */
export function ok<D>(result: { data?: D; error?: unknown; response: Response }, status: number): D {
  if (result.response.status !== status || result.data === undefined) {
    throw new Error(
      `answered ${result.response.status} where ${status} was expected: ${
        JSON.stringify(result.error ?? result.data)
      }`,
    );
  }
  return result.data;
}

/**
 * openapi-fetch's bodySerializer for a multipart/form-data body: the FormData `curl -F file=@...` sends,
 * with the body's `file` (a Blob in the generated types) as the part `file`.
 */
export function filePart<B>(body: B): FormData {
  const form = new FormData();
  if (typeof body === "object" && body !== null && "file" in body && body.file instanceof Blob) {
    form.append("file", body.file, body.file instanceof File ? body.file.name : "file");
  }
  return form;
}

/** Starts a development gateway with one approved merchant made through the operator API (README). */
export async function startWalkthrough() {
  const clock = manualClock(new Date());
  // One time for the server and its chain: a signed transfer expires on the devnet when the sender thinks.
  const gw = await startTestGateway({
    clock,
    devnetNow: () => clock.now().getTime(),
    env: { FIAT_DESTINATION_COOLDOWN_SECONDS: "0" },
  });
  try {
    await fundDevelopmentHotWallet(gw.deps, gw.devnet);
    const contract = contractFor(await (await gw.app.request("/v1/openapi.json")).text());
    const checked: Middleware = {
      async onRequest({ request, schemaPath }) {
        if (request.headers.get("content-type")?.startsWith("application/json")) {
          const body: unknown = JSON.parse(await request.clone().text());
          const problem = contract.checkRequest(request.method, schemaPath, body);
          if (problem) throw new Error(`the typed client sent a request off the document: ${problem}`);
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
      await operator.POST("/admin/api/merchants", {
        body: { name: "Boutique Ouaga", kybStatus: "APPROVED" },
      }),
      201,
    );
    const keys = created.data.keys;
    // The operator approved KYB; the merchant signs the agreement it reads, as README's walk-through does.
    const signer = client({ "x-api-key": keys.liveSecret });
    const agreement = ok(await signer.GET("/v1/merchant/agreement"), 200).data.current;
    ok(
      await signer.POST("/v1/merchant/agreement/sign", {
        body: { version: agreement.version, sha256: agreement.sha256, signedBy: "Awa Ouedraogo, manager" },
      }),
      200,
    );

    // The KV queue: each message is due `delayMs` after it was enqueued, on the server's clock.
    const queued = new Map<JobMessage, number>(); // message -> when it falls due
    const runDueMessages = async () => {
      for (let round = 0; round < 20; round++) {
        for (const { message, delayMs } of gw.enqueued.splice(0)) {
          queued.set(message, clock.now().getTime() + delayMs);
        }
        const due = [...queued].filter(([, dueAt]) => dueAt <= clock.now().getTime()).map(([m]) => m);
        if (due.length === 0) return;
        for (const message of due) queued.delete(message);
        for (const message of due) {
          if (message.type !== "tron.scan") await dispatchJob(message, gw.deps); // the scanner: below
        }
        await deliveryPump(gw.deps).idle(); // the webhook attempts it started have been made
      }
    };
    let minute = Math.floor(clock.now().getTime() / 60_000);
    /** One block of the running server's life. */
    const tick = async () => {
      clock.advance(BLOCK_MS);
      gw.devnet.mine(1);
      await scanChain(gw.deps);
      await gw.simulators.flush();
      await runDueMessages();
      if (Math.floor(clock.now().getTime() / 60_000) !== minute) {
        minute = Math.floor(clock.now().getTime() / 60_000);
        for (const cron of MINUTE_CRONS) await cron(gw.deps);
        await runDueMessages();
      }
    };
    /**
     * README's `until ...; do sleep 1; done`: asks `done` once a block (3 s of the server's clock, so the
     * polling stays within the key's 100 requests a minute), at most `blocks` times.
     */
    const until = async (what: string, done: () => Promise<boolean>, blocks = 60) => {
      for (let i = 0; i < blocks; i++) {
        if (await done()) return;
        await tick();
      }
      if (!(await done())) throw new Error(`still not ${what} after ${blocks} blocks`);
    };
    /** A plain HTTP call to what the document does not describe (the devnet, the simulators' pages). */
    const plain = async (method: string, path: string, body?: string, contentType = "application/json") => {
      const res = await gw.app.request(path, {
        method,
        body,
        headers: body === undefined ? {} : { "content-type": contentType },
      });
      const text = await res.text();
      if (res.status >= 400) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
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
      /** The server's clock: what a receiver compares a webhook's timestamp with. */
      now: () => clock.now(),
      /** Time passes (say until a subscription's next period) with the server idle; then one block. */
      async wait(ms: number) {
        clock.advance(ms);
        await tick();
      },
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
