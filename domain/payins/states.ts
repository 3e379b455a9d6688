// The pay-in state machine as a table of allowed moves (specification, Part 1, "States and transitions").
import { AppError } from "../errors.ts";

export const PAYIN_STATUSES = [
  "AWAITING_PAYMENT",
  "PENDING",
  "CONFIRMING",
  "CONFIRMED",
  "UNDERPAID",
  "OVERPAID",
  "EXPIRED",
  "FAILED",
] as const;
export type PayinStatus = typeof PAYIN_STATUSES[number];

const AWAITING_EXITS: PayinStatus[] = [
  "CONFIRMING",
  "CONFIRMED",
  "EXPIRED",
  "UNDERPAID",
  "OVERPAID",
  "FAILED",
];

export const PAYIN_TRANSITIONS: Record<PayinStatus, readonly PayinStatus[]> = {
  AWAITING_PAYMENT: AWAITING_EXITS,
  PENDING: AWAITING_EXITS,
  // Back to AWAITING_PAYMENT (or EXPIRED) only when a reorg removed every transfer seen before settlement.
  CONFIRMING: ["CONFIRMED", "UNDERPAID", "OVERPAID", "AWAITING_PAYMENT", "EXPIRED"],
  CONFIRMED: [],
  UNDERPAID: [],
  OVERPAID: [],
  EXPIRED: [],
  FAILED: [],
};

export function canMove(from: PayinStatus, to: PayinStatus): boolean {
  return PAYIN_TRANSITIONS[from]?.includes(to) ?? false;
}

/** An illegal move is a typed error naming the current state, never a silent write. */
export function assertMove(from: PayinStatus, to: PayinStatus): void {
  if (!canMove(from, to)) {
    throw new AppError("INVALID_TRANSACTION_STATUS", `Pay-in is ${from}; it cannot become ${to}`);
  }
}

export function isFinal(status: PayinStatus): boolean {
  return PAYIN_TRANSITIONS[status].length === 0;
}
