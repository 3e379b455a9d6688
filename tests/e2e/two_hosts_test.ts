// Two gateway processes with data directories of their own (two containers on two machines, each with its
// own KV file) on one PostgreSQL: the per-merchant limit of 30 POST /v1/payments a minute holds for both
// together, because the counters live in PostgreSQL (RATE_LIMIT_STORE=auto with DATABASE_URL).
import { assert, assertEquals } from "../assert.ts";
import { clusterUnavailable, createCluster } from "./pg_cluster.ts";
import { approvedMerchant, type RunningGateway, startGateway, until } from "./process.ts";

const skipReason = clusterUnavailable();
const ADMIN_TOKEN = "e2e-admin-token-0123456789";

function hostEnv(dir: string, databaseUrl: string) {
  // Hosts of one gateway share its secrets, as they share its database.
  return {
    DATA_DIR: dir,
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN,
    APP_SECRET: "two-hosts-app-secret-0123456789-abcdef",
  };
}

/** The terms of `lease` a host's log says it took. */
function termsTaken(host: RunningGateway, lease: string): number[] {
  return host.output.flatMap((line) => {
    try {
      const entry = JSON.parse(line);
      return entry.msg === "lease taken" && entry.lease === lease ? [Number(entry.term)] : [];
    } catch {
      return [];
    }
  });
}

Deno.test({
  name: "two hosts on one PostgreSQL keep one rate limit: at most 30 of 50 pay-ins in a minute",
  ignore: skipReason !== undefined,
  async fn() {
    const cluster = await createCluster();
    const dirs = [await Deno.makeTempDir(), await Deno.makeTempDir()];
    const hosts: RunningGateway[] = [];
    try {
      for (const dir of dirs) {
        hosts.push(await startGateway(hostEnv(dir, cluster.url), 60_000));
      }
      const { key } = await approvedMerchant(hosts[0].url, ADMIN_TOKEN, "Two hosts");
      const create = (i: number) =>
        fetch(`${hosts[i % 2].url}/v1/payments`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ amount: "10", externalRef: `two-hosts-${i}` }),
        }).then(async (res) => ({ status: res.status, body: await res.json() }));
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => create(i)));
      const seen = answers.map((a) => `${a.status} ${a.body.error?.code ?? ""}`);
      const created = answers.filter((a) => a.status === 201);
      const limited = answers.filter((a) => a.status === 429);
      assert(created.length <= 30, `${created.length} created: the limit is 30 a minute across hosts`);
      assertEquals(created.length + limited.length, 50, seen.join(", "));
      assert(limited.every((a) => a.body.error.code === "RATE_LIMIT_EXCEEDED"));
      // Both hosts served some: the limit is shared, not one host doing all the work.
      const servedBy = new Set(
        answers.map((a, i) => a.status === 201 ? i % 2 : -1).filter((h) => h >= 0),
      );
      assertEquals(servedBy.size, 2);
    } finally {
      for (const host of hosts) await host.stop();
      await cluster.destroy();
      for (const dir of dirs) await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "two hosts on one PostgreSQL: one chain scanner at a time; a killed leader is replaced within seconds",
  ignore: skipReason !== undefined,
  async fn() {
    const cluster = await createCluster();
    const dirs = [await Deno.makeTempDir(), await Deno.makeTempDir()];
    const hosts: RunningGateway[] = [];
    try {
      for (const dir of dirs) hosts.push(await startGateway(hostEnv(dir, cluster.url), 60_000));
      const leader = await until("a scanner leader", () => {
        const holding = hosts.filter((h) => termsTaken(h, "tron-scanner").length > 0);
        return Promise.resolve(holding.length > 0 ? holding : undefined);
      });
      // Several seconds of ticks later, still one: the other stands by.
      await new Promise((r) => setTimeout(r, 6_000));
      const holding = hosts.filter((h) => termsTaken(h, "tron-scanner").length > 0);
      assertEquals(holding.length, 1, "exactly one host took the scanner's lease");
      const [first] = leader;
      const other = hosts.find((h) => h !== first)!;
      const killedAt = Date.now();
      first.process.kill("SIGKILL");
      await first.process.status;
      const terms = await until("the standby takes over", () => {
        const taken = termsTaken(other, "tron-scanner");
        return Promise.resolve(taken.length ? taken : undefined);
      }, 40_000);
      const seconds = (Date.now() - killedAt) / 1000;
      assert(seconds < 25, `taken over after ${seconds} s`);
      assert(terms[0] > termsTaken(first, "tron-scanner")[0], "a new holder starts a new term");
    } finally {
      for (const host of hosts) await host.stop();
      await cluster.destroy();
      for (const dir of dirs) await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
