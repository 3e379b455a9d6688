// Reads of payouts and withdrawals for their merchant, in the merchant's mode only.
import { findOutbound, listOutbound, type OutboundRow } from "../../db/outbound.ts";
import type { Caller } from "../auth.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isWellFormedId } from "../ids.ts";
import type { OutboundKind } from "./states.ts";

const PREFIX = { PAYOUT: "pout", WITHDRAWAL: "wdr" } as const satisfies Record<OutboundKind, string>;

export async function getOutbound(
  deps: Pick<Deps, "db">,
  caller: Pick<Caller, "merchantId" | "isSandbox">,
  kind: OutboundKind,
  id: string,
): Promise<OutboundRow> {
  const row = isWellFormedId(PREFIX[kind], id)
    ? await findOutbound(deps.db, { ...caller, kind }, id)
    : undefined;
  if (!row) throw new AppError("NOT_FOUND", `No ${kind === "PAYOUT" ? "payout" : "withdrawal"} with this id`);
  return row;
}

export async function listOutboundOf(
  deps: Pick<Deps, "db">,
  caller: Pick<Caller, "merchantId" | "isSandbox">,
  kind: OutboundKind,
  q: { status?: string; page: number; limit: number },
): Promise<{ rows: OutboundRow[]; total: number }> {
  return await listOutbound(deps.db, { ...caller, kind }, {
    status: q.status,
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  });
}
