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
import { isE164, resolveOperator } from "../../rails/fiat/operators.ts";
import type { OperatorCode } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldProblem } from "../errors.ts";
import { isWellFormedId, newId } from "../ids.ts";

export type { FiatDestinationRow } from "../../db/fiat_destinations.ts";

export const OPERATOR_CODES: readonly OperatorCode[] = ["OPERATOR_A_BF", "OPERATOR_B_BF"];

type Scope = { merchantId: string; isSandbox: boolean };
type DestDeps = Pick<Deps, "db" | "clock" | "log" | "config">;

/** When a destination registered or changed at `now` may first be used (config.fiat.destinationCooldownSeconds). */
function availableFrom(deps: Pick<Deps, "config">, now: Date): Date {
  return new Date(now.getTime() + deps.config.fiat.destinationCooldownSeconds * 1000);
}

export type FiatDestinationInput = {
  kind: "MOMO" | "BANK";
  label?: string | null;
  isPrimary?: boolean;
  momoOperator?: string;
  momoPhone?: string;
  bankName?: string;
  bankAccountName?: string;
  bankIban?: string;
  bankAccountNumber?: string;
  bankCode?: string;
};

export type FiatDestinationPatch = Omit<Partial<FiatDestinationInput>, "kind">;

const MOMO_FIELDS = ["momoOperator", "momoPhone"] as const;
const BANK_FIELDS = ["bankName", "bankAccountName", "bankIban", "bankAccountNumber", "bankCode"] as const;

function invalid(field: string, reason: string): AppError {
  return new AppError("FIAT_DESTINATION_INVALID", `${field}: ${reason}`, { details: [{ field, reason }] });
}

/** ISO 13616: two letters, two check digits, up to 30 alphanumerics; the number mod 97 is 1. */
export function isValidIban(value: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(value)) return false;
  const moved = value.slice(4) + value.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const digits = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/** Spaces out, upper-case: "bf42 bf00 ..." and "BF42BF00..." are the same account. */
function compact(value: string): string {
  return value.replace(/[\s-]/g, "").toUpperCase();
}

function text(field: string, value: string | undefined | null, max = 140): string | null {
  if (value === undefined || value === null) return null;
  const v = value.trim();
  if (v === "") return null;
  // deno-lint-ignore no-control-regex -- control characters are what is refused
  if (v.length > max || /[\u0000-\u001f\u007f]/.test(v)) {
    throw invalid(field, `at most ${max} printable characters`);
  }
  return v;
}

function checkMomo(
  operator: string | null,
  phone: string | null,
): Pick<FiatDetails, "momo_operator" | "momo_phone"> {
  const missing = [!operator && "momoOperator", !phone && "momoPhone"].filter(Boolean) as string[];
  if (missing.length > 0) {
    throw new AppError(
      "MISSING_MOBILE_MONEY_FIELDS",
      `Mobile money destinations need ${missing.join(" and ")}`,
      {
        details: missing.map((field) => ({ field, reason: "required for MOMO" })),
      },
    );
  }
  if (!OPERATOR_CODES.includes(operator as OperatorCode)) {
    throw new AppError("OPERATOR_NOT_SUPPORTED", `momoOperator must be one of ${OPERATOR_CODES.join(", ")}`, {
      details: [{ field: "momoOperator", reason: `one of ${OPERATOR_CODES.join(", ")}` }],
    });
  }
  if (!isE164(phone!)) {
    throw invalid("momoPhone", "an E.164 number: + then the country code and number, no spaces");
  }
  const owner = resolveOperator(phone!);
  if (owner === null) {
    throw new AppError("OPERATOR_NOT_SUPPORTED", "momoPhone is not a Burkina Faso mobile money number", {
      details: [{ field: "momoPhone", reason: "a Burkina Faso number (+226) of a supported operator" }],
    });
  }
  if (owner !== operator) throw invalid("momoPhone", `this number belongs to ${owner}, not ${operator}`);
  return { momo_operator: operator, momo_phone: phone };
}

function checkBank(b: {
  name: string | null;
  accountName: string | null;
  iban: string | null;
  accountNumber: string | null;
  code: string | null;
}): Omit<FiatDetails, "momo_operator" | "momo_phone"> {
  const missing: string[] = [];
  if (!b.name) missing.push("bankName");
  if (!b.accountName) missing.push("bankAccountName");
  if (!b.iban && !b.accountNumber) missing.push("bankIban or bankAccountNumber");
  if (!b.iban && b.accountNumber && !b.code) missing.push("bankCode");
  if (missing.length > 0) {
    throw new AppError("MISSING_BANK_FIELDS", `Bank destinations need ${missing.join(", ")}`, {
      details: missing.map((field) => ({ field, reason: "required for BANK" })),
    });
  }
  if (b.iban && b.accountNumber) {
    throw invalid("bankAccountNumber", "give either bankIban or bankAccountNumber, not both");
  }
  if (b.iban && !isValidIban(b.iban)) {
    throw invalid("bankIban", "not a valid IBAN (format or mod-97 checksum)");
  }
  if (b.accountNumber && !/^[A-Z0-9]{5,34}$/.test(b.accountNumber)) {
    throw invalid("bankAccountNumber", "5 to 34 letters and digits");
  }
  if (b.code && !/^[A-Z0-9]{3,11}$/.test(b.code)) throw invalid("bankCode", "3 to 11 letters and digits");
  return {
    bank_name: b.name,
    bank_account_name: b.accountName,
    bank_iban: b.iban,
    bank_account_number: b.iban ? null : b.accountNumber,
    bank_code: b.code,
  };
}

const NO_MOMO = { momo_operator: null, momo_phone: null };
const NO_BANK = {
  bank_name: null,
  bank_account_name: null,
  bank_iban: null,
  bank_account_number: null,
  bank_code: null,
};

/** The stored details of a destination of `kind` from the given fields; throws the spec's codes. */
function checkedDetails(kind: "MOMO" | "BANK", input: FiatDestinationPatch): FiatDetails {
  const foreign = (kind === "MOMO" ? BANK_FIELDS : MOMO_FIELDS).filter((f) => input[f] !== undefined);
  if (foreign.length > 0) throw invalid(foreign[0], `not a field of a ${kind} destination`);
  if (kind === "MOMO") {
    const phone = input.momoPhone === undefined ? null : input.momoPhone.trim();
    return { ...checkMomo(input.momoOperator?.trim() || null, phone || null), ...NO_BANK };
  }
  const opt = (v: string | undefined) => (v === undefined || v.trim() === "" ? null : compact(v));
  return {
    ...NO_MOMO,
    ...checkBank({
      name: text("bankName", input.bankName),
      accountName: text("bankAccountName", input.bankAccountName),
      iban: opt(input.bankIban),
      accountNumber: opt(input.bankAccountNumber),
      code: opt(input.bankCode),
    }),
  };
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
