// SQL for the hosted checkout page: one round trip reads what a customer may see of a pay-in, with the
// depth of its newest live transfer (USDT) or the provider step (card, mobile money), and whom the customer
// pays: the merchant's display name and logo, and the order's own reference (`externalRef`, or the
// `description` a paylink order or the merchant put in metadata). Fees and the rest of metadata are not read.
import type { Db } from "./mod.ts";

export type CheckoutRow = {
  id: string;
  status: string;
  payment_method: string;
  currency: "USDT_TRC20" | "XOF";
  chain: string | null;
  amount_expected: string;
  amount_received: string;
  address: string | null;
  expires_at: Date;
  success_url: string | null;
  cancel_url: string | null;
  is_sandbox: boolean;
  failure_reason: string | null;
  /** Card and mobile money: otp, approval or redirect (card); null for USDT. */
  next_step: "otp" | "approval" | "redirect" | null;
  operator_code: string | null;
  /** Card: the acquirer's hosted card page. Mobile money: this checkout page. */
  hosted_payment_url: string | null;
  /** The provider's reference (used only to link the simulated phone of the sandbox simulator). */
  provider_ref: string | null;
  /** Block of the least-confirmed live (not orphaned) transfer to this pay-in; null when none. */
  newest_block: string | null;
  /** The last block the scanner followed; null before its first block. */
  head_block: string | null;
  merchant_name: string;
  merchant_display_name: string | null;
  merchant_logo: string | null;
  /** ACTIVE, SUSPENDED or CLOSED: only an ACTIVE merchant's checkout invites payment. */
  merchant_status: string;
  external_ref: string | null;
  /** `metadata.description` when it is a string. */
  description: string | null;
};

export async function findCheckoutRow(
  db: Db,
  payinId: string,
): Promise<CheckoutRow | undefined> {
  const rows = await db.query<CheckoutRow>(
    `SELECT p.id, p.status, p.payment_method, p.currency, p.chain, p.amount_expected::text AS amount_expected,
            p.amount_received::text AS amount_received, p.address, p.expires_at, p.success_url, p.cancel_url,
            p.is_sandbox, p.failure_reason, p.next_step, p.operator_code, p.hosted_payment_url, p.provider_ref,
            (SELECT max(t.block_number)::text FROM chain_transfers t
              WHERE t.payin_id = p.id AND t.kind = 'PAYIN' AND t.status <> 'ORPHANED') AS newest_block,
            (SELECT max(b.number)::text FROM chain_blocks b) AS head_block,
            m.name AS merchant_name, m.display_name AS merchant_display_name, m.logo_data_url AS merchant_logo,
            m.status AS merchant_status, p.external_ref,
            CASE WHEN jsonb_typeof(p.metadata->'description') = 'string' THEN p.metadata->>'description' END
              AS description
       FROM payins p JOIN merchants m ON m.id = p.merchant_id WHERE p.id = $1`,
    [payinId],
  );
  return rows[0];
}
