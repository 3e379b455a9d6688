// The address whitelist: the only TRON addresses a merchant's USDT may leave to. Adding is instant, use
// waits 24 hours (except for API-key withdrawals, as the specification's change record says), and
// nothing is ever removed, so a stolen key cannot quietly swap a recipient and erase the trace.
import * as store from "../../db/whitelist.ts";
import type { WhitelistRow } from "../../db/whitelist.ts";
import { isTronAddress } from "../../rails/tron/address.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isWellFormedId, newId } from "../ids.ts";

export const USAGE_CONTEXTS = ["WITHDRAWAL", "PAYOUT"] as const;
export type UsageContext = typeof USAGE_CONTEXTS[number];
export const WHITELIST_COOLDOWN_MS = 24 * 60 * 60 * 1000;
export const BULK_MAX = 500;

type Scope = { merchantId: string; isSandbox: boolean };
type Via = "API_KEY" | "DASHBOARD";

export type WhitelistEntry = {
  id: string;
  currency: "USDT_TRC20";
  chain: "TRON";
  address: string;
  label: string | null;
  usageContexts: UsageContext[];
  isPrimary: boolean;
  availableAt: string;
  createdAt: string;
  updatedAt: string;
};

export function entryView(row: WhitelistRow): WhitelistEntry {
  return {
    id: row.id,
    currency: "USDT_TRC20",
    chain: "TRON",
    address: row.address,
    label: row.label,
    usageContexts: row.usage_contexts as UsageContext[],
    isPrimary: row.is_primary,
    availableAt: new Date(row.available_at).toISOString(),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** Contexts arrive as plain strings so an unknown one is INVALID_CONTEXT, as the catalogue says. */
export function parseContexts(
  given: readonly string[] | undefined,
  fallback: UsageContext[],
): UsageContext[] {
  if (given === undefined) return fallback;
  if (given.length === 0) throw new AppError("INVALID_CONTEXT", "usageContexts needs at least one context");
  const bad = given.filter((c) => !(USAGE_CONTEXTS as readonly string[]).includes(c));
  if (bad.length > 0) {
    throw new AppError("INVALID_CONTEXT", `Unknown usage context; allowed: ${USAGE_CONTEXTS.join(", ")}`, {
      details: [{ field: "usageContexts", reason: `not a usage context: ${bad.slice(0, 3).join(", ")}` }],
    });
  }
  return [...new Set(given as UsageContext[])].sort();
}

function assertAddress(address: string): void {
  if (!isTronAddress(address)) {
    throw new AppError("INVALID_ADDRESS", "TRON address malformed (T followed by 33 base58 characters)");
  }
}

function newEntry(deps: Pick<Deps, "clock">, scope: Scope, e: {
  address: string;
  label?: string | null;
  contexts: UsageContext[];
  via: Via;
}): store.NewWhitelistEntry {
  const now = deps.clock.now();
  return {
    id: newId("wla", now.getTime()),
    ...scope,
    address: e.address,
    label: e.label ?? null,
    usageContexts: e.contexts,
    addedVia: e.via,
    now,
    availableAt: new Date(now.getTime() + WHITELIST_COOLDOWN_MS),
  };
}

/** Adds one address, or merges contexts into the existing entry (which keeps its label and its wait). */
export async function addWhitelistEntry(
  deps: Pick<Deps, "db" | "clock">,
  input: Scope & { address: string; label?: string; usageContexts?: string[]; via: Via },
): Promise<{ entry: WhitelistEntry; created: boolean }> {
  assertAddress(input.address);
  const contexts = parseContexts(input.usageContexts, ["WITHDRAWAL"]);
  const [row] = await store.upsertEntries(deps.db, [
    newEntry(deps, input, { address: input.address, label: input.label, contexts, via: input.via }),
  ]);
  const entry = await store.findEntry(deps.db, input, row.id);
  return { entry: entryView(entry!), created: row.inserted };
}

export type BulkOutcome = {
  added: WhitelistEntry[];
  alreadyExists: WhitelistEntry[];
  invalid: Array<{ address: string; label: string | null; reason: string }>;
};

/** Adds up to 500 addresses in one statement; bad ones are reported, never fail the others. */
export async function addWhitelistEntries(
  deps: Pick<Deps, "db" | "clock">,
  input: Scope & {
    addresses: Array<{ address: string; label?: string }>;
    usageContexts?: string[];
    via: Via;
  },
): Promise<BulkOutcome> {
  if (input.addresses.length === 0 || input.addresses.length > BULK_MAX) {
    throw new AppError("WHITELIST_VALIDATION_FAILED", `addresses must hold 1 to ${BULK_MAX} entries`, {
      details: [{ field: "addresses", reason: `1 to ${BULK_MAX} entries` }],
    });
  }
  const contexts = parseContexts(input.usageContexts, ["WITHDRAWAL"]);
  const invalid: BulkOutcome["invalid"] = [];
  const fresh = new Map<string, store.NewWhitelistEntry>();
  const repeated: string[] = [];
  for (const a of input.addresses) {
    if (!isTronAddress(a.address)) {
      invalid.push({ address: a.address, label: a.label ?? null, reason: "INVALID_ADDRESS" });
    } else if (fresh.has(a.address)) {
      repeated.push(a.address); // named twice in one call: the second is already there by then
    } else {
      fresh.set(
        a.address,
        newEntry(deps, input, { address: a.address, label: a.label, contexts, via: input.via }),
      );
    }
  }
  const rows = await store.upsertEntries(deps.db, [...fresh.values()]);
  const views = new Map(
    (await store.findEntriesByIds(deps.db, input, rows.map((r) => r.id))).map((r) => [r.id, entryView(r)]),
  );
  const byAddress = new Map(rows.map((r) => [r.address, r]));
  return {
    added: rows.filter((r) => r.inserted).map((r) => views.get(r.id)!),
    alreadyExists: [
      ...rows.filter((r) => !r.inserted).map((r) => views.get(r.id)!),
      ...repeated.map((address) => views.get(byAddress.get(address)!.id)!),
    ],
    invalid,
  };
}

/** Replaces the contexts; the 24-hour wait is not restarted (the address itself did not change). */
/** Ids are `wla_` and Crockford base32: anything else cannot exist, so it is not looked up. */
const isEntryId = (id: string) => isWellFormedId("wla", id);

function assertEntryId(id: string): void {
  if (!isEntryId(id)) throw new AppError("NOT_FOUND", "No whitelist entry with this id");
}

export async function replaceWhitelistContexts(
  deps: Pick<Deps, "db" | "clock">,
  input: Scope & { id: string; usageContexts: string[] },
): Promise<WhitelistEntry> {
  assertEntryId(input.id);
  const contexts = parseContexts(input.usageContexts, []);
  const changed = await store.replaceContexts(deps.db, input, {
    id: input.id,
    usageContexts: contexts,
    now: deps.clock.now(),
  });
  if (!changed) throw new AppError("NOT_FOUND", "No whitelist entry with this id");
  return entryView((await store.findEntry(deps.db, input, input.id))!);
}

export async function listWhitelist(
  deps: Pick<Deps, "db">,
  input: Scope & { usageContext?: string; page: number; limit: number },
): Promise<{ items: WhitelistEntry[]; total: number }> {
  if (input.usageContext !== undefined) parseContexts([input.usageContext], []);
  const { rows, total } = await store.listEntries(deps.db, input, {
    usageContext: input.usageContext,
    limit: input.limit,
    offset: (input.page - 1) * input.limit,
  });
  return { items: rows.map(entryView), total };
}

/** Saved recipients cannot be deleted: own entries answer 410, others' or unknown ones 404. */
export async function removeWhitelistEntry(
  deps: Pick<Deps, "db">,
  input: Scope & { id: string },
): Promise<never> {
  assertEntryId(input.id);
  const entry = await store.findEntry(deps.db, input, input.id);
  if (!entry) throw new AppError("NOT_FOUND", "No whitelist entry with this id");
  throw new AppError("ADDRESS_REMOVAL_DISABLED", "Whitelisted addresses cannot be removed");
}

/**
 * The check every payout and withdrawal runs on its destination: whitelisted for the context, and past
 * its 24-hour wait unless the request came with an API key (exempt, per the specification).
 */
export function assertUsableDestination(
  entry: WhitelistRow | undefined,
  input: { context: UsageContext; via: Via; now: Date },
): WhitelistRow {
  if (!entry || !entry.usage_contexts.includes(input.context)) {
    throw new AppError("ADDRESS_NOT_WHITELISTED", `Destination is not whitelisted for ${input.context}`);
  }
  if (input.via === "DASHBOARD" && input.now < new Date(entry.available_at)) {
    throw new AppError(
      "ADDRESS_COOLDOWN",
      `Address usable from ${new Date(entry.available_at).toISOString()} (24-hour wait after adding)`,
    );
  }
  return entry;
}

/** Resolves a payout destination by address (payouts name the address itself). */
export async function resolvePayoutDestination(
  deps: Pick<Deps, "db" | "clock">,
  input: Scope & { address: string; via: Via },
): Promise<WhitelistRow> {
  assertAddress(input.address);
  const entry = await store.findEntryByAddress(deps.db, input, input.address);
  return assertUsableDestination(entry, { context: "PAYOUT", via: input.via, now: deps.clock.now() });
}

/** Resolves a withdrawal destination: the named entry, or the primary one (ADDRESS_NOT_FOUND, NO_WHITELISTED_ADDRESS). */
export async function resolveWithdrawalDestination(
  deps: Pick<Deps, "db" | "clock">,
  input: Scope & { whitelistAddressId?: string; via: Via },
): Promise<WhitelistRow> {
  if (input.whitelistAddressId && !isEntryId(input.whitelistAddressId)) {
    throw new AppError("ADDRESS_NOT_FOUND", "whitelistAddressId matches no saved address");
  }
  const entry = input.whitelistAddressId
    ? await store.findEntry(deps.db, input, input.whitelistAddressId)
    : await store.findPrimaryWithdrawalEntry(deps.db, input);
  if (!entry) {
    if (input.whitelistAddressId) {
      throw new AppError("ADDRESS_NOT_FOUND", "whitelistAddressId matches no saved address");
    }
    throw new AppError(
      "NO_WHITELISTED_ADDRESS",
      "Whitelist a WITHDRAWAL address first (POST /v1/wallets/whitelist)",
    );
  }
  return assertUsableDestination(entry, { context: "WITHDRAWAL", via: input.via, now: deps.clock.now() });
}
