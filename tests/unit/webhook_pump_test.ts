// The pump keeps receivers apart: one that hangs holds a few workers and no more, and a merchant whose
// endpoint is dead, with a backlog larger than all the workers, never delays another merchant's
// deliveries. Deliveries are handed over as the queue listener does (jobs/webhook_delivery.ts).
import { emitEvent } from "../../domain/webhooks/events.ts";
import { PER_ENDPOINT_IN_FLIGHT } from "../../domain/webhooks/delivery.ts";
import { deliveryPump, handleWebhookDeliver } from "../../jobs/webhook_delivery.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";

/** A receiver that answers at once, or (hanging) only once released; it notes the events it got. */
function receiver(mode: "fast" | "hanging") {
  const events: string[] = [];
  let open = 0;
  let maxOpen = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => release = r);
  let allArrived: () => void = () => {};
  let expected = Infinity;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    events.push(req.headers.get("service-event-id")!);
    await req.arrayBuffer();
    if (events.length >= expected) allArrived();
    if (mode === "hanging") await released;
    open--;
    return new Response("ok");
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hooks`,
    events,
    maxOpen: () => maxOpen,
    /** Resolves when `n` requests have arrived. */
    arrived(n: number) {
      expected = n;
      return events.length >= n ? Promise.resolve() : new Promise<void>((r) => allArrived = r);
    },
    release,
    async close() {
      release();
      await server.shutdown();
    },
  };
}

async function merchantWithEndpoint(gw: TestGateway, name: string, url: string) {
  const merchant = await gw.createMerchant(name);
  const res = await gw.request("POST", "/v1/webhooks/endpoints", {
    key: merchant.keys.liveSecret,
    body: { url, events: ["payin.confirmed"] },
  });
  assertEquals(res.status, 201, res.text);
  return { merchantId: merchant.merchantId, isSandbox: false };
}

async function emitMany(gw: TestGateway, owner: { merchantId: string; isSandbox: boolean }, n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const ev = await emitEvent(gw.deps, {
      ...owner,
      type: "payin.confirmed",
      data: { transactionId: `pay_${i}` },
    });
    ids.push(...ev.deliveryIds);
  }
  return ids;
}

async function statusesOf(gw: TestGateway, ids: string[]) {
  const rows = await gw.db.query<{ status: string; attempt_count: number }>(
    "SELECT status, attempt_count FROM webhook_deliveries WHERE id = ANY ($1::text[])",
    [ids],
  );
  return new Set(rows.map((r) => `${r.status}/${r.attempt_count}`));
}

for (
  const [title, slowCount] of [
    ["a receiver that hangs holds a few workers; another's deliveries all arrive meanwhile", 40],
    ["a dead endpoint's backlog larger than every worker never delays another merchant", 300],
  ] as const
) {
  Deno.test(`webhook pump: ${title}`, async () => {
    // The timeout is long on purpose: nothing here may wait for it.
    const gw = await startTestGateway({ env: { WEBHOOK_TIMEOUT_MS: "60000" } });
    const slow = receiver("hanging");
    const fast = receiver("fast");
    try {
      const slowShop = await merchantWithEndpoint(gw, "Slow Shop", slow.url);
      const fastShop = await merchantWithEndpoint(gw, "Fast Shop", fast.url);
      // The slow merchant's deliveries are older and handed over first: they are first in every queue.
      const slowIds = await emitMany(gw, slowShop, slowCount);
      const fastIds = await emitMany(gw, fastShop, 30);
      for (const deliveryId of [...slowIds, ...fastIds]) {
        await handleWebhookDeliver({ type: "webhook.deliver", deliveryId }, gw.deps);
      }
      await fast.arrived(fastIds.length);
      // Every fast delivery arrived while the hanging receiver still held its first requests.
      assertEquals(new Set(fast.events).size, fastIds.length);
      assert(slow.maxOpen() <= PER_ENDPOINT_IN_FLIGHT, `hanging receiver held ${slow.maxOpen()} requests`);
      assert(slow.events.length <= PER_ENDPOINT_IN_FLIGHT);
      assertEquals(await statusesOf(gw, slowIds), new Set(["PENDING/0"]));

      // Once it answers, its deliveries go through too, each once.
      slow.release();
      await deliveryPump(gw.deps).idle();
      assertEquals(await statusesOf(gw, [...slowIds, ...fastIds]), new Set(["SUCCEEDED/1"]));
      assertEquals(slow.events.length, slowIds.length);
      assertEquals(fast.events.length, fastIds.length);
    } finally {
      deliveryPump(gw.deps).close();
      await slow.close();
      await fast.close();
      await gw.close();
    }
  });
}
