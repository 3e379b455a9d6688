// Leadership across hosts: work that one process should do at a time (the chain scanner, each cron) is
// done by whoever holds its lease in PostgreSQL, the place every host meets. A holder renews on each run;
// when it dies its lease expires and the next process to ask takes it with a new term. The work itself
// stays idempotent, so a holder that stalls past its lease while another takes over costs time, not money.
import { takeLease } from "../../db/leases.ts";
import type { Deps } from "../deps.ts";

/**
 * A holder is a host and its data directory: a gateway restarted after a crash takes its own lease back at
 * once instead of waiting for it to expire; processes sharing one data directory share one KV file, whose
 * scanner loop key already keeps them to one loop.
 */
export function holderOf(config: Pick<Deps["config"], "dataDir">): string {
  return `${hostName()}:${config.dataDir}`;
}

function hostName(): string {
  try {
    return Deno.hostname();
  } catch {
    return "host"; // no --allow-sys, or a platform that does not say
  }
}

const terms = new Map<string, number>();

/** True when this process holds (or just took) the lease `name`; logs each new term it starts. */
export async function holdsLease(
  deps: Pick<Deps, "db" | "log" | "config">,
  name: string,
  ttlMs: number,
  holder = holderOf(deps.config),
): Promise<boolean> {
  // Embedded PGlite belongs to one process: it is always the leader.
  if (deps.db.driver === "pglite") return true;
  const term = await takeLease(deps.db, name, holder, ttlMs);
  if (term === null) {
    terms.delete(`${holder} ${name}`);
    return false;
  }
  if (terms.get(`${holder} ${name}`) !== term) {
    terms.set(`${holder} ${name}`, term);
    deps.log.info("lease taken", { lease: name, term, holder });
  }
  return true;
}
