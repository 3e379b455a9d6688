// The bench's webhook receiver: a Deno.serve on 127.0.0.1 in a Worker (its own thread and event loop, so
// answering never waits behind the gateway's work). It answers 200 at once and notes, per
// Service-Event-Id, when the first request arrived (epoch ms) and how many came again (duplicates).
const RECEIVER_SOURCE = `
let server;
let seen = new Map();
let expected = 0;
let duplicates = 0;
const check = () => {
  if (expected > 0 && seen.size >= expected) {
    expected = 0;
    self.postMessage({ type: "done", arrivals: [...seen], duplicates });
  }
};
self.onmessage = async (e) => {
  const m = e.data;
  if (m.cmd === "start") {
    server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
      const id = req.headers.get("service-event-id") ?? "";
      await req.arrayBuffer();
      const at = performance.timeOrigin + performance.now();
      if (seen.has(id)) duplicates++;
      else seen.set(id, at);
      check();
      return new Response("ok");
    });
    self.postMessage({ type: "ready", port: server.addr.port });
  } else if (m.cmd === "expect") {
    seen = new Map();
    expected = m.n;
    check();
  } else if (m.cmd === "close") {
    await server.shutdown();
    self.postMessage({ type: "closed" });
  }
};
`;

export type BenchReceiver = {
  url: string;
  /** Forgets what arrived so far; resolves with the first arrival of each of the next `n` events. */
  expect(n: number): Promise<Map<string, number>>;
  /** Requests that repeated an event already received, as of the last completed expect. */
  duplicates(): number;
  close(): Promise<void>;
};

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const url = URL.createObjectURL(new Blob([RECEIVER_SOURCE], { type: "application/javascript" }));
  const worker = new Worker(url, { type: "module" });
  let onMessage: (
    data: { type: string; port?: number; arrivals?: [string, number][]; duplicates?: number },
  ) => void = () => {};
  worker.onmessage = (e) => onMessage(e.data);
  const next = (type: string) =>
    new Promise<Parameters<typeof onMessage>[0]>((resolve) => {
      onMessage = (data) => {
        if (data.type === type) resolve(data);
      };
    });
  const ready = next("ready");
  worker.postMessage({ cmd: "start" });
  const { port } = await ready;
  let duplicates = 0;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    async expect(n) {
      const done = next("done");
      worker.postMessage({ cmd: "expect", n });
      const data = await done;
      duplicates = data.duplicates!;
      return new Map(data.arrivals!);
    },
    duplicates: () => duplicates,
    async close() {
      const closed = next("closed");
      worker.postMessage({ cmd: "close" });
      await closed;
      worker.terminate();
      URL.revokeObjectURL(url);
    },
  };
}
