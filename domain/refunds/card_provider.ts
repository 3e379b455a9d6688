// Which acquirer can carry a card refund: the live aggregators publish no refund call, so their card
// pay-ins answer REFUND_RAIL_NOT_AVAILABLE before anything is reserved.
import type { CardProvider } from "../../rails/fiat/provider.ts";
import type { Deps } from "../deps.ts";

export type RefundingCardProvider = CardProvider & Required<Pick<CardProvider, "refund" | "lookupRefund">>;

/** The mode's card provider when it has both refund calls, else undefined. */
export function refundingCardProvider(
  deps: Pick<Deps, "fiat">,
  isSandbox: boolean,
): RefundingCardProvider | undefined {
  const card = (isSandbox ? deps.fiat.sandbox : deps.fiat.live)?.card;
  return card?.refund && card.lookupRefund ? card as RefundingCardProvider : undefined;
}
