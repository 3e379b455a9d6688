// JSON shapes of the node's account, resource, contract and chain-parameter answers.
import { trc20AbiEntries } from "./abi.ts";
import { addressFromPrivateKey, type HexAddress, privateKeyFromSeed, toBase58Address } from "./crypto.ts";
import { BANDWIDTH_PRICE, ENERGY_PRICE, FREE_NET_LIMIT, freeNetUsage } from "./executor.ts";
import type { Account } from "./state.ts";
import type { Json } from "./transaction.ts";
import { TOKEN } from "./trc20.ts";

/** Who "deployed" the devnet token; shown as origin_address like on a real node. */
export const TOKEN_DEPLOYER = addressFromPrivateKey(privateKeyFromSeed("tron-devnet token deployer"));
const ACTIVE_OPERATIONS = "7fff1fc0033efb0f000000000000000000000000000000000000000000000000";
const TOTAL_NET_LIMIT = 43_200_000_000;
const TOTAL_NET_WEIGHT = 84_687_233_463;
const TOTAL_ENERGY_LIMIT = 180_000_000_000;
const TOTAL_ENERGY_WEIGHT = 13_369_831_825;

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
  out.create_time = account.createTime;
  if (account.latestOperationTime) out.latest_opration_time = account.latestOperationTime;
  const freeNet = freeNetUsage(account, now);
  if (freeNet) out.free_net_usage = freeNet;
  if (account.latestConsumeFreeTime) out.latest_consume_free_time = account.latestConsumeFreeTime;
  Object.assign(out, {
    net_window_size: 28800,
    net_window_optimized: true,
    account_resource: { energy_window_size: 28800, energy_window_optimized: true },
    owner_permission: { permission_name: "owner", threshold: 1, keys: [{ address, weight: 1 }] },
    active_permission: [{
      type: "Active",
      id: 2,
      permission_name: "active",
      threshold: 1,
      operations: ACTIVE_OPERATIONS,
      keys: [{ address, weight: 1 }],
    }],
    frozenV2: [{}, { type: "ENERGY" }, { type: "TRON_POWER" }],
    asset_optimized: true,
  });
  return out;
}

export function accountNetJson(account: Account, now: number): Json {
  const out: Json = {};
  const used = freeNetUsage(account, now);
  if (used) out.freeNetUsed = used;
  return {
    ...out,
    freeNetLimit: FREE_NET_LIMIT,
    TotalNetLimit: TOTAL_NET_LIMIT,
    TotalNetWeight: TOTAL_NET_WEIGHT,
  };
}

export function accountResourceJson(account: Account, now: number): Json {
  return {
    ...accountNetJson(account, now),
    TotalEnergyLimit: TOTAL_ENERGY_LIMIT,
    TotalEnergyWeight: TOTAL_ENERGY_WEIGHT,
  };
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
