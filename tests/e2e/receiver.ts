// A merchant's webhook receiver on loopback that verifies every delivery as README tells merchants to.
export type ReceivedWebhook = {
  event: string;
  data: Record<string, unknown>;
  createdAt: string;
  /** Inside the signed body: false for sandbox events; receivers act only on live, non-test ones. */
  livemode: boolean;
  test: boolean;
  eventId: string;
  deliveryId: string;
  signatureValid: boolean;
  rawBody: string;
};

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The verification of README, written independently of the gateway's own code. */
export async function verifySignature(rawBody: string, header: string, secret: string): Promise<boolean> {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isFinite(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = await hmacHex(secret, `${t}.${rawBody}`);
  const given = parts.v1 ?? "";
  let diff = expected.length ^ given.length;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ given.charCodeAt(i);
  return diff === 0;
}

export function startReceiver() {
  const received: ReceivedWebhook[] = [];
  let secret = "";
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const rawBody = await req.text();
    const body = JSON.parse(rawBody);
    received.push({
      ...body,
      eventId: req.headers.get("service-event-id") ?? "",
      deliveryId: req.headers.get("service-delivery-id") ?? "",
      signatureValid: await verifySignature(rawBody, req.headers.get("service-signature") ?? "", secret),
      rawBody,
    });
    return new Response("ok");
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hooks`,
    received,
    setSecret(value: string) {
      secret = value;
    },
    /** Waits until a delivery matching `predicate` arrives. */
    async waitFor(predicate: (w: ReceivedWebhook) => boolean, timeoutMs = 20_000): Promise<ReceivedWebhook> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const hit = received.find(predicate);
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(
        `no matching webhook within ${timeoutMs} ms; got ${received.map((r) => r.event).join(", ")}`,
      );
    },
    stop: () => server.shutdown(),
  };
}
