// Validation (what broadcast checks) and execution (what block inclusion does) of the two
// contract types the devnet supports, with TRON's fee model: free bandwidth first, then
// burned TRX; energy bought with TRX at ENERGY_PRICE, capped by fee_limit.
import { type HexAddress, utf8Hex } from "../protocol/crypto.ts";
import type { Account, WorldState } from "./state.ts";
import { encodeTransaction, type Json, type SignedTransaction } from "../protocol/transaction.ts";
import { runTrc20 } from "./trc20.ts";
import { energyLeft, energyUsedNow, netLimitOf, netUsedNow, networkTotals } from "./energy.ts";
import { isResourceCall } from "../protocol/resource_contracts.ts";
import { executeStaking, type StakingContext, StakingRejected, validateStaking } from "./staking.ts";

export const ENERGY_PRICE = 100n;
export const BANDWIDTH_PRICE = 1_000n;
export const FREE_NET_LIMIT = 600;
export const CREATE_ACCOUNT_FEE = 1_000_000n;
export const CREATE_ACCOUNT_BANDWIDTH_FEE = 100_000n;
export const MAX_FEE_LIMIT = 15_000_000_000n;
const DAY_MS = 86_400_000;
/** java-tron adds room for the result to the byte size it charges. */
const RESULT_BYTES = 64;

export type ReturnCode =
  | "SIGERROR"
  | "CONTRACT_VALIDATE_ERROR"
  | "BANDWITH_ERROR"
  | "DUP_TRANSACTION_ERROR"
  | "TAPOS_ERROR"
  | "TRANSACTION_EXPIRATION_ERROR"
  | "OTHER_ERROR";

export class TxRejected extends Error {
  constructor(readonly code: ReturnCode, message: string) {
    super(message);
  }
}

export type ContractRet = "SUCCESS" | "REVERT" | "OUT_OF_ENERGY";

export interface Execution {
  contractRet: ContractRet;
  /** Transaction info without the block fields (added when the block is sealed). */
  info: Json;
}

export interface ExecContext {
  state: WorldState;
  usdtContract: HexAddress;
  /** Time of the block the transaction is validated for or included in. */
  time: number;
}

export function bandwidthBytes(tx: SignedTransaction): number {
  return encodeTransaction(tx.rawBytes, tx.signatures).length + RESULT_BYTES;
}

/** Free bandwidth recovers linearly over 24 hours, as java-tron's usage window does. */
function freeNetUsedNow(account: Account, now: number): number {
  const elapsed = now - account.latestConsumeFreeTime;
  if (elapsed >= DAY_MS || account.freeNetUsed === 0) return 0;
  return Math.ceil(account.freeNetUsed * (1 - elapsed / DAY_MS));
}

export function freeNetUsage(account: Account, now: number): number {
  return freeNetUsedNow(account, now);
}

const stakingContext = (ctx: ExecContext): StakingContext => ({
  state: ctx.state,
  isContract: (address) => address === ctx.usdtContract,
  time: ctx.time,
});

/** Staked bandwidth (own and delegated to the account) left now. */
function stakedNetLeft(account: Account, ctx: ExecContext): number {
  return netLimitOf(account, networkTotals(ctx.state)) - netUsedNow(account, ctx.time);
}

/** TRX the contract itself moves out of the owner's balance (bandwidth must be paid besides). */
function spendOf(tx: SignedTransaction): bigint {
  const call = tx.raw.contract;
  if (call.type === "TransferContract") return call.value.amount;
  if (call.type === "FreezeBalanceV2Contract") return call.value.frozen_balance;
  return 0n;
}

function needsAccountCreation(tx: SignedTransaction, ctx: ExecContext): boolean {
  return tx.raw.contract.type === "TransferContract" &&
    !ctx.state.read(tx.raw.contract.value.to_address).exists;
}

/** Throws TxRejected when a real node would refuse the transaction at broadcast. */
export function validate(tx: SignedTransaction, ctx: ExecContext): void {
  const call = tx.raw.contract;
  const owner = ctx.state.read(call.value.owner_address);
  const fail = (message: string) => {
    throw new TxRejected("CONTRACT_VALIDATE_ERROR", message);
  };
  if (call.type === "TransferContract") {
    const { amount, to_address } = call.value;
    if (!owner.exists) fail(`Validate TransferContract error, no OwnerAccount.`);
    if (amount <= 0n) fail("Amount must be greater than 0.");
    if (to_address === call.value.owner_address) fail("Cannot transfer TRX to yourself.");
    if (to_address === ctx.usdtContract) fail("Cannot transfer TRX to a smartContract.");
    const creation = needsAccountCreation(tx, ctx) ? CREATE_ACCOUNT_FEE + CREATE_ACCOUNT_BANDWIDTH_FEE : 0n;
    if (owner.trx < amount + creation) fail("Validate TransferContract error, balance is not sufficient.");
  } else if (isResourceCall(call)) {
    try {
      validateStaking(call, stakingContext(ctx));
    } catch (err) {
      if (err instanceof StakingRejected) fail(err.message);
      throw err;
    }
  } else {
    if (call.value.contract_address !== ctx.usdtContract) fail("No contract or not a smart contract");
    if (!owner.exists) fail("Validate InternalTransaction error, no OwnerAccount.");
    if (tx.raw.feeLimit < 0n || tx.raw.feeLimit > MAX_FEE_LIMIT) {
      fail(`feeLimit must be >= 0 and <= ${MAX_FEE_LIMIT}`);
    }
  }
  if (!needsAccountCreation(tx, ctx)) {
    const bytes = bandwidthBytes(tx);
    const freeLeft = FREE_NET_LIMIT - freeNetUsedNow(owner, ctx.time);
    const spend = spendOf(tx);
    const covered = bytes <= stakedNetLeft(owner, ctx) || bytes <= freeLeft;
    if (!covered && owner.trx - spend < BigInt(bytes) * BANDWIDTH_PRICE) {
      throw new TxRejected("BANDWITH_ERROR", "Account resource insufficient error.");
    }
  }
}

/** Charges bandwidth to the owner: free bandwidth when enough is left, burned TRX otherwise. */
function chargeBandwidth(tx: SignedTransaction, owner: Account, ctx: ExecContext, receipt: Json): bigint {
  if (needsAccountCreation(tx, ctx)) {
    owner.trx -= CREATE_ACCOUNT_BANDWIDTH_FEE;
    receipt.net_fee = Number(CREATE_ACCOUNT_BANDWIDTH_FEE);
    return CREATE_ACCOUNT_BANDWIDTH_FEE;
  }
  const bytes = bandwidthBytes(tx);
  // Like java-tron: staked bandwidth first, then the daily free bandwidth, then burned TRX.
  if (stakedNetLeft(owner, ctx) >= bytes) {
    owner.netUsage = netUsedNow(owner, ctx.time) + bytes;
    owner.latestConsumeTime = ctx.time;
    receipt.net_usage = bytes;
    return 0n;
  }
  const used = freeNetUsedNow(owner, ctx.time);
  if (FREE_NET_LIMIT - used >= bytes) {
    owner.freeNetUsed = used + bytes;
    owner.latestConsumeFreeTime = ctx.time;
    receipt.net_usage = bytes;
    return 0n;
  }
  const fee = BigInt(bytes) * BANDWIDTH_PRICE;
  owner.trx -= fee;
  receipt.net_fee = Number(fee);
  return fee;
}

function activate(account: Account, time: number): void {
  if (account.exists) return;
  account.exists = true;
  account.createTime = time;
}

/** Applies a validated transaction to the state. */
export function execute(tx: SignedTransaction, ctx: ExecContext): Execution {
  const call = tx.raw.contract;
  const owner = ctx.state.write(call.value.owner_address);
  owner.latestOperationTime = ctx.time;
  const receipt: Json = {};
  let fee = chargeBandwidth(tx, owner, ctx, receipt);

  if (call.type === "TransferContract") {
    const to = ctx.state.write(call.value.to_address);
    if (!to.exists) {
      owner.trx -= CREATE_ACCOUNT_FEE;
      fee += CREATE_ACCOUNT_FEE;
      activate(to, ctx.time);
    }
    owner.trx -= call.value.amount;
    to.trx += call.value.amount;
    const info: Json = { id: tx.txID };
    if (fee > 0n) info.fee = Number(fee);
    Object.assign(info, { contractResult: [""], receipt });
    return { contractRet: "SUCCESS", info };
  }
  if (isResourceCall(call)) {
    const withdrawn = executeStaking(call, stakingContext(ctx));
    const info: Json = { id: tx.txID };
    if (fee > 0n) info.fee = Number(fee);
    Object.assign(info, { contractResult: [""], receipt });
    if (withdrawn > 0n) info.withdraw_expire_amount = Number(withdrawn);
    return { contractRet: "SUCCESS", info };
  }

  const reader = {
    balanceOf: (a: HexAddress) => ctx.state.read(a).usdt,
    totalSupply: () => ctx.state.usdtTotalSupply,
  };
  const outcome = runTrc20(
    call.value.contract_address,
    owner.address,
    call.value.data,
    call.value.call_value,
    reader,
  );
  // java-tron's energy limit: staked energy left plus what the TRX balance buys, capped by what
  // fee_limit buys (fee_limit caps all energy, staked or bought, at ENERGY_PRICE).
  const frozenLeft = BigInt(energyLeft(owner, networkTotals(ctx.state), ctx.time));
  const fromBalance = owner.trx > 0n ? owner.trx / ENERGY_PRICE : 0n;
  const fromFeeLimit = tx.raw.feeLimit / ENERGY_PRICE;
  const energyLimit = frozenLeft + fromBalance < fromFeeLimit ? frozenLeft + fromBalance : fromFeeLimit;
  let contractRet: ContractRet = outcome.result;
  let energy = outcome.energy;
  let resMessage: string | undefined;
  if (energyLimit < outcome.energy) {
    contractRet = "OUT_OF_ENERGY";
    energy = energyLimit;
    resMessage = `Not enough energy for 'SSTORE' operation executing: curInvokeEnergyLimit[${energyLimit}],` +
      ` curOpEnergy[${outcome.energy}], usedEnergy[${energyLimit}]`;
  } else if (contractRet === "REVERT") {
    resMessage = "REVERT opcode executed";
  }
  // Staked energy pays first; the rest is bought with TRX.
  const fromStake = energy < frozenLeft ? energy : frozenLeft;
  if (fromStake > 0n) {
    owner.energyUsage = energyUsedNow(owner, ctx.time) + Number(fromStake);
    owner.latestConsumeTimeForEnergy = ctx.time;
  }
  const energyFee = (energy - fromStake) * ENERGY_PRICE;
  owner.trx -= energyFee;
  fee += energyFee;
  if (contractRet === "SUCCESS" && outcome.transfer) {
    owner.usdt -= outcome.transfer.amount;
    ctx.state.write(outcome.transfer.to).usdt += outcome.transfer.amount;
  }

  const fullReceipt: Json = {};
  if (fromStake > 0n) fullReceipt.energy_usage = Number(fromStake);
  if (energyFee > 0n) fullReceipt.energy_fee = Number(energyFee);
  if (energy > 0n) fullReceipt.energy_usage_total = Number(energy);
  Object.assign(fullReceipt, receipt, { result: contractRet });
  const info: Json = { id: tx.txID };
  if (fee > 0n) info.fee = Number(fee);
  info.contractResult = [contractRet === "SUCCESS" ? outcome.returnData : ""];
  info.contract_address = call.value.contract_address;
  info.receipt = fullReceipt;
  if (contractRet === "SUCCESS" && outcome.logs.length) info.log = outcome.logs;
  if (contractRet !== "SUCCESS") {
    info.result = "FAILED";
    info.resMessage = utf8Hex(resMessage ?? "");
  }
  return { contractRet, info };
}
