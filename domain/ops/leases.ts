// Leadership across hosts: work that one process should do at a time (the chain scanner, each cron) is
// done by whoever holds its lease in PostgreSQL, the place every host meets. A holder renews on each run;
// when it dies its lease expires and the next process to ask takes it with a new term. The work itself
// stays idempotent, so a holder that stalls past its lease while another takes over costs time, not money.
import { takeLease } from "../../db/leases.ts";
import type { Deps } from "../deps.ts";
import { randomToken } from "../ids.ts";

/** This process, as lease holders are told apart (a host may run several). */
export const PROCESS_HOLDER = `${hostName()}:${Deno.pid}:${randomToken(6)}`;

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
  deps: Pick<Deps, "db" | "log">,
  name: string,
  ttlMs: number,
  holder = PROCESS_HOLDER,
): Promise<boolean> {
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
