// A faulty TRON node for tests: a proxy in front of the devnet (in-process, no socket) that, on command,
// answers 429 storms, 5xx, 503 to everything (down), never answers (until the caller gives up), cuts its JSON short, lags 50
// blocks behind, or serves another fork (every block hash and parent hash changed, so its chain is
// consistent with itself and with no one else).

export type Fault = "healthy" | "429" | "5xx" | "timeout" | "truncated" | "lag" | "fork" | "down";
export const FAULTS: Fault[] = ["429", "5xx", "timeout", "truncated", "lag", "fork"];

const LAG_BLOCKS = 50;

type Upstream = (request: Request) => Response | Promise<Response>;

/** Another hash for the same block number: the number (first 8 bytes) kept, one later byte changed. */
function forkHash(hash: string): string {
  const flipped = ((parseInt(hash.slice(20, 22), 16) ^ 0x5a) & 0xff).toString(16).padStart(2, "0");
  return hash.slice(0, 20) + flipped + hash.slice(22);
}

function forkBlocks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(forkBlocks);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = (k === "blockID" || k === "parentHash") && typeof v === "string" ? forkHash(v) : forkBlocks(v);
  }
  return out;
}

export function faultyNode(upstream: Upstream, upstreamBase: string) {
  let fault: Fault = "healthy";
  let served = 0;
  const counts: Record<Fault, number> = {
    healthy: 0,
    "429": 0,
    "5xx": 0,
    timeout: 0,
    truncated: 0,
    lag: 0,
    fork: 0,
    down: 0,
  };

  const ask = async (path: string, body: unknown) => {
    const res = await upstream(
      new Request(`${upstreamBase}${path}`, { method: "POST", body: JSON.stringify(body) }),
    );
    return await res.json();
  };

  async function lagging(path: string, body: Record<string, unknown>): Promise<unknown> {
    const head = (await ask("/wallet/getnowblock", {})).block_header.raw_data.number as number;
    const top = head - LAG_BLOCKS;
    if (path.endsWith("/getnowblock")) return await ask("/wallet/getblockbynum", { num: top });
    if (path.endsWith("/getblockbynum")) return Number(body.num) > top ? {} : await ask(path, body);
    if (path.endsWith("/getblockbylimitnext")) {
      const end = Math.min(Number(body.endNum), top + 1);
      return end <= Number(body.startNum) ? {} : await ask(path, { ...body, endNum: end });
    }
    if (path.endsWith("/gettransactioninfobyblocknum")) {
      return Number(body.num) > top ? [] : await ask(path, body);
    }
    if (path.endsWith("/gettransactioninfobyid")) {
      const info = await ask(path, body);
      return info.blockNumber > top ? {} : info;
    }
    return await ask(path, body);
  }

  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const path = url.pathname.replace(/^\/devnet/, "");
    const bodyText = typeof init?.body === "string" ? init.body : "{}";
    served++;
    counts[fault]++;
    switch (fault) {
      case "down":
        return new Response("service unavailable", { status: 503 });
      case "429":
        // A storm: four in five refused, as a key over its budget is.
        if (served % 5 !== 0) return new Response('{"Error":"rate limit exceeded"}', { status: 429 });
        break;
      case "5xx":
        if (served % 2 === 0) return new Response("bad gateway", { status: served % 4 === 0 ? 503 : 502 });
        break;
      case "timeout":
        return await new Promise<Response>((_, reject) => {
          const signal = init?.signal;
          if (signal?.aborted) return reject(signal.reason);
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        });
      case "truncated": {
        const res = await upstream(new Request(`${upstreamBase}${path}`, { method: "POST", body: bodyText }));
        const text = await res.text();
        return new Response(text.slice(0, Math.max(1, Math.floor(text.length / 2))), { status: 200 });
      }
      case "lag":
        if (!path.includes("broadcast")) {
          return Response.json(await lagging(path, JSON.parse(bodyText)));
        }
        break;
      case "fork":
        if (!path.includes("broadcast")) {
          const res = await upstream(
            new Request(`${upstreamBase}${path}`, { method: "POST", body: bodyText }),
          );
          return Response.json(forkBlocks(await res.json()));
        }
        break;
    }
    return await upstream(new Request(`${upstreamBase}${path}`, { method: "POST", body: bodyText }));
  };

  return {
    fetch,
    set(next: Fault) {
      fault = next;
    },
    get fault() {
      return fault;
    },
    counts,
  };
}
