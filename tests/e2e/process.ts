// Runs the real gateway (main.ts) or CLI as a child process, as an operator would.
const ROOT = new URL("../../", import.meta.url).pathname;

export type RunningGateway = {
  url: string;
  process: Deno.ChildProcess;
  output: string[];
  /** stderr alone: a clean start writes nothing there (no runtime warnings). */
  stderr: string[];
  stop(): Promise<void>;
};

function childEnv(env: Record<string, string>): Record<string, string> {
  // Only what a fresh shell would have, plus the test's variables: nothing of the test runner's config.
  // The development profile is named, as `deno task start` does: production is the default (and needs
  // secrets). A test passes APP_ENV itself to see production.
  return {
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    NO_COLOR: "1",
    APP_ENV: "development",
    ...env,
  };
}

export async function runCli(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", `${ROOT}cli.ts`, ...args],
    env: childEnv(env),
    clearEnv: true,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** Starts main.ts on a free port and resolves once it logs that it listens. */
export async function startGateway(env: Record<string, string>, timeoutMs = 90_000): Promise<RunningGateway> {
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", `${ROOT}main.ts`],
    env: childEnv({ PORT: "0", ...env }),
    clearEnv: true,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output: string[] = [];
  const stderr: string[] = [];
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>, onLine: (line: string) => void) => {
    let buffered = "";
    for await (const chunk of stream) {
      buffered += decoder.decode(chunk, { stream: true });
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      lines.forEach(onLine);
    }
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway did not start:\n${output.join("\n")}`)),
      timeoutMs,
    );
    const onLine = (line: string) => {
      output.push(line);
      if (line.includes("gateway listening")) {
        clearTimeout(timer);
        resolve(JSON.parse(line).url.replace("localhost", "127.0.0.1"));
      }
    };
    pump(process.stdout, onLine).catch(() => {});
    pump(process.stderr, (line) => {
      stderr.push(line);
      onLine(line);
    }).catch(() => {});
    process.status.then((s) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${s.code}:\n${output.join("\n")}`));
    });
  });
  return {
    url,
    process,
    output,
    stderr,
    async stop() {
      try {
        process.kill("SIGTERM");
      } catch { /* already gone */ }
      await process.status;
    },
  };
}

/** Polls `probe` until it answers something other than undefined. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** JSON calls to a running gateway: `call` with any headers, `admin` with the operator token. */
export function jsonClient(baseUrl: string, adminToken: string) {
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: await res.json() };
  };
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, path, { authorization: `Bearer ${adminToken}` }, body);
  return { call, admin };
}

/** A merchant the operator creates KYB-approved and whose manager signs the agreement: its id and live key. */
export async function approvedMerchant(
  baseUrl: string,
  adminToken: string,
  name = "Boutique Ouaga",
): Promise<{ merchantId: string; key: string }> {
  const made = await jsonClient(baseUrl, adminToken).admin("POST", "/admin/api/merchants", {
    name,
    kybStatus: "APPROVED",
  });
  if (made.status !== 201) {
    throw new Error(`creating a merchant answered ${made.status}: ${JSON.stringify(made.json)}`);
  }
  const key: string = made.json.data.keys.liveSecret;
  await signAgreement(baseUrl, key);
  return { merchantId: made.json.data.merchantId, key };
}

/**
 * The merchant signs the current agreement, as a real one does before live money: an operator may create a
 * merchant already KYB-approved, but only the merchant signs (until then live money answers KYB_REQUIRED,
 * cause AGREEMENT_NOT_SIGNED).
 */
export async function signAgreement(baseUrl: string, liveKey: string): Promise<void> {
  const { call } = jsonClient(baseUrl, "");
  const current = (await call("GET", "/v1/merchant/agreement", { "x-api-key": liveKey })).json.data.current;
  const signed = await call("POST", "/v1/merchant/agreement/sign", { "x-api-key": liveKey }, {
    version: current.version,
    sha256: current.sha256,
    signedBy: "Test manager",
  });
  if (signed.status !== 200 && signed.status !== 201) {
    throw new Error(`signing the agreement answered ${signed.status}: ${JSON.stringify(signed.json)}`);
  }
}
