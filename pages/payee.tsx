// Whom the customer pays, at the top of every hosted page: the merchant's logo (or a monogram) and
// display name, and the order's own reference. A customer sees it before sending any money.
import type { MerchantBranding } from "../domain/merchants/branding.ts";
import type { Messages } from "./i18n.ts";

/** One or two capital letters of the name, for merchants without a logo. */
export function monogram(name: string): string {
  const words = name.trim().split(/\s+/).filter((w) => /\p{L}|\p{N}/u.test(w));
  const letters = words.slice(0, 2).map((w) => [...w.replace(/[^\p{L}\p{N}]/gu, "")][0] ?? "");
  return letters.join("").toUpperCase() || "?";
}

export function MerchantMark(props: { merchant: MerchantBranding; size?: number; color?: string | null }) {
  const size = props.size ?? 44;
  if (props.merchant.logoUrl) {
    return <img class="logo" src={props.merchant.logoUrl} alt="" width={size} height={size} />;
  }
  return (
    <span
      class="logo mono"
      aria-hidden="true"
      style={props.color ? `background:${props.color}` : undefined}
    >
      {monogram(props.merchant.displayName)}
    </span>
  );
}

export function Payee(props: { merchant: MerchantBranding; reference: string | null; t: Messages }) {
  return (
    <div class="payee">
      <MerchantMark merchant={props.merchant} />
      <div>
        <p class="lbl">{props.t.payingTo}</p>
        <p class="pn" data-merchant="">{props.merchant.displayName}</p>
        {props.reference && (
          <p class="small">
            {props.t.orderRef} <span data-ref="">{props.reference}</span>
          </p>
        )}
      </div>
    </div>
  );
}
