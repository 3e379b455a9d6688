// The paylink lifecycle the specification leaves open ("ACTIVE on creation"), as a table of allowed moves.
// ACTIVE: on sale. INACTIVE: switched off by the merchant. EXPIRED: past expiresAt. DEPLETED: maxUses
// reached, or (with autoDisableOnDepletion) nothing left for sale (every product tracks stock and has none).
import { AppError } from "../errors.ts";

export const PAYLINK_STATUSES = ["ACTIVE", "INACTIVE", "EXPIRED", "DEPLETED"] as const;
export type PaylinkStatus = typeof PAYLINK_STATUSES[number];

/** Who moves: `merchant` (PATCH status), `clock` (expiresAt passed), `stock` (uses or stock ran out or came back). */
export type PaylinkTrigger = "merchant" | "clock" | "stock";

export const PAYLINK_TRANSITIONS: Record<PaylinkStatus, ReadonlyArray<[PaylinkTrigger, PaylinkStatus]>> = {
  ACTIVE: [["merchant", "INACTIVE"], ["clock", "EXPIRED"], ["stock", "DEPLETED"]],
  INACTIVE: [["merchant", "ACTIVE"], ["clock", "EXPIRED"]],
  // Back to ACTIVE when the merchant moves expiresAt into the future (checked by the caller).
  EXPIRED: [["merchant", "ACTIVE"], ["merchant", "INACTIVE"]],
  // Back to ACTIVE when a released order or the merchant (more stock, a higher maxUses) frees a place.
  DEPLETED: [["stock", "ACTIVE"], ["merchant", "ACTIVE"], ["merchant", "INACTIVE"], ["clock", "EXPIRED"]],
};

export function canMovePaylink(from: PaylinkStatus, to: PaylinkStatus, by: PaylinkTrigger): boolean {
  return from === to || PAYLINK_TRANSITIONS[from].some(([t, s]) => t === by && s === to);
}

export function assertPaylinkMove(from: PaylinkStatus, to: PaylinkStatus, by: PaylinkTrigger): void {
  if (!canMovePaylink(from, to, by)) {
    throw new AppError("INVALID_STATE", `A paylink in ${from} cannot become ${to}`);
  }
}

/**
 * The status a paylink really has at `now`: one stored ACTIVE, INACTIVE or DEPLETED whose expiresAt has
 * passed reads EXPIRED (the clock's move needs no job to be visible).
 */
export function effectiveStatus(
  row: { status: PaylinkStatus; expires_at: Date | null },
  now: Date,
): PaylinkStatus {
  if (row.status !== "EXPIRED" && row.expires_at && row.expires_at.getTime() <= now.getTime()) {
    return "EXPIRED";
  }
  return row.status;
}
