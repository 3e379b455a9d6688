// Fiat destinations: where a merchant's XOF withdrawals go, a mobile money number (MOMO) or a bank
// account (BANK). Checked at registration (the spec's missing-field codes, E.164 and the operator of the
// number, the IBAN's mod-97 checksum), usable once a cooldown has passed since registration or since the
// payment details changed (the specification's 24 hours; `config.fiat.destinationCooldownSeconds`, lower
// only in development), exactly one primary per merchant and mode, soft-deleted (accepted withdrawals keep
// their copy).
import {
  clearPrimary,
  countFiatDestinations,
  type FiatDestinationRow,
  type FiatDetails,
  findFiatDestination,
  findPrimaryFiatDestination,
  insertFiatDestination,
  listFiatDestinations,
  lockMerchantDestinations,
  oldestFiatDestination,
  updateFiatDestination,
} from "../../db/fiat_destinations.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldProblem } from "../errors.ts";
import { isWellFormedId, newId } from "../ids.ts";
import {
  BANK_FIELDS,
  checkedDetails,
  type FiatDestinationInput,
  type FiatDestinationPatch,
  invalid,
  MOMO_FIELDS,
  text,
} from "./details.ts";

export type { FiatDestinationRow } from "../../db/fiat_destinations.ts";
export type { FiatDestinationInput, FiatDestinationPatch } from "./details.ts";
export { detailsRefusal, isValidIban, OPERATOR_CODES } from "./details.ts";

type Scope = { merchantId: string; isSandbox: boolean };
type DestDeps = Pick<Deps, "db" | "clock" | "log" | "config">;

/** When a destination registered or changed at `now` may first be used (config.fiat.destinationCooldownSeconds). */
function availableFrom(deps: Pick<Deps, "config">, now: Date): Date {
  return new Date(now.getTime() + deps.config.fiat.destinationCooldownSeconds * 1000);
}

export async function registerFiatDestination(
  deps: DestDeps,
  scope: Scope,
  input: FiatDestinationInput,
): Promise<FiatDestinationRow> {
  const details = checkedDetails(input.kind, input);
  const label = text("label", input.label ?? null, 100);
  const now = deps.clock.now();
  return await deps.db.tx(async (tx) => {
    await lockMerchantDestinations(tx, scope);
    // The first destination is the primary; asking for primary moves the flag here atomically.
    const first = (await countFiatDestinations(tx, scope)) === 0;
    const primary = first || input.isPrimary === true;
    if (primary && !first) await clearPrimary(tx, scope, now);
    return await insertFiatDestination(tx, {
      ...scope,
      id: newId("fdst", now.getTime()),
      kind: input.kind,
      label,
      isPrimary: primary,
      details,
      now,
      availableAt: availableFrom(deps, now),
    });
  });
}

export async function getFiatDestination(deps: Pick<Deps, "db">, scope: Scope, id: string) {
  const row = isWellFormedId("fdst", id) ? await findFiatDestination(deps.db, scope, id) : undefined;
  if (!row) throw new AppError("FIAT_DESTINATION_NOT_FOUND", "No fiat destination with this id");
  return row;
}

/**
 * Changes a destination. Label and primary flag change at once; new payment details are checked like at
 * registration and restart the cooldown. The kind never changes (register another one).
 */
export async function updateFiatDestinationOf(
  deps: DestDeps,
  scope: Scope,
  id: string,
  patch: FiatDestinationPatch,
): Promise<FiatDestinationRow> {
  const now = deps.clock.now();
  return await deps.db.tx(async (tx) => {
    await lockMerchantDestinations(tx, scope);
    const row = await getFiatDestination({ db: tx }, scope, id);
    const changes: Parameters<typeof updateFiatDestination>[2] = {};
    if (patch.label !== undefined) changes.label = text("label", patch.label, 100);
    const detailFields = [...MOMO_FIELDS, ...BANK_FIELDS].filter((f) => patch[f] !== undefined);
    if (detailFields.length > 0) {
      const merged: FiatDestinationPatch = row.kind === "MOMO"
        ? { momoOperator: row.momo_operator!, momoPhone: row.momo_phone!, ...patch }
        : {
          bankName: row.bank_name ?? undefined,
          bankAccountName: row.bank_account_name ?? undefined,
          // A new IBAN replaces an account number and the reverse: the one given wins.
          ...(patch.bankIban === undefined && patch.bankAccountNumber === undefined
            ? {
              bankIban: row.bank_iban ?? undefined,
              bankAccountNumber: row.bank_account_number ?? undefined,
            }
            : {}),
          bankCode: row.bank_code ?? undefined,
          ...patch,
        };
      delete merged.label;
      delete merged.isPrimary;
      const details = checkedDetails(row.kind, merged);
      const keys = Object.keys(details) as Array<keyof FiatDetails>;
      if (keys.some((k) => details[k] !== row[k])) {
        Object.assign(changes, details);
        changes.available_at = availableFrom(deps, now);
      }
    }
    if (patch.isPrimary === false && row.is_primary) {
      throw invalid(
        "isPrimary",
        "a merchant always has one primary destination: make another one primary instead",
      );
    }
    if (patch.isPrimary === true && !row.is_primary) {
      await clearPrimary(tx, scope, now);
      changes.is_primary = true;
    }
    return await updateFiatDestination(tx, row.id, changes, now);
  });
}

/**
 * Soft delete: the row stays for the withdrawals that name it (they carry a copy of its details and are
 * paid to it all the same). Deleting the primary makes the oldest remaining destination primary.
 */
export async function deleteFiatDestination(
  deps: DestDeps,
  scope: Scope,
  id: string,
): Promise<FiatDestinationRow> {
  const now = deps.clock.now();
  return await deps.db.tx(async (tx) => {
    await lockMerchantDestinations(tx, scope);
    const row = await getFiatDestination({ db: tx }, scope, id);
    const deleted = await updateFiatDestination(tx, row.id, { deleted_at: now, is_primary: false }, now);
    if (row.is_primary) {
      const next = await oldestFiatDestination(tx, scope);
      if (next) await updateFiatDestination(tx, next.id, { is_primary: true }, now);
    }
    return deleted;
  });
}

export async function listFiatDestinationsOf(
  deps: Pick<Deps, "db">,
  scope: Scope,
  q: { kind?: string; page: number; limit: number },
) {
  return await listFiatDestinations(deps.db, scope, {
    kind: q.kind,
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  });
}

/**
 * The destination an XOF withdrawal pays: the one named, or the primary. None registered at all:
 * FIAT_DESTINATION_REQUIRED; an unknown id: FIAT_DESTINATION_NOT_FOUND; still in its cooldown:
 * BENEFICIARY_COOLDOWN.
 */
export async function resolveFiatDestination(
  deps: Pick<Deps, "db" | "clock">,
  scope: Scope,
  id: string | undefined,
): Promise<FiatDestinationRow> {
  let row: FiatDestinationRow | undefined;
  if (id !== undefined) row = await getFiatDestination(deps, scope, id);
  else {
    row = await findPrimaryFiatDestination(deps.db, scope);
    if (!row) {
      throw new AppError(
        "FIAT_DESTINATION_REQUIRED",
        "Register a fiat destination (POST /v1/merchants/fiat-destinations) before withdrawing XOF",
      );
    }
  }
  if (row.available_at > deps.clock.now()) {
    throw new AppError(
      "BENEFICIARY_COOLDOWN",
      `This fiat destination can be used from ${row.available_at.toISOString()} (its cooldown after it was registered or changed)`,
    );
  }
  return row;
}

/** What the API shows (the specification's request fields, plus the record's own). */
export function fiatDestinationView(row: FiatDestinationRow) {
  return {
    id: row.id,
    kind: row.kind,
    label: row.label,
    isPrimary: row.is_primary,
    momoOperator: row.momo_operator,
    momoPhone: row.momo_phone,
    bankName: row.bank_name,
    bankAccountName: row.bank_account_name,
    bankIban: row.bank_iban,
    bankAccountNumber: row.bank_account_number,
    bankCode: row.bank_code,
    isSandbox: row.is_sandbox,
    availableAt: new Date(row.available_at).toISOString(),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    deletedAt: row.deleted_at ? new Date(row.deleted_at).toISOString() : null,
  };
}

export type { FieldProblem };
