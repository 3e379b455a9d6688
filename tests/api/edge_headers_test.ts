// What the outermost middleware puts on every answer, whatever built it: GIT_REV, X-Request-Id (the
// caller's when it is a plain token), gzip only from 1 KB, and a count per route pattern in /metrics.
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { ADMIN_TOKEN, withGateway } from "../helpers.ts";

Deno.test(
  "every answer carries GIT_REV and X-Request-Id, and large ones alone are gzipped",
  withGateway(async (gw) => {
    // A Response with immutable headers, as a handler passing on a fetched answer would return.
    gw.app.get("/probe/immutable", () => Response.redirect("http://localhost/elsewhere", 302));
    const m = await gw.createMerchant();
    const send = (path: string, init: RequestInit = {}) => gw.app.request(path, init);
    const answers = {
      json: await send("/v1/payments", {
        method: "POST",
        headers: {
          "x-api-key": m.keys.liveSecret,
          "content-type": "application/json",
          "x-request-id": "abc.1:2-3",
        },
        body: JSON.stringify({ amount: "10" }),
      }),
      refused: await send("/v1/payments", { method: "POST", headers: { "x-request-id": "bad id!" } }),
      unmatched: await send("/nowhere"),
      page: await send("/checkout/pay_00000000000000000000000000", {
        headers: { "accept-encoding": "gzip" },
      }),
      immutable: await send("/probe/immutable"),
      large: await send("/v1/openapi.json", { headers: { "accept-encoding": "gzip" } }),
      small: await send("/nowhere/either", { headers: { "accept-encoding": "gzip" } }),
    };
    for (const [name, res] of Object.entries(answers)) {
      assertEquals(res.headers.get("GIT_REV"), "test-rev", name);
      assertMatch(res.headers.get("X-Request-Id") ?? "", /^[\w.:-]{1,64}$/, name);
      await res.body?.cancel();
    }
    assertEquals(answers.json.status, 201);
    assertEquals(answers.json.headers.get("X-Request-Id"), "abc.1:2-3");
    assertMatch(answers.refused.headers.get("X-Request-Id") ?? "", /^req_/);
    assertEquals(answers.immutable.status, 302);
    assertEquals(answers.immutable.headers.get("location"), "http://localhost/elsewhere");
    assertEquals(answers.large.headers.get("content-encoding"), "gzip");
    assertEquals(answers.large.headers.get("vary"), "Accept-Encoding");
    assertEquals(answers.small.headers.get("content-encoding"), null);
    assert(Number(answers.small.headers.get("content-length")) < 1024);

    const metrics = await (await send("/metrics", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }))
      .text();
    for (
      const line of [
        'gateway_http_requests_total{method="POST",route="/v1/payments",status="201"} 1',
        'gateway_http_requests_total{method="POST",route="/v1/payments",status="401"} 1',
        'gateway_http_requests_total{method="GET",route="(unmatched)",status="404"} 2',
        'gateway_http_requests_total{method="GET",route="/probe/immutable",status="302"} 1',
      ]
    ) assert(metrics.includes(line), `${line} in\n${metrics}`);
  }),
);
