// POST /v1/providers/{simulator/}card/dispute-outcome-callback: the acquirer's outcome of a chargeback
// it notified before. Mapped onto the same state table and the same settle step as an operator's
// decision (WON: resolve, LOST: reject, ESCALATED: escalate), exactly once: a replayed notification, or
// an outcome the dispute already carries from this provider, is CONFLICT and changes nothing. A dispute
// already closed by an operator (or the merchant, or the deadline) is refused (INVALID_TRANSACTION_STATUS,
// cause DISPUTE_ALREADY_DECIDED) and logged for review: the two decisions disagree, a person must look.
import * as disputesDb from "../../db/disputes.ts";
import { findPayin, recordNotificationOnce } from "../../db/payins.ts";
import { type DisputeOutcomeNotice, parseDisputeOutcomeBody } from "../../rails/fiat/dispute_outcomes.ts";
import { ProviderError } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { fiatProvidersFor } from "../payins/create_fiat.ts";
import { authenticateProviderCallback } from "../providers/callback_auth.ts";
import { settleDispute } from "./settle.ts";
import { isClosed } from "./states.ts";

/** Who the dispute records as its decider when the acquirer decided. */
export const PROVIDER_DECIDER = "provider";

const MOVE = {
  WON: { action: "resolve", outcome: "PROVIDER_WON" },
  LOST: { action: "reject", outcome: "PROVIDER_LOST" },
  ESCALATED: { action: "escalate", outcome: undefined },
} as const;

export async function handleDisputeOutcomeCallback(
  deps: Pick<Deps, "db" | "clock" | "queue" | "config" | "fiat" | "log">,
  source: { simulator: boolean },
  request: { headers: Headers; rawBody: string },
): Promise<{ disputeId: string; status: string }> {
  await authenticateProviderCallback(deps, { kind: "payin", rail: "card", ...source }, request);
  let notice: DisputeOutcomeNotice;
  try {
    notice = parseDisputeOutcomeBody(request.rawBody);
  } catch (err) {
    if (err instanceof ProviderError) throw new AppError("BAD_REQUEST", err.message);
    throw err;
  }
  const found = await disputesDb.findDisputeByCase(deps.db, "PROVIDER", notice.caseId);
  const payin = found && await findPayin(deps.db, found.payin_id);
  // As for chargebacks: the simulator speaks for sandbox cases, unless it is also the live provider.
  const sameProvider = deps.fiat.live === deps.fiat.sandbox;
  if (!found || !payin || (!sameProvider && found.is_sandbox !== source.simulator)) {
    throw new AppError("NOT_FOUND", "No card dispute for this case");
  }
  if (payin.id !== notice.reference || payin.provider_ref !== notice.providerRef) {
    throw new AppError("BAD_REQUEST", "Outcome references do not match the disputed pay-in");
  }
  const move = MOVE[notice.outcome];
  const provider = fiatProvidersFor(deps, source.simulator).card.name;
  return await deps.db.tx(async (tx) => {
    const d = await disputesDb.lockDispute(tx, found.id);
    if (!d) throw new AppError("NOT_FOUND", "No card dispute for this case");
    const fresh = await recordNotificationOnce(tx, {
      provider: `${provider}:dispute-outcome`,
      notificationId: notice.notificationId,
      payinId: d.payin_id,
      status: notice.outcome,
      now: deps.clock.now(),
    });
    const byProvider = d.decided_by === PROVIDER_DECIDER;
    const repeated = byProvider &&
      (isClosed(d.status) || (d.status === "ESCALATED" && move.action === "escalate"));
    if (!fresh || repeated) throw new AppError("CONFLICT", "This dispute outcome was already applied");
    if (isClosed(d.status)) {
      deps.log.error("acquirer outcome for a dispute an operator already decided: manual review", {
        disputeId: d.id,
        status: d.status,
        decidedBy: d.decided_by,
        outcome: notice.outcome,
        notificationId: notice.notificationId,
      });
      throw new AppError(
        "INVALID_TRANSACTION_STATUS",
        `Dispute is ${d.status}, already decided by ${d.decided_by}`,
        {
          reason: "DISPUTE_ALREADY_DECIDED",
        },
      );
    }
    const moved = await settleDispute(deps, tx, d, move.action, {
      outcome: move.outcome,
      decidedBy: PROVIDER_DECIDER,
      note: `acquirer outcome ${notice.outcome} (${notice.notificationId})`,
    });
    return { disputeId: moved.id, status: moved.status };
  });
}
