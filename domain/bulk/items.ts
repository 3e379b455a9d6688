// The rules every bulk item passes, whether it came as JSON or from a file: the recipient on the batch's
// rail (a whitelisted TRON address, or a Burkina Faso mobile money number whose prefix names a supported
// operator), the amount, the optional texts. Every bad item is reported with its line and field, so one
// answer lists everything a merchant must fix.
import { payoutWhitelisted } from "../../db/bulk.ts";
import { resolveOperator } from "../../rails/fiat/operators.ts";
import { isTronAddress } from "../../rails/tron/address.ts";
import { screenDestination } from "../money_out/aml.ts";
import type { Deps } from "../deps.ts";
import { AppError, type FieldProblem } from "../errors.ts";
import { effectiveFees } from "../fees.ts";
import { Decimal, DECIMAL_STRING, formatAmount, hasAtMostDecimals, roundFee } from "../money.ts";
import { MANUAL_APPROVAL_ABOVE, MINIMUM_OUT } from "../money_out/request.ts";

export const BULK_RAILS = ["USDT_TRC20", "MOBILE_MONEY"] as const;
export type BulkRail = typeof BULK_RAILS[number];
/** The rail of a batch or template that names none: USDT on TRON, the specification's original rail. */
export const DEFAULT_BULK_RAIL: BulkRail = "USDT_TRC20";

/** Items per batch (the specification's LIMIT_EXCEEDED_BULK_BATCH; its value is ours). */
export const MAX_ITEMS_PER_BATCH = 1000;
/** Mobile money disbursement bounds per item, in XOF. */
export const MOMO_MINIMUM = new Decimal(500);
export const MOMO_MAXIMUM = new Decimal(2_000_000);
export const MAX_NAME = 100;
export const MAX_REFERENCE = 128;
export const MAX_ADDRESS = 64;
export const MAX_AMOUNT_TEXT = 40;

export const RAIL_CURRENCY = { USDT_TRC20: "USDT_TRC20", MOBILE_MONEY: "XOF" } as const;

/** An item as given: every field is text (a spreadsheet cell already turned into text). */
export type RawItem = {
  /** Where it came from: a file line (header = 1), or the index in a JSON `items` array. */
  line?: number;
  field: (name: string) => string;
  walletAddress: string;
  amount: string;
  recipientName?: string | null;
  reference?: string | null;
};

export type CheckedItem = {
  walletAddress: string;
  operator: string | null;
  amount: string;
  fee: string;
  recipientName: string | null;
  reference: string | null;
};

type ItemDeps = Pick<Deps, "db" | "queue" | "clock" | "config" | "log">;
type Caller = { merchantId: string; isSandbox: boolean; feeSchedule: Record<string, string> | null };

/** Text a person may type: no control characters, no lone surrogate. */
function plainText(value: string): boolean {
  // deno-lint-ignore no-control-regex -- control characters are what is refused
  return value.isWellFormed() && !/[\u0000-\u001f\u007f]/.test(value);
}

/** A Burkina Faso number as spreadsheets keep it: "+226…", or "226…" when the cell dropped the "+". */
export function normalizePhone(value: string): string {
  return /^226\d{8}$/.test(value) ? `+${value}` : value;
}

function checkAmount(rail: BulkRail, text: string): { amount?: Decimal; reason?: string } {
  const decimals = rail === "USDT_TRC20" ? 6 : 0;
  if (text.length > MAX_AMOUNT_TEXT || !DECIMAL_STRING.test(text) || !hasAtMostDecimals(text, decimals)) {
    return {
      reason: rail === "USDT_TRC20"
        ? "a decimal number of USDT with at most 6 decimals"
        : "a whole number of XOF",
    };
  }
  const amount = new Decimal(text);
  if (rail === "USDT_TRC20") {
    if (amount.lessThan(MINIMUM_OUT)) return { reason: `at least ${MINIMUM_OUT.toFixed(2)} USDT` };
    if (amount.greaterThan(MANUAL_APPROVAL_ABOVE)) {
      return {
        reason: `at most ${MANUAL_APPROVAL_ABOVE.toFixed(0)} USDT per item (larger: a single payout)`,
      };
    }
  } else {
    if (amount.lessThan(MOMO_MINIMUM)) return { reason: `at least ${MOMO_MINIMUM.toFixed(0)} XOF` };
    if (amount.greaterThan(MOMO_MAXIMUM)) {
      return { reason: `at most ${MOMO_MAXIMUM.toFixed(0)} XOF per item` };
    }
  }
  return { amount };
}

export function itemFee(rail: BulkRail, amount: Decimal, feeSchedule: Caller["feeSchedule"]): Decimal {
  const fees = effectiveFees(feeSchedule);
  if (rail === "USDT_TRC20") return new Decimal(fees.payoutFlat);
  return roundFee(amount.times(fees.mobileMoneyPercent).dividedBy(100), "XOF");
}

/**
 * Checks every item; answers them ready to store, or throws IMPORT_VALIDATION_FAILED listing every
 * problem (line and field). USDT destinations must be whitelisted for PAYOUT and clear AML screening.
 */
export async function checkItems(
  deps: ItemDeps,
  caller: Caller,
  rail: BulkRail,
  raw: RawItem[],
): Promise<CheckedItem[]> {
  const problems: FieldProblem[] = [];
  const problem = (item: RawItem, name: string, reason: string) =>
    problems.push({
      field: item.field(name),
      reason: item.line !== undefined ? `line ${item.line}: ${reason}` : reason,
      ...(item.line !== undefined ? { line: item.line } : {}),
    });
  const checked: Array<CheckedItem | undefined> = raw.map((item) => {
    let ok = true;
    const bad = (name: string, reason: string) => {
      ok = false;
      problem(item, name, reason);
    };
    const address = rail === "MOBILE_MONEY" ? normalizePhone(item.walletAddress) : item.walletAddress;
    let operator: string | null = null;
    if (address.length === 0) bad("walletAddress", "required");
    else if (address.length > MAX_ADDRESS || !plainText(address)) {
      bad("walletAddress", `at most ${MAX_ADDRESS} plain characters`);
    } else if (rail === "USDT_TRC20" && !isTronAddress(address)) {
      bad("walletAddress", "not a TRON address (T followed by 33 base58 characters)");
    } else if (rail === "MOBILE_MONEY") {
      operator = resolveOperator(address);
      if (!/^\+226\d{8}$/.test(address)) {
        bad("walletAddress", "a Burkina Faso number in E.164: +226 then 8 digits");
      } else if (!operator) bad("walletAddress", "no supported mobile money operator for this prefix");
    }
    const { amount, reason } = checkAmount(rail, item.amount);
    if (!amount) bad("amount", item.amount === "" ? "required" : reason!);
    for (const [name, max] of [["recipientName", MAX_NAME], ["reference", MAX_REFERENCE]] as const) {
      const value = item[name];
      if (value && (value.length > max || !plainText(value))) {
        bad(name, `at most ${max} plain characters`);
      }
    }
    if (!ok || !amount) return undefined;
    const currency = RAIL_CURRENCY[rail];
    return {
      walletAddress: address,
      operator,
      amount: formatAmount(amount, currency),
      fee: formatAmount(itemFee(rail, amount, caller.feeSchedule), currency),
      recipientName: item.recipientName || null,
      reference: item.reference || null,
    };
  });
  if (rail === "USDT_TRC20") await checkDestinations(deps, caller, raw, checked, problem);
  if (problems.length > 0) {
    throw new AppError(
      "IMPORT_VALIDATION_FAILED",
      `${problems.length} problem(s): ${
        problems.slice(0, 3).map((p) => `${p.field}: ${p.reason}`).join("; ")
      }`,
      { details: problems },
    );
  }
  return checked as CheckedItem[];
}

/** Whitelist (PAYOUT) and AML screening of the well-formed destinations, each address once. */
async function checkDestinations(
  deps: ItemDeps,
  caller: Caller,
  raw: RawItem[],
  checked: Array<CheckedItem | undefined>,
  problem: (item: RawItem, name: string, reason: string) => void,
) {
  const scope = { merchantId: caller.merchantId, isSandbox: caller.isSandbox };
  const addresses = [...new Set(checked.flatMap((c) => c ? [c.walletAddress] : []))];
  const listed = await payoutWhitelisted(deps.db, scope, addresses);
  const blocked = new Set<string>();
  for (const address of addresses.filter((a) => listed.has(a))) {
    try {
      await screenDestination(deps, { ...scope, address, context: "PAYOUT", report: false });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== "AML_BLOCKED") throw err; // unavailable: fail closed
      blocked.add(address);
    }
  }
  checked.forEach((c, i) => {
    if (!c) return;
    if (!listed.has(c.walletAddress)) {
      problem(raw[i], "walletAddress", "not whitelisted for PAYOUT (POST /v1/wallets/whitelist)");
    } else if (blocked.has(c.walletAddress)) {
      problem(raw[i], "walletAddress", "refused by AML screening");
    }
  });
}
