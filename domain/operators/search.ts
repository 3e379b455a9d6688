// What an operator finds: merchants by id or name (with status and KYB filters), and any pay-in, payout,
// withdrawal, conversion, bulk item or sweep by its id, transaction hash, externalRef, provider
// reference, customer e-mail or phone, recipient or deposit address; a refund or dispute by its id, its
// provider reference or case, or its pay-in's id; a bulk batch by its id. One domain for the API and the page.
import { findRecords, type FoundRow, listMerchantRows } from "../../db/operator_search.ts";
import type { MerchantRow } from "../../db/merchants.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { formatAmount } from "../money.ts";

export const SEARCH_LIMIT = 50;

export type FoundRecord = {
  type: FoundRow["type"];
  id: string;
  /** A bulk item's batch, whose screen shows the item; null for every other type. */
  batchId: string | null;
  merchantId: string | null;
  mode: "live" | "sandbox" | null;
  status: string;
  amount: string;
  currency: string;
  createdAt: string;
  /** Which field matched: id, txHash, externalRef, providerRef, customerEmail, customerPhone, destination... */
  matched: string;
};

/** The forms a phone number may be stored in: as typed, and E.164 with or without its "+". */
function phoneForms(q: string): string[] {
  const digits = q.replace(/[\s().-]/g, "");
  if (!/^\+?\d{8,15}$/.test(digits)) return [];
  const bare = digits.replace(/^\+/, "");
  return [`+${bare}`, bare];
}

export async function searchRecords(deps: Pick<Deps, "db">, query: string): Promise<FoundRecord[]> {
  const q = query.trim();
  if (q.length < 3) {
    throw new AppError("VALIDATION_ERROR", "Search for at least 3 characters", {
      details: [{ field: "q", reason: "at least 3 characters" }],
    });
  }
  const rows = await findRecords(deps.db, q, phoneForms(q), SEARCH_LIMIT);
  return rows.map((r) => ({
    type: r.type,
    id: r.id,
    batchId: r.batch_id,
    merchantId: r.merchant_id,
    mode: r.is_sandbox === null ? null : r.is_sandbox ? "sandbox" : "live",
    status: r.status,
    amount: formatAmount(r.amount, r.currency === "XOF" ? "XOF" : "USDT_TRC20"),
    currency: r.currency,
    createdAt: r.created_at.toISOString(),
    matched: r.matched,
  }));
}

function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function listMerchants(
  deps: Pick<Deps, "db">,
  f: { q?: string; status?: string; kybStatus?: string; page: number; limit: number },
): Promise<{ rows: MerchantRow[]; total: number }> {
  const q = f.q?.trim() || null;
  return await listMerchantRows(deps.db, {
    q,
    pattern: q ? likePattern(q) : null,
    status: f.status ?? null,
    kybStatus: f.kybStatus ?? null,
    limit: f.limit,
    offset: (f.page - 1) * f.limit,
  });
}
