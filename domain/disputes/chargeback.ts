// POST /v1/providers/{simulator/}card/chargeback-callback: the card acquirer notifies a chargeback. The
// signature (the card provider's, as on its payment callbacks) is checked before the body is read; the
// case opens one dispute however often it is notified (a repeat answers the same dispute, 200, so the
// acquirer stops retrying), with the hold and `dispute.opened` in the dispute's own transaction.
import { findPayin } from "../../db/payins.ts";
import { parseChargebackBody } from "../../rails/fiat/chargebacks.ts";
import { ProviderError } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { authenticateProviderCallback } from "../providers/callback_auth.ts";
import { openDispute } from "./open.ts";

export async function handleChargebackCallback(
  deps: Pick<Deps, "db" | "clock" | "queue" | "config" | "fiat">,
  source: { simulator: boolean },
  request: { headers: Headers; rawBody: string },
): Promise<{ disputeId: string; status: string; duplicate: boolean }> {
  await authenticateProviderCallback(deps, { kind: "payin", rail: "card", ...source }, request);
  let notice;
  try {
    notice = parseChargebackBody(request.rawBody);
  } catch (err) {
    if (err instanceof ProviderError) throw new AppError("BAD_REQUEST", err.message);
    throw err;
  }
  const payin = await findPayin(deps.db, notice.reference);
  // As for payment callbacks: the simulator speaks for sandbox pay-ins, unless it is also the live provider.
  const sameProvider = deps.fiat.live === deps.fiat.sandbox;
  if (!payin || payin.payment_method !== "CARD" || (!sameProvider && payin.is_sandbox !== source.simulator)) {
    throw new AppError("NOT_FOUND", "No card pay-in for this chargeback");
  }
  if (payin.provider_ref !== notice.providerRef) {
    throw new AppError("BAD_REQUEST", "Chargeback reference does not match the pay-in's provider reference");
  }
  const { dispute, created } = await openDispute(deps, {
    payinId: payin.id,
    source: "PROVIDER",
    caseRef: notice.caseId,
    reason: notice.reason,
    cardOrigin: notice.cardOrigin,
    amount: notice.amount,
    openedBy: "provider",
  });
  return { disputeId: dispute.id, status: dispute.status, duplicate: !created };
}
