// The SSRF guard holds at connect time: a delivery reaches the address the URL policy vetted and no other
// (DNS rebinding), with the URL's Host and TLS name intact, over real loopback sockets for http and https;
// and what the merchant is shown of a refused or failed connection is generic.
import type { Config } from "../../config.ts";
import {
  CONNECTION_ERROR,
  deliverWebhook,
  type DeliveryDeps,
  UNRESOLVED_ERROR,
} from "../../domain/webhooks/delivery.ts";
import { pinnedTransport, type WebhookTransport } from "../../domain/webhooks/http.ts";
import { createWebhookEndpoint, sendTestWebhook } from "../../domain/webhooks/endpoints.ts";
import type { Resolver } from "../../domain/webhooks/urls.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { LEAF_CERT_PEM, LEAF_KEY_PEM, LEAF_NAME, TEST_CA_PEM } from "./webhook_tls_fixture.ts";

type Seen = { host: string | null; url: string; body: string };

function loopbackReceiver(tls?: { cert: string; key: string }) {
  const seen: Seen[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {}, ...tls }, async (req) => {
    seen.push({ host: req.headers.get("host"), url: req.url, body: await req.text() });
    return new Response("ok", { status: 202 });
  });
  return { port: server.addr.port, seen, close: () => server.shutdown() };
}

const always = (a: string[]): Resolver => (_host, type) => Promise.resolve(type === "A" ? a : []);

async function endpointAndDelivery(gw: TestGateway, url: string, appEnv: Config["appEnv"]) {
  const merchant = await gw.createMerchant("Pinning Shop");
  const owner = { merchantId: merchant.merchantId, isSandbox: false };
  const deps = { ...gw.deps, config: { ...gw.deps.config, appEnv }, resolveDns: always(["93.184.216.34"]) };
  const ep = await createWebhookEndpoint(deps, { ...owner, url, events: ["payin.confirmed"], maxRetries: 0 });
  const sent = await sendTestWebhook(deps, { ...owner, endpointId: ep.id, eventType: "payin.confirmed" });
  return { deliveryId: sent.deliveryId, key: merchant.keys.liveSecret, config: deps.config };
}

Deno.test("webhook pinning: http and https reach the vetted address with the URL's host", async (t) => {
  await t.step("http: Host header and path of the URL, socket to the vetted address", async () => {
    const receiver = loopbackReceiver();
    try {
      const url = new URL(`http://${LEAF_NAME}:${receiver.port}/hooks/in?shop=1`);
      const res = await pinnedTransport()({ url, address: "127.0.0.1", port: receiver.port }, {
        headers: { "Content-Type": "application/json" },
        body: '{"a":1}',
        timeoutMs: 2_000,
      });
      assertEquals(res.status, 202);
      assertEquals(receiver.seen.at(-1), {
        host: `${LEAF_NAME}:${receiver.port}`,
        url: `http://${LEAF_NAME}:${receiver.port}/hooks/in?shop=1`,
        body: '{"a":1}',
      });
    } finally {
      await receiver.close();
    }
  });

  await t.step("https: TLS name and certificate checked against the URL's host", async () => {
    const receiver = loopbackReceiver({ cert: LEAF_CERT_PEM, key: LEAF_KEY_PEM });
    try {
      const transport = pinnedTransport({ caCerts: [TEST_CA_PEM] });
      const request = { headers: { "X-Probe": "1" }, body: "signed bytes", timeoutMs: 2_000 };
      const url = new URL(`https://${LEAF_NAME}:${receiver.port}/hooks`);
      const res = await transport({ url, address: "127.0.0.1", port: receiver.port }, request);
      assertEquals(res.status, 202);
      assertEquals(receiver.seen.at(-1), {
        host: `${LEAF_NAME}:${receiver.port}`,
        url: `https://${LEAF_NAME}:${receiver.port}/hooks`,
        body: "signed bytes",
      });
      // The same socket under another name: the certificate does not match, nothing is sent.
      const before = receiver.seen.length;
      const other = new URL(`https://other.pinning.example:${receiver.port}/hooks`);
      await assertRejects(() =>
        transport({ url: other, address: "127.0.0.1", port: receiver.port }, request)
      );
      // Without the test CA the certificate is not trusted either.
      await assertRejects(() =>
        pinnedTransport()({ url, address: "127.0.0.1", port: receiver.port }, request)
      );
      assertEquals(receiver.seen.length, before);
    } finally {
      await receiver.close();
    }
  });

  await t.step("a delivery in development: the name is resolved once and the socket pinned", async () => {
    const gw = await startTestGateway();
    const receiver = loopbackReceiver();
    try {
      const url = `http://${LEAF_NAME}:${receiver.port}/hooks`;
      const { deliveryId, config } = await endpointAndDelivery(gw, url, "development");
      const result = await deliverWebhook(
        { ...gw.deps, config, resolveDns: always(["127.0.0.1"]) },
        deliveryId,
      );
      assertEquals(result.outcome, "succeeded");
      assertEquals(receiver.seen.at(-1)?.host, `${LEAF_NAME}:${receiver.port}`);
      assertEquals(JSON.parse(receiver.seen.at(-1)!.body).event, "payin.confirmed");
    } finally {
      await receiver.close();
      await gw.close();
    }
  });
});

Deno.test("webhook pinning: a name that rebinds to loopback after the check never reaches it", async () => {
  const gw = await startTestGateway();
  try {
    const { deliveryId, config } = await endpointAndDelivery(
      gw,
      "https://rebind.pinning.example/hooks",
      "production",
    );
    // The attacker's DNS: a public address for the first question, loopback for every later one.
    let asked = 0;
    const rebinding: Resolver = (_host, type) => {
      if (type !== "A") return Promise.resolve([]);
      return Promise.resolve(asked++ === 0 ? ["93.184.216.34"] : ["127.0.0.1"]);
    };
    const dialled: string[] = [];
    // Where an unpinned client would connect: it asks DNS again (the same resolver) for the URL's name.
    const unpinnedFetch: typeof fetch = async (input) => {
      const [address] = await rebinding(new URL(String(input)).hostname, "A");
      dialled.push(address);
      return new Response("ok");
    };
    // The pinned path records the address it is told to dial instead of opening a socket to it.
    const transport: WebhookTransport = (target) => {
      dialled.push(target.address);
      return Promise.resolve({ status: 200 });
    };
    const deps = {
      ...gw.deps,
      config,
      fetch: unpinnedFetch,
      resolveDns: rebinding,
      transport,
    } as DeliveryDeps;
    const result = await deliverWebhook(deps, deliveryId);
    assertEquals(result.outcome, "succeeded");
    assertEquals(dialled, ["93.184.216.34"]);
  } finally {
    await gw.close();
  }
});

Deno.test("webhook pinning: refused and failed connections are shown with generic text", async (t) => {
  const gw = await startTestGateway();
  try {
    const errorShown = async (deliveryId: string, key: string) => {
      const res = await gw.request("GET", `/v1/webhooks/deliveries/${deliveryId}`, { key });
      assertEquals(res.status, 200);
      return { last: res.json.data.lastError, attempt: res.json.data.attempts[0].error };
    };
    await t.step("a closed loopback port reads like any other failure (no port-scan oracle)", async () => {
      // A port that was free a moment ago: connecting to it is refused by the OS.
      const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const closedPort = (probe.addr as Deno.NetAddr).port;
      probe.close();
      const { deliveryId, key, config } = await endpointAndDelivery(
        gw,
        `http://127.0.0.1:${closedPort}/x`,
        "development",
      );
      assertEquals((await deliverWebhook({ ...gw.deps, config }, deliveryId)).outcome, "failed");
      const shown = await errorShown(deliveryId, key);
      assertEquals(shown, { last: CONNECTION_ERROR, attempt: CONNECTION_ERROR });
      // The operator's log keeps the cause.
      assert(gw.logLines.some((l) => l.msg === "webhook connection failed"));
    });

    await t.step("a name now resolving to a private address: refused, without saying where", async () => {
      const merchant = await gw.createMerchant("Refused Shop");
      const owner = { merchantId: merchant.merchantId, isSandbox: false };
      const deps = { ...gw.deps, resolveDns: always(["93.184.216.34"]) };
      const ep = await createWebhookEndpoint(deps, {
        ...owner,
        url: "http://moved.pinning.example/x",
        events: ["payin.confirmed"],
        maxRetries: 0,
      });
      const sent = await sendTestWebhook(deps, { ...owner, endpointId: ep.id, eventType: "payin.confirmed" });
      let dialled = 0;
      const transport: WebhookTransport = () => {
        dialled++;
        return Promise.resolve({ status: 200 });
      };
      const result = await deliverWebhook(
        { ...gw.deps, resolveDns: always(["10.0.0.7"]), transport },
        sent.deliveryId,
      );
      assertEquals([result.outcome, dialled], ["failed", 0]);
      // Read like a name that gives no address (below): the record tells nothing of inside names.
      assertEquals(await errorShown(sent.deliveryId, merchant.keys.liveSecret), {
        last: UNRESOLVED_ERROR,
        attempt: UNRESOLVED_ERROR,
      });
      // The operator's log keeps the precise reason.
      assert(
        gw.logLines.some((l) => l.msg === "webhook destination refused" && /private/.test(JSON.stringify(l))),
      );
    });

    await t.step("a name that does not resolve: the record and the log say so", async () => {
      const merchant = await gw.createMerchant("Placeholder Shop");
      const owner = { merchantId: merchant.merchantId, isSandbox: false };
      const nxdomain: Resolver = () => Promise.reject(new Deno.errors.NotFound("no record"));
      const deps = { ...gw.deps, resolveDns: nxdomain };
      // Accepted at registration (its DNS may not be live yet), refused at each attempt.
      const ep = await createWebhookEndpoint(deps, {
        ...owner,
        url: "https://shop.example/hooks",
        events: ["payin.confirmed"],
        maxRetries: 0,
      });
      const sent = await sendTestWebhook(deps, { ...owner, endpointId: ep.id, eventType: "payin.confirmed" });
      let dialled = 0;
      const transport: WebhookTransport = () => {
        dialled++;
        return Promise.resolve({ status: 200 });
      };
      const result = await deliverWebhook({ ...deps, transport }, sent.deliveryId);
      assertEquals([result.outcome, dialled], ["failed", 0]);
      assertEquals(await errorShown(sent.deliveryId, merchant.keys.liveSecret), {
        last: "host name did not resolve to an address webhooks may be sent to",
        attempt: "host name did not resolve to an address webhooks may be sent to",
      });
      const logged = gw.logLines.find((l) => l.msg === "webhook host name did not resolve");
      assertEquals(logged?.host, "shop.example");
    });
  } finally {
    await gw.close();
  }
});
