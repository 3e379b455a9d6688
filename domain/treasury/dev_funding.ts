// Development only: the embedded devnet's faucet gives the hot wallet TRX to stake and pay fees with, so
// sweeps and payouts work on a fresh machine. On a real network an operator funds it (README).
import type { Devnet } from "../../rails/tron/devnet/mod.ts";
import type { Deps } from "../deps.ts";
import { hotWallet } from "./hot_wallet.ts";

export const DEV_HOT_WALLET_TRX_SUN = 50_000_000_000n; // 50,000 TRX: enough stake for ten sweeps a day

export async function fundDevelopmentHotWallet(deps: Pick<Deps, "config" | "tron" | "log">, devnet: Devnet) {
  if (deps.config.appEnv === "production" || deps.config.tron.network !== "devnet") return;
  const hot = hotWallet(deps.config, false);
  if ((await deps.tron.getTrxBalance(hot.address)) >= DEV_HOT_WALLET_TRX_SUN / 10n) return;
  devnet.fund(hot.address, { trx: DEV_HOT_WALLET_TRX_SUN });
  deps.log.info("devnet: hot wallet funded with TRX", { address: hot.address, trx: "50000" });
}
