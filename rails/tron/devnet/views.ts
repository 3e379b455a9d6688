// JSON shapes of the node's account, resource, contract and chain-parameter answers.
import { trc20AbiEntries } from "./abi.ts";
import {
  addressFromPrivateKey,
  type HexAddress,
  privateKeyFromSeed,
  toBase58Address,
} from "../protocol/crypto.ts";
import { BANDWIDTH_PRICE, ENERGY_PRICE, FREE_NET_LIMIT, freeNetUsage } from "./executor.ts";
import type { Account } from "./state.ts";
import type { Json } from "../protocol/transaction.ts";
import { TOKEN } from "./trc20.ts";
import { unfrozenJson } from "./unstaking.ts";
import {
  energyLimitOf,
  energyUsedNow,
  netLimitOf,
  netUsedNow,
  type NetworkTotals,
  TOTAL_ENERGY_LIMIT,
  TOTAL_NET_LIMIT,
} from "./energy.ts";

/** Who "deployed" the devnet token; shown as origin_address like on a real node. */
export const TOKEN_DEPLOYER = addressFromPrivateKey(privateKeyFromSeed("tron-devnet token deployer"));
const ACTIVE_OPERATIONS = "7fff1fc0033efb0f000000000000000000000000000000000000000000000000";

export const addressOut = (
  hex: HexAddress,
  visible: boolean,
): string => (visible ? toBase58Address(hex) : hex);

/** wallet/getaccount; {} for an account that was never activated, as on a real node. */
export function accountJson(account: Account, visible: boolean, now: number, isContract: boolean): Json {
  if (!account.exists) return {};
  const address = addressOut(account.address, visible);
  const out: Json = { address };
  if (account.trx !== 0n) out.balance = Number(account.trx);
  if (isContract) out.type = "Contract";
  const netUsage = netUsedNow(account, now);
  if (netUsage) out.net_usage = netUsage;
  out.create_time = account.createTime;
  if (account.latestOperationTime) out.latest_opration_time = account.latestOperationTime;
  if (account.latestConsumeTime) out.latest_consume_time = account.latestConsumeTime;
  if (account.latestConsumeFreeTime) out.latest_consume_free_time = account.latestConsumeFreeTime;
  const freeNet = freeNetUsage(account, now);
  if (freeNet) out.free_net_usage = freeNet;
  const resource: Json = {};
  const energyUsage = energyUsedNow(account, now);
  if (energyUsage) resource.energy_usage = energyUsage;
  if (account.latestConsumeTimeForEnergy) {
    resource.latest_consume_time_for_energy = account.latestConsumeTimeForEnergy;
  }
  resource.energy_window_size = 28800;
  if (account.delegatedEnergy) {
    resource.delegated_frozenV2_balance_for_energy = Number(account.delegatedEnergy);
  }
  if (account.acquiredEnergy) {
    resource.acquired_delegated_frozenV2_balance_for_energy = Number(account.acquiredEnergy);
  }
  resource.energy_window_optimized = true;
  const amount = (sun: bigint) => (sun ? { amount: Number(sun) } : {});
  Object.assign(out, {
    net_window_size: 28800,
    net_window_optimized: true,
    account_resource: resource,
    owner_permission: { permission_name: "owner", threshold: 1, keys: [{ address, weight: 1 }] },
    active_permission: [{
      type: "Active",
      id: 2,
      permission_name: "active",
      threshold: 1,
      operations: ACTIVE_OPERATIONS,
      keys: [{ address, weight: 1 }],
    }],
    frozenV2: [amount(account.frozenBandwidth), { type: "ENERGY", ...amount(account.frozenEnergy) }, {
      type: "TRON_POWER",
    }],
    asset_optimized: true,
  });
  if (account.unfrozen.length) out.unfrozenV2 = unfrozenJson(account);
  if (account.delegatedBandwidth) {
    out.delegated_frozenV2_balance_for_bandwidth = Number(account.delegatedBandwidth);
  }
  if (account.acquiredBandwidth) {
    out.acquired_delegated_frozenV2_balance_for_bandwidth = Number(account.acquiredBandwidth);
  }
  return out;
}

/** wallet/getaccountnet: zero values are left out, as proto3 JSON prints them. */
export function accountNetJson(account: Account, now: number, totals: NetworkTotals): Json {
  const out: Json = {};
  const used = freeNetUsage(account, now);
  if (used) out.freeNetUsed = used;
  out.freeNetLimit = FREE_NET_LIMIT;
  const netUsed = netUsedNow(account, now);
  if (netUsed) out.NetUsed = netUsed;
  const netLimit = netLimitOf(account, totals);
  if (netLimit) out.NetLimit = netLimit;
  out.TotalNetLimit = TOTAL_NET_LIMIT;
  out.TotalNetWeight = totals.netWeight;
  return out;
}

/** wallet/getaccountresource: bandwidth as getaccountnet, then energy. */
export function accountResourceJson(account: Account, now: number, totals: NetworkTotals): Json {
  const out = accountNetJson(account, now, totals);
  const used = energyUsedNow(account, now);
  if (used) out.EnergyUsed = used;
  const limit = energyLimitOf(account, totals);
  if (limit) out.EnergyLimit = limit;
  out.TotalEnergyLimit = TOTAL_ENERGY_LIMIT;
  out.TotalEnergyWeight = totals.energyWeight;
  return out;
}

export function smartContractJson(contract: HexAddress, visible: boolean): Json {
  return {
    origin_address: addressOut(TOKEN_DEPLOYER, visible),
    contract_address: addressOut(contract, visible),
    abi: { entrys: trc20AbiEntries() },
    consume_user_resource_percent: 100,
    name: "TetherToken",
    origin_energy_limit: 10_000_000,
  };
}

export function contractInfoJson(contract: HexAddress, visible: boolean): Json {
  return {
    smart_contract: smartContractJson(contract, visible),
    contract_state: { energy_usage: 0, energy_factor: 0, update_cycle: 0 },
  };
}

export function tokenDescription(contract: HexAddress) {
  return { address: toBase58Address(contract), hexAddress: contract, ...TOKEN };
}

/** wallet/getchainparameters; zero values carry no "value", as proto3 JSON prints them. */
export function chainParametersJson(): Json {
  const params: [string, number][] = [
    ["getMaintenanceTimeInterval", 21_600_000],
    ["getAccountUpgradeCost", 9_999_000_000],
    ["getCreateAccountFee", 100_000],
    ["getTransactionFee", Number(BANDWIDTH_PRICE)],
    ["getAssetIssueFee", 1_024_000_000],
    ["getWitnessPayPerBlock", 16_000_000],
    ["getWitnessStandbyAllowance", 115_200_000_000],
    ["getCreateNewAccountFeeInSystemContract", 1_000_000],
    ["getCreateNewAccountBandwidthRate", 1],
    ["getAllowCreationOfContracts", 1],
    ["getRemoveThePowerOfTheGr", -1],
    ["getEnergyFee", Number(ENERGY_PRICE)],
    ["getExchangeCreateFee", 1_024_000_000],
    ["getMaxCpuTimeOfOneTx", 80],
    ["getAllowUpdateAccountName", 0],
    ["getAllowSameTokenName", 1],
    ["getAllowDelegateResource", 1],
    ["getTotalEnergyLimit", TOTAL_ENERGY_LIMIT],
    ["getAllowTvmTransferTrc10", 1],
    ["getTotalEnergyCurrentLimit", TOTAL_ENERGY_LIMIT],
    ["getAllowMultiSign", 1],
    ["getAllowAdaptiveEnergy", 0],
    ["getUpdateAccountPermissionFee", 100_000_000],
    ["getMultiSignFee", 1_000_000],
    ["getAllowTvmConstantinople", 1],
    ["getAllowTvmSolidity059", 1],
    ["getFreeNetLimit", FREE_NET_LIMIT],
    ["getTotalNetLimit", TOTAL_NET_LIMIT],
    ["getAllowTvmIstanbul", 1],
    ["getAllowTvmLondon", 1],
    ["getMemoFee", 1_000_000],
    ["getUnfreezeDelayDays", 14],
  ];
  return { chainParameter: params.map(([key, value]) => (value === 0 ? { key } : { key, value })) };
}
