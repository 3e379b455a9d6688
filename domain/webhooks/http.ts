// The one way a webhook leaves the gateway: a POST to the IP address the URL policy vetted, never to a
// name resolved again behind our back (DNS rebinding). The Host header, and for https the TLS server
// name and certificate check, stay those of the URL, so the receiver sees an ordinary request.
//
// What works in Deno 2.9 (tests/unit/webhook_pinning_test.ts proves both):
// - http: fetch to `http://<ip>:<port>/<path>` through a client made with `allowHost`, which lets us set
//   `Host` to the URL's host; connections are pooled and kept alive per address.
// - https: `Deno.createHttpClient`'s `tcp` transport speaks plain HTTP to its socket, and fetch has no
//   way to name the address to dial, so https is our own small HTTP/1.1 exchange: `Deno.connect` to the
//   vetted address, `Deno.startTls` with the URL's host name (SNI and certificate verification), one
//   request, the status line read, the connection closed.

/** A URL and the address it was vetted for: the only address the request may reach. */
export type PinnedTarget = { url: URL; address: string; port: number };

export type PostRequest = { headers: Record<string, string>; body: string; timeoutMs: number };

/** Resolves to the receiver's status; rejects with a `TimeoutError` or any other error (never shown). */
export type WebhookTransport = (target: PinnedTarget, request: PostRequest) => Promise<{ status: number }>;

const MAX_STATUS_LINE = 8 * 1024;

function timeoutError(ms: number): Error {
  return new DOMException(`no response within ${ms} ms`, "TimeoutError");
}

function hostForUrl(address: string): string {
  return address.includes(":") ? `[${address}]` : address;
}

/** The host name as the TLS layer wants it: no IPv6 brackets, no trailing dot. */
function serverName(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
}

function httpTransport(): WebhookTransport {
  // One client for every http delivery: its pool keeps connections to each address alive between
  // deliveries, which is most of the cost at volume.
  let client: Deno.HttpClient | undefined;
  return async (target, request) => {
    client ??= Deno.createHttpClient({ allowHost: true, poolIdleTimeout: 30_000 });
    const { url } = target;
    const res = await fetch(
      `http://${hostForUrl(target.address)}:${target.port}${url.pathname}${url.search}`,
      {
        method: "POST",
        headers: { ...request.headers, Host: url.host },
        body: request.body,
        redirect: "manual",
        signal: AbortSignal.timeout(request.timeoutMs),
        client,
      },
    );
    await res.body?.cancel().catch(() => {});
    return { status: res.status };
  };
}

async function readStatus(conn: Deno.Conn): Promise<number> {
  const buf = new Uint8Array(MAX_STATUS_LINE);
  let used = 0;
  while (used < buf.length) {
    const n = await conn.read(buf.subarray(used));
    if (n === null) break;
    used += n;
    const text = new TextDecoder().decode(buf.subarray(0, used));
    const eol = text.indexOf("\r\n");
    if (eol >= 0) {
      const match = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(text.slice(0, eol));
      if (!match) throw new Error("malformed status line");
      return Number(match[1]);
    }
  }
  throw new Error("no status line");
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

function httpsTransport(caCerts?: string[]): WebhookTransport {
  return async (target, request) => {
    const { url } = target;
    const body = new TextEncoder().encode(request.body);
    const lines = [`POST ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
    for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
    lines.push(`Content-Length: ${body.length}`, "Connection: close", "", "");
    const head = new TextEncoder().encode(lines.join("\r\n"));
    const message = new Uint8Array(head.length + body.length);
    message.set(head);
    message.set(body, head.length);

    let conn: Deno.Conn | undefined;
    let timedOut = false;
    const close = () => {
      try {
        conn?.close();
      } catch { /* already closed */ }
    };
    const exchange = async () => {
      const tcp = await Deno.connect({ hostname: target.address, port: target.port });
      conn = tcp;
      if (timedOut) throw timeoutError(request.timeoutMs);
      const tls = await Deno.startTls(tcp, { hostname: serverName(url), caCerts });
      conn = tls;
      await writeAll(tls, message);
      return { status: await readStatus(tls) };
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        close();
        reject(timeoutError(request.timeoutMs));
      }, request.timeoutMs);
    });
    const work = exchange();
    work.catch(() => {}); // after a timeout its rejection (closed socket) is expected and unread
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
      close();
    }
  };
}

/** The transport deliveries use. `caCerts` adds trusted roots (tests; a private CA in an intranet). */
export function pinnedTransport(options: { caCerts?: string[] } = {}): WebhookTransport {
  const http = httpTransport();
  const https = httpsTransport(options.caCerts);
  return (target, request) => (target.url.protocol === "https:" ? https : http)(target, request);
}

export const defaultTransport: WebhookTransport = pinnedTransport();
