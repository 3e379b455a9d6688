// The hot wallet: one per mode, on its own HD account, so live keys never sign sandbox money and a
// deposit address key never pays anyone but the hot wallet. Payouts and withdrawals leave from here.
import { deriveTronAccount, type TronAccount } from "../../rails/tron/hd.ts";
import type { Deps } from "../deps.ts";

/** BIP44 accounts of the hot wallets (deposit addresses use 0 and 1). */
export const HOT_WALLET_ACCOUNT = { live: 2, sandbox: 3 } as const;

const cache = new Map<string, TronAccount>();

export function hotWallet(config: Deps["config"], isSandbox: boolean): TronAccount {
  const mnemonic = config.tron.mnemonic;
  if (!mnemonic) throw new Error("TRON mnemonic not loaded: the runtime must provide one");
  const account = isSandbox ? HOT_WALLET_ACCOUNT.sandbox : HOT_WALLET_ACCOUNT.live;
  const key = `${account}:${mnemonic}`;
  let wallet = cache.get(key);
  if (!wallet) cache.set(key, wallet = deriveTronAccount(mnemonic, account, 0));
  return wallet;
}
