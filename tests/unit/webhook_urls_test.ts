// The webhook URL policy, with a fake DNS resolver so no network is needed.
import { AppError } from "../../domain/errors.ts";
import {
  assertWebhookUrlAllowed,
  classifyIpv4,
  classifyIpv6,
  connectTargetProblem,
  type Resolver,
} from "../../domain/webhooks/urls.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";

const prod = { appEnv: "production" as const };
const dev = { appEnv: "development" as const };

function resolver(table: Record<string, { A?: string[]; AAAA?: string[] }>): Resolver {
  return (host, type) => {
    const entry = table[host];
    if (!entry) return Promise.reject(new Deno.errors.NotFound(`no ${type} for ${host}`));
    return Promise.resolve(entry[type] ?? []);
  };
}
const dns = resolver({
  "hooks.shop.example": { A: ["93.184.216.34"], AAAA: ["2606:2800:220:1:248:1893:25c8:1946"] },
  "rebind.example": { A: ["93.184.216.34", "10.0.0.8"] },
  "v6-internal.example": { AAAA: ["fd12:3456::1"] },
  "loop.example": { A: ["127.0.0.1"] },
});

async function refusedAt(config: typeof prod | typeof dev, url: string): Promise<string | null> {
  try {
    await assertWebhookUrlAllowed(config, url, dns);
    return null;
  } catch (err) {
    assert(err instanceof AppError && err.code === "VALIDATION_ERROR", String(err));
    assertEquals(err.details?.[0].field, "url");
    return err.details![0].reason;
  }
}

Deno.test("webhook URL policy", async (t) => {
  await t.step("IPv4 ranges", () => {
    const cases: Array<[string, string | null]> = [
      ["8.8.8.8", null],
      ["93.184.216.34", null],
      ["127.0.0.1", "loopback"],
      ["127.255.0.9", "loopback"],
      ["10.20.30.40", "private"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["172.32.0.1", null],
      ["192.168.0.1", "private"],
      ["169.254.1.1", "link-local"],
      ["169.254.169.254", "metadata"],
      ["100.64.0.1", "shared (CGNAT)"],
      ["100.127.255.255", "shared (CGNAT)"],
      ["100.128.0.1", null],
      ["0.0.0.0", "unspecified"],
      ["224.0.0.1", "multicast or reserved"],
      ["255.255.255.255", "multicast or reserved"],
    ];
    for (const [ip, reason] of cases) assertEquals(classifyIpv4(ip), reason, ip);
  });

  await t.step("IPv6 ranges, including IPv4-mapped and NAT64", () => {
    const cases: Array<[string, string | null]> = [
      ["2606:2800:220:1:248:1893:25c8:1946", null],
      ["::1", "loopback"],
      ["[::1]", "loopback"],
      ["::", "unspecified"],
      ["fc00::1", "private"],
      ["fd12:3456::1", "private"],
      ["fe80::1", "link-local"],
      ["febf::1", "link-local"],
      ["::ffff:127.0.0.1", "IPv4-mapped IPv6"],
      ["::ffff:7f00:1", "IPv4-mapped IPv6"],
      ["::ffff:8.8.8.8", "IPv4-mapped IPv6"],
      ["64:ff9b::a00:1", "private"],
      ["64:ff9b::808:808", null],
      ["ff02::1", "multicast or reserved"],
      ["not-an-ip", "unspecified"],
    ];
    for (const [ip, reason] of cases) assertEquals(classifyIpv6(ip), reason, ip);
  });

  await t.step("IPv6 forms that carry an IPv4 address: mapped, translated, NAT64, 6to4, Teredo", async () => {
    const cases: Array<[string, string | null]> = [
      ["::ffff:7f00:1", "IPv4-mapped IPv6"],
      ["::ffff:0:7f00:1", "IPv4-mapped IPv6"], // IPv4-translated, ::ffff:0:0:0/96
      ["::ffff:0:808:808", "IPv4-mapped IPv6"],
      ["64:ff9b::7f00:1", "loopback"],
      ["64:ff9b::a9fe:a9fe", "metadata"],
      ["64:ff9b:1::a00:1", "IPv4 tunnel"], // local-use NAT64: where the IPv4 sits is the network's choice
      ["64:ff9b:1:7f00:1::", "IPv4 tunnel"],
      ["2002:7f00:1::1", "loopback"], // 6to4 of 127.0.0.1
      ["2002:a00:7::1", "private"], // 6to4 of 10.0.0.7
      ["2002:a9fe:a9fe::", "metadata"],
      ["2002:808:808::1", null], // 6to4 of a public address
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "IPv4 tunnel"], // Teredo
    ];
    for (const [ip, reason] of cases) assertEquals(classifyIpv6(ip), reason, ip);
    const hidden = resolver({
      "mapped.example": { AAAA: ["::ffff:0:a00:1"] },
      "nat64.example": { AAAA: ["64:ff9b:1::a00:1"] },
      "sixtofour.example": { AAAA: ["2002:7f00:1::1"] },
    });
    for (const host of ["mapped.example", "nat64.example", "sixtofour.example"]) {
      assert(await connectTargetProblem(prod, `https://${host}/x`, hidden), host);
      await assertRejects(() => assertWebhookUrlAllowed(prod, `https://${host}/x`, hidden));
    }
    for (const literal of ["[::ffff:0:7f00:1]", "[64:ff9b:1::a00:1]", "[2002:c0a8:101::]", "[2001:0:1::1]"]) {
      assert(await connectTargetProblem(prod, `https://${literal}/x`, dns), literal);
    }
  });

  await t.step("production: https to a public host only", async () => {
    assertEquals(await refusedAt(prod, "https://hooks.shop.example/webhooks?x=1"), null);
    assertEquals(await refusedAt(prod, "https://93.184.216.34:8443/x"), null);
    assertEquals(await refusedAt(prod, "http://hooks.shop.example/x"), "must use https");
    for (
      const url of [
        "https://127.0.0.1/x",
        "https://localhost/x",
        "https://LOCALHOST./x",
        "https://a.b.localhost/x",
        "https://10.0.0.1/x",
        "https://192.168.1.1/x",
        "https://172.16.5.4/x",
        "https://169.254.169.254/latest",
        "https://metadata.google.internal/x",
        "https://100.64.1.1/x",
        "https://0.0.0.0/x",
        "https://[::1]/x",
        "https://[fc00::5]/x",
        "https://[fe80::5]/x",
        "https://[::ffff:10.0.0.1]/x",
        "https://2130706433/x", // 127.0.0.1 written as one number
        "https://0x7f.1/x",
        "https://intranet/x",
        "https://printer.local/x",
        "https://user:secret@hooks.shop.example/x",
        "https://rebind.example/x",
        "https://v6-internal.example/x",
        "https://loop.example/x",
        "not a url",
        "ftp://hooks.shop.example/x",
      ]
    ) {
      assert(await refusedAt(prod, url) !== null, url);
    }
  });

  await t.step("a name that does not resolve is not decided yet: accepted at registration", async () => {
    assertEquals(await refusedAt(prod, "https://not-yet-live.example/x"), null);
  });

  await t.step("development also allows http and loopback, nothing else", async () => {
    assertEquals(await refusedAt(dev, "http://127.0.0.1:8080/x"), null);
    assertEquals(await refusedAt(dev, "http://localhost:3000/x"), null);
    assertEquals(await refusedAt(dev, "http://[::1]:3000/x"), null);
    assertEquals(await refusedAt(dev, "http://loop.example/x"), null);
    assert(await refusedAt(dev, "http://10.0.0.1/x"));
    assert(await refusedAt(dev, "http://169.254.169.254/x"));
    assert(await refusedAt(dev, "ftp://127.0.0.1/x"));
  });

  await t.step(
    "connect time: resolve again; private addresses and (in production) no answer refuse",
    async () => {
      assertEquals(await connectTargetProblem(prod, "https://hooks.shop.example/x", dns), null);
      assert((await connectTargetProblem(prod, "https://rebind.example/x", dns))?.includes("private"));
      assert((await connectTargetProblem(prod, "https://not-yet-live.example/x", dns))?.includes("resolve"));
      // Nothing resolved is nothing vetted to connect to, in development too.
      assert(await connectTargetProblem(dev, "http://not-yet-live.example/x", dns));
      assertEquals(await connectTargetProblem(dev, "http://127.0.0.1:9/x", dns), null);
      assert(await connectTargetProblem(prod, "http://hooks.shop.example/x", dns));
    },
  );

  await t.step("a bad URL is a VALIDATION_ERROR on url", async () => {
    await assertRejects(
      () => assertWebhookUrlAllowed(prod, "https://10.0.0.1/x", dns),
      (err) => err instanceof AppError && err.status === 400 && err.details?.[0].field === "url",
    );
  });
});
