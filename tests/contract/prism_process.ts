// Starts Stoplight Prism's validating proxy in front of an upstream. Prism comes from the npm registry
// at a pinned version, installed once into a cache folder (or PRISM_BIN names an installed one).
export const PRISM_VERSION = "5.16.0";

async function prismBin(): Promise<string> {
  const given = Deno.env.get("PRISM_BIN");
  if (given) return given;
  const dir = `${Deno.env.get("HOME") ?? "/tmp"}/.cache/gateway-contract/prism-${PRISM_VERSION}`;
  const bin = `${dir}/node_modules/.bin/prism`;
  if (await Deno.stat(bin).then(() => true, () => false)) return bin;
  const install = await new Deno.Command("npm", {
    args: ["install", "--prefix", dir, "--no-audit", "--no-fund", `@stoplight/prism-cli@${PRISM_VERSION}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!install.success) {
    throw new Error(`npm install of Prism failed:\n${new TextDecoder().decode(install.stderr)}`);
  }
  return bin;
}

export async function startPrism(docFile: string, upstream: string, timeoutMs = 60_000) {
  const port = freePort();
  const process = new Deno.Command(await prismBin(), {
    args: ["proxy", docFile, upstream, "--errors", "--host", "127.0.0.1", "--port", String(port)],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const log: string[] = [];
  let ready: (ok: boolean) => void = () => {};
  const listening = new Promise<boolean>((r) => ready = r);
  // One reader per stream, kept draining for the whole run so that Prism never blocks on a full pipe.
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      if (log.length < 200) log.push(text);
      if (text.includes("Prism is listening")) ready(true);
    }
  };
  drain(process.stdout).catch(() => {});
  drain(process.stderr).catch(() => {});
  process.status.then(() => ready(false));
  const timer = setTimeout(() => ready(false), timeoutMs);
  const ok = await listening;
  clearTimeout(timer);
  const stop = async () => {
    try {
      process.kill("SIGTERM");
    } catch { /* already gone */ }
    await process.status;
  };
  if (!ok) {
    await stop();
    throw new Error(`Prism did not start:\n${log.join("").slice(-4000)}`);
  }
  return { url: `http://127.0.0.1:${port}`, stop };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
