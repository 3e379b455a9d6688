// A throwaway PostgreSQL cluster of the test's own (initdb + pg_ctl), on a random free port, that a test
// may stop and start at will. Never the machine's shared server on 5432: other tests use it.
const BIN = "/usr/lib/postgresql/15/bin";

export type PgCluster = {
  url: string;
  start(): Promise<void>;
  /** `fast` terminates the sessions, as a restart or failover would. */
  stop(): Promise<void>;
  destroy(): Promise<void>;
};

/** Why the cluster cannot be made here, or undefined when it can. */
export function clusterUnavailable(): string | undefined {
  try {
    Deno.statSync(`${BIN}/initdb`);
  } catch {
    return `no ${BIN}/initdb on this machine (CI has it)`;
  }
  return undefined;
}

const asRoot = Deno.uid?.() === 0;

/** Runs a PostgreSQL binary; as root through `su postgres`, since initdb and postgres refuse root. */
async function run(args: string[]): Promise<string> {
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const command = asRoot
    ? new Deno.Command("su", {
      args: ["postgres", "-s", "/bin/sh", "-c", quoted],
      stdout: "piped",
      stderr: "piped",
    })
    : new Deno.Command("/bin/sh", { args: ["-c", quoted], stdout: "piped", stderr: "piped" });
  const out = await command.output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${args[0]} failed: ${text}`);
  return text;
}

function freePort(): number {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  return port;
}

export async function createCluster(): Promise<PgCluster> {
  const dir = await Deno.makeTempDir({ prefix: "gateway-pg-" });
  if (asRoot) {
    const pw = await new Deno.Command("id", { args: ["-u", "postgres"], stdout: "piped" }).output();
    const gid = await new Deno.Command("id", { args: ["-g", "postgres"], stdout: "piped" }).output();
    await Deno.chown(
      dir,
      Number(new TextDecoder().decode(pw.stdout)),
      Number(new TextDecoder().decode(gid.stdout)),
    );
  }
  const data = `${dir}/data`;
  const port = freePort();
  await run([`${BIN}/initdb`, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -h 127.0.0.1 -k ${dir} -c fsync=off -c max_connections=60`;
  const cluster: PgCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await run([`${BIN}/pg_ctl`, "-D", data, "-o", options, "-l", `${dir}/log`, "-w", "-t", "30", "start"]);
    },
    async stop() {
      await run([`${BIN}/pg_ctl`, "-D", data, "-m", "fast", "-w", "-t", "30", "stop"]);
    },
    async destroy() {
      try {
        await run([`${BIN}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"]);
      } catch { /* already stopped */ }
      await Deno.remove(dir, { recursive: true });
    },
  };
  await cluster.start();
  return cluster;
}
