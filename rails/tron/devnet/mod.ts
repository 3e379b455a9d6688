// TRON devnet: a single-process stand-in for a java-tron full + solidity node with a TRC20
// USDT, speaking the node's HTTP API under /devnet/wallet and /devnet/walletsolidity.
import { Hono } from "hono";
import { Chain } from "./chain.ts";
import {
  addressFromPrivateKey,
  type HexAddress,
  privateKeyFromSeed,
  toBase58Address,
  toHexAddress,
} from "../protocol/crypto.ts";
import { controlRoutes, sendUsdt } from "./control.ts";
import { walletRoutes } from "./routes.ts";
import { type ChainStore, FileStore, type GenesisConfig, MemoryStore } from "./store.ts";
import { type PublicTronNetwork, TRON_NETWORK_IDENTITY } from "../networks.ts";

export { formatUnits, parseUnits } from "./control.ts";
export type { Chain } from "./chain.ts";

/** Mainnet USDT's address, so gateway configs can keep the same contract. */
export const DEFAULT_USDT_CONTRACT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
/** Well-known (public!) key of the devnet's funded customer; never use it outside the devnet. */
export const DEFAULT_CUSTOMER_PRIVATE_KEY = privateKeyFromSeed("tron-devnet customer");
/** 1,000,000 TRX and 1,000,000,000 USDT. */
export const CUSTOMER_TRX_SUN = 1_000_000_000_000n;
export const CUSTOMER_USDT_UNITS = 1_000_000_000_000_000n;

export interface FundedAccount {
  /** Base58 T... or hex 41... */
  address: string;
  /** Sun (1e-6 TRX). */
  trx?: bigint;
  /** USDT base units (1e-6 USDT). */
  usdt?: bigint;
}

export interface DevnetOptions {
  /** Block interval; 0 produces blocks only when asked (mine / control API). Default 3000. */
  blockMs?: number;
  /** Persist the chain under `${dataDir}/devnet/`; in memory when absent. */
  dataDir?: string;
  /**
   * USDT contract address (base58 or hex); default mainnet's, or that of the network spoken as. Ignored
   * when reopening a persisted chain.
   */
  usdtContract?: string;
  /**
   * Speak as nile or mainnet: block 0 has that network's genesis block id (so its chain id too) and the
   * USDT contract sits at that network's address, so a gateway configured for it can be tried here.
   * Nothing else of that network is here (its accounts, witnesses, history). Ignored when reopening.
   */
  speakAs?: PublicTronNetwork;
  now?: () => number;
  /** Extra genesis balances. Ignored when reopening a persisted chain. */
  fundedAccounts?: FundedAccount[];
  customerPrivateKey?: string;
}

export interface Devnet {
  /** Routes under /devnet/wallet, /devnet/walletsolidity and /devnet/control. */
  app: Hono;
  chain: Chain;
  start(): void;
  stop(): Promise<void>;
  /** Produces `blocks` blocks now; answers the new head number. */
  mine(blocks?: number): number;
  reorg(depth: number): { dropped: string[] };
  /** Block 0's id: the chain's identity (a public network's when spoken as one). */
  readonly genesisBlockId: string;
  fund(address: string, amounts: { trx?: bigint; usdt?: bigint }): void;
  /** Broadcasts a USDT transfer from the customer (or `fromPrivateKey`); answers the txID or throws. */
  transferUsdt(to: string, amount: bigint, fromPrivateKey?: string): string;
  readonly customerPrivateKey: string;
  readonly customerAddress: string;
  readonly customerHexAddress: HexAddress;
  readonly usdtContract: string;
  readonly usdtContractHex: HexAddress;
}

export function createDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const now = options.now ?? (() => Date.now());
  const blockMs = options.blockMs ?? 3000;
  const customerKey = (options.customerPrivateKey ?? DEFAULT_CUSTOMER_PRIVATE_KEY).replace(/^0x/, "");
  const identity = options.speakAs ? TRON_NETWORK_IDENTITY[options.speakAs] : undefined;
  const genesis: GenesisConfig = {
    timestamp: now(),
    customerPrivateKey: customerKey,
    ...(identity ? { genesisBlockId: identity.genesisBlockId } : {}),
    usdtContract: toHexAddress(options.usdtContract ?? identity?.usdtContract ?? DEFAULT_USDT_CONTRACT),
    accounts: [
      { address: addressFromPrivateKey(customerKey), trx: CUSTOMER_TRX_SUN, usdt: CUSTOMER_USDT_UNITS },
      ...(options.fundedAccounts ?? []).map((a) => ({
        address: toHexAddress(a.address),
        trx: a.trx ?? 0n,
        usdt: a.usdt ?? 0n,
      })),
    ],
  };
  const store: ChainStore = options.dataDir ? new FileStore(`${options.dataDir}/devnet`) : new MemoryStore();
  const chain = Chain.open(store, genesis, now);
  // A reopened chain keeps its own customer, whatever the options say now.
  const customer = chain.genesis.customerPrivateKey;
  const customerHex = addressFromPrivateKey(customer);

  const app = new Hono();
  app.route("/devnet", walletRoutes(chain, now));
  app.route("/devnet/control", controlRoutes(chain, now, customer));

  let timer: ReturnType<typeof setInterval> | undefined;
  const devnet: Devnet = {
    app,
    chain,
    start() {
      if (timer !== undefined || blockMs <= 0) return;
      timer = setInterval(() => {
        try {
          chain.produceBlock();
        } catch (err) {
          console.error("devnet: block production failed", err);
        }
      }, blockMs);
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      // Every block is appended and synced as it is produced, so nothing is left to flush.
      return Promise.resolve();
    },
    mine(blocks = 1) {
      for (let i = 0; i < blocks; i++) chain.produceBlock();
      return chain.head.number;
    },
    reorg: (depth) => chain.reorg(depth),
    fund(address, amounts) {
      chain.fund(toHexAddress(address), amounts.trx ?? 0n, amounts.usdt ?? 0n);
    },
    transferUsdt(to, amount, fromPrivateKey) {
      const { txID, result } = sendUsdt(chain, now, fromPrivateKey ?? customer, toHexAddress(to), amount);
      if (!result.result) throw new Error(`devnet transfer rejected: ${result.code}`);
      return txID;
    },
    genesisBlockId: chain.blocks[0].blockID,
    customerPrivateKey: customer,
    customerAddress: toBase58Address(customerHex),
    customerHexAddress: customerHex,
    usdtContract: toBase58Address(chain.usdtContract),
    usdtContractHex: chain.usdtContract,
  };
  return Promise.resolve(devnet);
}
