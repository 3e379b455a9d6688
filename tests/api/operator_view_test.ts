// What an operator sees: /metrics behind the operator token with numbers that move, one log line per
// money state change, and compressed answers for clients that accept them.
import { scanChain } from "../../domain/payins/chain_scanner.ts";
import { addressPoolFree, addressPoolSettled } from "../../domain/payins/address_pool.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { ADMIN_TOKEN, startTestGateway, type TestGateway, withGateway } from "../helpers.ts";

/** One sample's value from the Prometheus text, 0 when the series does not exist yet. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

async function scrape(gw: TestGateway): Promise<string> {
  const res = await gw.request("GET", "/metrics", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assertEquals(res.status, 200);
  assertMatch(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  return res.text;
}

const PAYIN_201 = 'gateway_http_requests_total{method="POST",route="/v1/payments",status="201"}';
const READ_404 = 'gateway_http_requests_total{method="GET",route="/v1/payments/:id",status="404"}';

Deno.test(
  "/metrics needs the operator token and its numbers move with the traffic",
  withGateway(async (gw) => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: "Bearer wrong-token-0123456789" }];
    for (const headers of attempts) {
      const refused = await gw.request("GET", "/metrics", { headers });
      assertEquals([refused.status, refused.json.error.code], [401, "UNAUTHORIZED"]);
    }
    const m = await gw.createMerchant("Metered");
    const endpoint = await gw.request("POST", "/v1/webhooks/endpoints", {
      key: m.keys.liveSecret,
      body: { url: "http://127.0.0.1:9/hooks", events: ["payin.created"] },
    });
    assertEquals(endpoint.status, 201, endpoint.text);
    const before = await scrape(gw);
    const deliveriesBefore = gw.enqueued.filter((e) => e.message.type === "webhook.deliver").length;
    const created = 3;
    for (let i = 0; i < created; i++) {
      const res = await gw.request("POST", "/v1/payments", {
        key: m.keys.liveSecret,
        body: { amount: "10" },
      });
      assertEquals(res.status, 201, res.text);
    }
    const unknown = await gw.request("GET", "/v1/payments/pay_unknown", { key: m.keys.liveSecret });
    const after = await scrape(gw);
    assertEquals(sample(after, PAYIN_201) - sample(before, PAYIN_201), created);
    // The route pattern, never the raw path with its id.
    assert(!after.includes("pay_unknown"));
    assertEquals(sample(after, READ_404) - sample(before, READ_404), unknown.status === 404 ? 1 : 0);
    const queued = gw.enqueued.filter((e) => e.message.type === "webhook.deliver").length - deliveriesBefore;
    assertEquals(queued, created, "each pay-in queued one payin.created delivery");
    assertEquals(
      sample(after, "gateway_webhook_deliveries_pending") -
        sample(before, "gateway_webhook_deliveries_pending"),
      queued,
    );
    // This process's addresses derived ahead: a background refill may still be adding to them.
    await addressPoolSettled(gw.db);
    const scraped = sample(await scrape(gw), 'gateway_address_pool_free{mode="live"}');
    assertEquals(scraped, addressPoolFree(gw.db).live);
    assert(scraped > 0);
    for (
      const name of ["gateway_jobs_due", "gateway_scanner_lag_blocks", "gateway_webhook_deliveries_failing"]
    ) {
      assert(after.includes(`# TYPE ${name} gauge`), name);
    }
  }),
);

Deno.test(
  "the scanner's lag behind the node's head is a gauge in blocks",
  withGateway(async (gw) => {
    gw.devnet.mine(2);
    await scanChain(gw.deps);
    const caughtUp = await scrape(gw);
    assertEquals(sample(caughtUp, "gateway_scanner_lag_blocks"), 0);
    const head = sample(caughtUp, "gateway_scanner_head_block");
    // The node moves on; the scanner has seen the head but not yet scanned the blocks.
    const mined = 7;
    gw.devnet.mine(mined);
    await gw.db.query("UPDATE chain_cursor SET head_seen = head_seen + $1", [mined]);
    const behind = await scrape(gw);
    assertEquals(sample(behind, "gateway_scanner_lag_blocks"), mined);
    assertEquals(sample(behind, "gateway_scanner_head_block"), head + mined);
  }),
);

Deno.test(
  "JSON and pages are gzipped for a client that accepts it, and plain for one that does not",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Zipped");
    const payin = await gw.request("POST", "/v1/payments", {
      key: m.keys.liveSecret,
      body: { amount: "10" },
    });
    const page = new URL(payin.json.data.paymentUrl).pathname;
    for (const path of ["/v1/openapi.json", page]) {
      const plain = await gw.app.request(path);
      assertEquals(plain.headers.get("content-encoding"), null);
      const plainText = await plain.text();
      const zipped = await gw.app.request(path, { headers: { "accept-encoding": "gzip, deflate, br" } });
      assertEquals([zipped.status, zipped.headers.get("content-encoding")], [200, "gzip"]);
      const bytes = new Uint8Array(await zipped.arrayBuffer());
      assert(bytes.length < plainText.length / 2, `${path}: ${bytes.length} of ${plainText.length}`);
      const unzipped = await new Response(
        new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")),
      ).text();
      // The checkout page carries a fresh CSP nonce per answer and its countdown (seconds left) may tick
      // between the two requests; compare its shape, not those bytes.
      const shape = (html: string) =>
        html.replace(/nonce-[^']+|nonce="[^"]+"/g, "N").replace(/data-left="\d+"/g, "L")
          .replace(/data-cd>\d+:\d+</g, "C<");
      assertEquals(shape(unzipped), shape(plainText));
    }
  }),
);

Deno.test("one log line per money state change of a pay-in's life, with ids and no secrets", async () => {
  const gw = await startTestGateway();
  try {
    const m = await gw.createMerchant("Logged");
    await scanChain(gw.deps);
    const created = await gw.request("POST", "/v1/payments", {
      key: m.keys.liveSecret,
      body: { amount: "10" },
    });
    const p = created.json.data;
    gw.devnet.transferUsdt(p.address, 11_500_000n);
    gw.devnet.mine(1);
    await scanChain(gw.deps);
    gw.devnet.mine(gw.deps.config.tron.payinConfirmations);
    await scanChain(gw.deps);
    const lines = gw.logLines.filter((l) => l.payinId === p.transactionId);
    assertEquals(lines.map((l) => [l.msg, l.from, l.to]), [
      ["payin created", null, "AWAITING_PAYMENT"],
      ["payin state changed", "AWAITING_PAYMENT", "CONFIRMING"],
      ["payin state changed", "CONFIRMING", "CONFIRMED"],
    ]);
    for (const line of lines) {
      assertEquals([line.merchantId, line.mode, line.paymentMethod], [m.merchantId, "live", "USDT_TRC20"]);
      assertEquals([line.amount, line.amountExpected], [p.amount, p.amountExpected]);
    }
    const final =
      (await gw.request("GET", `/v1/payments/${p.transactionId}`, { key: m.keys.liveSecret })).json.data;
    assertEquals([lines[2].amountReceived, lines[2].netAmount], [final.amountReceived, final.netAmount]);
    // A mobile money pay-in the operator refuses: its last line is the failure, with the reason.
    const momo = await gw.request("POST", "/v1/payments", {
      key: m.keys.liveSecret,
      body: { amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22670000001" },
    });
    assertEquals(momo.status, 201, momo.text);
    await gw.simulators.flush();
    const failed = gw.logLines.filter((l) => l.payinId === momo.json.data.transactionId);
    assertEquals(failed[0].msg, "payin created");
    const last = failed.at(-1)!;
    assertEquals([last.to, last.failureReason, last.paymentMethod], [
      "FAILED",
      "INSUFFICIENT_FUNDS",
      "MOBILE_MONEY",
    ]);
    for (const [i, line] of failed.entries()) if (i > 0) assertEquals(line.from, failed[i - 1].to);
    const everything = JSON.stringify(gw.logLines);
    for (
      const secret of [...Object.values(m.keys), gw.deps.config.appSecret!, gw.deps.config.tron.mnemonic!]
    ) {
      assert(!everything.includes(secret), "no key or secret is ever logged");
    }
  } finally {
    await gw.close();
  }
});
