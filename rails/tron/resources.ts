// What the treasury asks a TRON node about staking and energy, and how it sends what signing.ts
// signed: an account's resources (energy limit and use, staked, delegated), the reference block
// to sign against, and broadcast of an already-signed transaction. Every answer is zod-checked.
import { z } from "zod";
import { createPost, decodeHexText, malformed, parse, type TronClientOptions } from "./client_http.ts";
import { createTronClient } from "./client.ts";
import { BroadcastSchema, isEmptyObject } from "./client_schemas.ts";
import { toHexAddress } from "./protocol/crypto.ts";
import type { RefBlock, Resource, SignedTronTransaction } from "./signing.ts";

export interface AccountResources {
  /** 41-prefixed lower-case hex. */
  address: string;
  /** False for an account never activated (it cannot receive a delegation). */
  activated: boolean;
  balanceSun: bigint;
  energyLimit: number;
  energyUsed: number;
  /** energyLimit - energyUsed, never negative. */
  energyAvailable: number;
  netLimit: number;
  netUsed: number;
  freeNetLimit: number;
  freeNetUsed: number;
  /** Own stake kept (not delegated), delegated out, and acquired from others, in sun. */
  stakedForEnergySun: bigint;
  stakedForBandwidthSun: bigint;
  delegatedEnergySun: bigint;
  delegatedBandwidthSun: bigint;
  acquiredEnergySun: bigint;
  acquiredBandwidthSun: bigint;
  /** Unstaked TRX waiting out the unfreeze delay, and when each part may be withdrawn (ms). */
  unfreezing: { resource: Resource; amountSun: bigint; withdrawableAt: number }[];
  /** The network's totals the limits derive from (weights in whole TRX). */
  totalEnergyLimit: number;
  totalEnergyWeight: number;
}

export interface BroadcastOutcome {
  /** True when the node took it now, or already had it (DUP_TRANSACTION_ERROR on a re-send). */
  accepted: boolean;
  duplicate: boolean;
  code?: string;
  message?: string;
  txid: string;
}

const count = z.int().nonnegative().optional().default(0);
const sun = z.union([z.int(), z.bigint()]).transform((v) => BigInt(v)).optional().default(0n);

const ResourceSchema = z.looseObject({
  freeNetUsed: count,
  freeNetLimit: count,
  NetUsed: count,
  NetLimit: count,
  EnergyUsed: count,
  EnergyLimit: count,
  TotalEnergyLimit: count,
  TotalEnergyWeight: count,
});

const StakeAccountSchema = z.looseObject({
  address: z.string().regex(/^41[0-9a-fA-F]{40}$/),
  balance: sun,
  frozenV2: z.array(z.looseObject({ type: z.string().optional(), amount: sun })).optional().default([]),
  delegated_frozenV2_balance_for_bandwidth: sun,
  acquired_delegated_frozenV2_balance_for_bandwidth: sun,
  unfrozenV2: z.array(z.looseObject({
    type: z.enum(["BANDWIDTH", "ENERGY", "TRON_POWER"]).optional().default("BANDWIDTH"),
    unfreeze_amount: sun,
    unfreeze_expire_time: count,
  })).optional().default([]),
  account_resource: z.looseObject({
    delegated_frozenV2_balance_for_energy: sun,
    acquired_delegated_frozenV2_balance_for_energy: sun,
  }).optional(),
});

const CanDelegateSchema = z.looseObject({ max_size: sun });

export interface TronResources {
  getAccountResources(address: string): Promise<AccountResources>;
  /**
   * Most of its own stake the account can lend now (wallet/getcandelegatedmaxsize): what it staked less
   * what its own recent use still ties up, so used energy is not free until it regenerates.
   */
  canDelegateMaxSun(address: string, resource: Resource): Promise<bigint>;
  /** The node's head block, to sign against. */
  refBlock(): Promise<RefBlock>;
  broadcast(signed: SignedTronTransaction): Promise<BroadcastOutcome>;
}

export function createTronResources(options: TronClientOptions): TronResources {
  const post = createPost(options);
  const client = createTronClient(options);

  return {
    async getAccountResources(address) {
      const hex = toHexAddress(address);
      const accountJson = await post("wallet/getaccount", { address: hex, visible: false });
      const res = parse(
        "wallet/getaccountresource",
        ResourceSchema,
        await post("wallet/getaccountresource", { address: hex, visible: false }),
      );
      const activated = !isEmptyObject(accountJson);
      const a = activated ? parse("wallet/getaccount", StakeAccountSchema, accountJson) : null;
      if (a && a.address.toLowerCase() !== hex) {
        throw malformed("wallet/getaccount", "answered for another address");
      }
      const frozen = (type: string) =>
        (a?.frozenV2 ?? []).filter((f) => (f.type ?? "BANDWIDTH") === type).reduce(
          (n, f) => n + f.amount,
          0n,
        );
      const amounts = [
        a?.balance ?? 0n,
        frozen("ENERGY"),
        frozen("BANDWIDTH"),
        a?.account_resource?.delegated_frozenV2_balance_for_energy ?? 0n,
        a?.delegated_frozenV2_balance_for_bandwidth ?? 0n,
        a?.account_resource?.acquired_delegated_frozenV2_balance_for_energy ?? 0n,
        a?.acquired_delegated_frozenV2_balance_for_bandwidth ?? 0n,
      ];
      if ((a?.unfrozenV2 ?? []).some((u) => u.unfreeze_amount < 0n)) amounts.push(-1n);
      if (amounts.some((v) => v < 0n)) throw malformed("wallet/getaccount", "negative amount");
      const [balance, stakedE, stakedB, delegatedE, delegatedB, acquiredE, acquiredB] = amounts;
      return {
        address: hex,
        activated,
        balanceSun: balance,
        energyLimit: res.EnergyLimit,
        energyUsed: res.EnergyUsed,
        energyAvailable: Math.max(0, res.EnergyLimit - res.EnergyUsed),
        netLimit: res.NetLimit,
        netUsed: res.NetUsed,
        freeNetLimit: res.freeNetLimit,
        freeNetUsed: res.freeNetUsed,
        stakedForEnergySun: stakedE,
        stakedForBandwidthSun: stakedB,
        delegatedEnergySun: delegatedE,
        delegatedBandwidthSun: delegatedB,
        acquiredEnergySun: acquiredE,
        acquiredBandwidthSun: acquiredB,
        unfreezing: (a?.unfrozenV2 ?? []).filter((u) => u.type !== "TRON_POWER").map((u) => ({
          resource: u.type as Resource,
          amountSun: u.unfreeze_amount,
          withdrawableAt: u.unfreeze_expire_time,
        })),
        totalEnergyLimit: res.TotalEnergyLimit,
        totalEnergyWeight: res.TotalEnergyWeight,
      };
    },

    async canDelegateMaxSun(address, resource) {
      const method = "wallet/getcandelegatedmaxsize";
      const answer = parse(
        method,
        CanDelegateSchema,
        await post(method, {
          owner_address: toHexAddress(address),
          type: resource === "ENERGY" ? 1 : 0,
          visible: false,
        }),
      );
      return answer.max_size; // an empty object (nothing to lend) parses to 0
    },

    async refBlock() {
      const head = await client.getNowBlock();
      return { number: head.number, hash: head.hash, timestamp: head.timestamp };
    },

    async broadcast(signed) {
      const method = "wallet/broadcasttransaction";
      const res = parse(
        method,
        BroadcastSchema,
        await post(method, signed as unknown as Record<string, unknown>),
      );
      if (res.result !== true && res.code === undefined) {
        throw malformed(method, "neither a result nor an error code");
      }
      // A re-send of bytes the node already holds is not a failure: the transaction is in.
      const duplicate = res.code === "DUP_TRANSACTION_ERROR";
      const out: BroadcastOutcome = {
        accepted: res.result === true || duplicate,
        duplicate,
        txid: signed.txID,
      };
      if (res.code !== undefined) out.code = res.code;
      if (res.message !== undefined) out.message = decodeHexText(res.message);
      if (res.txid !== undefined && res.txid.toLowerCase() !== signed.txID) {
        throw malformed(method, "answered for another transaction");
      }
      return out;
    },
  };
}

/**
 * Sun to delegate so that the receiver gets at least `energy` energy, from the network's totals
 * (java-tron: limit = floor(whole TRX * TotalEnergyLimit / TotalEnergyWeight)).
 */
export function sunToDelegateFor(
  energy: number,
  totals: { totalEnergyLimit: number; totalEnergyWeight: number },
) {
  if (!Number.isSafeInteger(energy) || energy < 0) throw new RangeError("energy must be a natural number");
  const { totalEnergyLimit: limit, totalEnergyWeight: weight } = totals;
  if (limit <= 0 || weight <= 0) throw new RangeError("the network's energy totals must be positive");
  let trx = Math.max(1, Math.ceil(energy * (weight / limit)));
  while (Math.floor(trx * (limit / weight)) < energy) trx++;
  return BigInt(trx) * 1_000_000n;
}
