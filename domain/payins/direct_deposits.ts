// Direct deposits: a standing USDT address per merchant and mode, for top-ups no pay-in created (the
// usual way to fund payouts). Shown by GET /v1/wallets/deposit-address, created on first request;
// transfers to it are credited at DEPOSIT_CONFIRMATIONS with deposit.* events (domain/payins/chain_events.ts).
import * as store from "../../db/direct_deposits.ts";
import { deriveTronAccount } from "../../rails/tron/hd.ts";
import { qrPngDataUrlSync } from "../../rails/tron/qr.ts";
import type { Deps } from "../deps.ts";
import { effectiveFees } from "../fees.ts";
import { formatAmount } from "../money.ts";

/** BIP44 accounts of standing addresses (pay-in addresses use 0/1, hot wallets 2/3). */
export const STANDING_ACCOUNT = { live: 4, sandbox: 5 } as const;

export async function getDepositAddress(
  deps: Pick<Deps, "db" | "config" | "clock">,
  caller: { merchantId: string; isSandbox: boolean; feeSchedule: Record<string, string> },
) {
  let row = await store.findStandingAddress(deps.db, caller);
  if (!row) {
    const account = caller.isSandbox ? STANDING_ACCOUNT.sandbox : STANDING_ACCOUNT.live;
    const index = await store.reserveIndex(deps.db, account);
    const derived = deriveTronAccount(deps.config.tron.mnemonic!, account, index);
    row = await store.insertStandingAddress(deps.db, {
      address: derived.address,
      address_hex: derived.addressHex,
      merchant_id: caller.merchantId,
      is_sandbox: caller.isSandbox,
      account_index: account,
      derivation_index: index,
      qr_png: qrPngDataUrlSync(derived.address),
      now: deps.clock.now(),
    });
  }
  const fees = effectiveFees(caller.feeSchedule);
  return {
    address: row.address,
    currency: "USDT_TRC20" as const,
    chain: "TRON" as const,
    qrCodeUrl: row.qr_png,
    networkFee: formatAmount(fees.usdtNetworkFee, "USDT_TRC20"),
    confirmations: deps.config.tron.depositConfirmations,
    isSandbox: row.is_sandbox,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
