// The Stake 2.0 part of the full node's HTTP API: the create APIs for freezing, delegating and
// undelegating (unsigned transactions, like createtransaction) and the delegation reads.
import { newRaw, unsignedJson } from "./calls.ts";
import type { Chain } from "./chain.ts";
import type { HexAddress } from "../protocol/crypto.ts";
import { TxRejected } from "./executor.ts";
import { addressParam, BadRequest, intParam } from "./request.ts";
import { type ResourceCall, resourceFromJson } from "../protocol/resource_contracts.ts";
import { canDelegateMax } from "./staking.ts";
import type { Delegation } from "./state.ts";
import { type Json, makeSigned } from "../protocol/transaction.ts";
import { addressOut } from "./views.ts";

type Serve = (path: string, handler: (p: Json, visible: boolean) => unknown) => void;

const INT64_MAX = (1n << 63n) - 1n;

/** An int64 parameter; out-of-range or non-integer values are a bad request, never a wrapped number. */
function int64Param(p: Json, key: string): bigint {
  const value = p[key];
  if (value === undefined || value === null || value === "") return 0n;
  if (typeof value !== "number" && typeof value !== "string") {
    throw new BadRequest(`${key} must be an integer`);
  }
  let n: bigint;
  try {
    n = BigInt(String(value).trim());
  } catch {
    throw new BadRequest(`${key} must be an integer`);
  }
  if (n > INT64_MAX || n < -INT64_MAX - 1n) throw new BadRequest(`${key} is out of range`);
  return n;
}

function resourceParam(p: Json, key = "resource"): number {
  try {
    return resourceFromJson(p[key]);
  } catch (err) {
    throw new BadRequest((err as Error).message);
  }
}

const lockParam = (p: Json) => p.lock === true || p.lock === "true";

export function resourceRoutes(serve: Serve, chain: Chain, now: () => number): void {
  /** Validates like the node's create APIs do, then answers the unsigned transaction. */
  const create = (p: Json, visible: boolean, contract: ResourceCall): Json => {
    const tx = makeSigned(newRaw(chain, now, contract, 0n, p));
    try {
      chain.validateUnsigned(tx);
    } catch (err) {
      if (err instanceof TxRejected) {
        return { Error: `class org.tron.core.exception.ContractValidateException : ${err.message}` };
      }
      throw err;
    }
    return unsignedJson(tx, visible);
  };

  serve("/wallet/freezebalancev2", (p, visible) =>
    create(p, visible, {
      type: "FreezeBalanceV2Contract",
      value: {
        owner_address: addressParam(p, "owner_address"),
        frozen_balance: int64Param(p, "frozen_balance"),
        resource: resourceParam(p),
      },
    }));
  serve("/wallet/unfreezebalancev2", (p, visible) =>
    create(p, visible, {
      type: "UnfreezeBalanceV2Contract",
      value: {
        owner_address: addressParam(p, "owner_address"),
        unfreeze_balance: int64Param(p, "unfreeze_balance"),
        resource: resourceParam(p),
      },
    }));
  serve("/wallet/withdrawexpireunfreeze", (p, visible) =>
    create(p, visible, {
      type: "WithdrawExpireUnfreezeContract",
      value: { owner_address: addressParam(p, "owner_address") },
    }));
  serve("/wallet/delegateresource", (p, visible) =>
    create(p, visible, {
      type: "DelegateResourceContract",
      value: {
        owner_address: addressParam(p, "owner_address"),
        receiver_address: addressParam(p, "receiver_address"),
        balance: int64Param(p, "balance"),
        resource: resourceParam(p),
        lock: lockParam(p),
        lock_period: int64Param(p, "lock_period"),
      },
    }));
  serve("/wallet/undelegateresource", (p, visible) =>
    create(p, visible, {
      type: "UnDelegateResourceContract",
      value: {
        owner_address: addressParam(p, "owner_address"),
        receiver_address: addressParam(p, "receiver_address"),
        balance: int64Param(p, "balance"),
        resource: resourceParam(p),
      },
    }));

  serve("/wallet/getdelegatedresourcev2", (p, visible) => {
    const from = addressParam(p, "fromAddress");
    const to = addressParam(p, "toAddress");
    const record = chain.state.read(from).delegations[to];
    const list = record ? delegationJson(from, to, record, visible) : [];
    return list.length ? { delegatedResource: list } : {};
  });
  serve("/wallet/getdelegatedresourceaccountindexv2", (p, visible) => {
    const account = addressParam(p, "value");
    const toAccounts = Object.keys(chain.state.read(account).delegations);
    const fromAccounts = chain.state.all().filter((a) => account in a.delegations).map((a) => a.address);
    if (!toAccounts.length && !fromAccounts.length) return {};
    const out: Json = { account: addressOut(account, visible) };
    if (fromAccounts.length) out.fromAccounts = fromAccounts.map((a) => addressOut(a, visible));
    if (toAccounts.length) out.toAccounts = toAccounts.map((a) => addressOut(a, visible));
    return out;
  });
  serve("/wallet/getcandelegatedmaxsize", (p) => {
    const owner = chain.state.read(addressParam(p, "owner_address"));
    const type = intParam(p, "type", 0);
    if (type !== 0 && type !== 1) throw new BadRequest("type must be 0 (BANDWIDTH) or 1 (ENERGY)");
    const context = { state: chain.state, isContract: () => false, time: chain.referenceTime };
    const max = canDelegateMax(owner, context, type);
    return max > 0n ? { max_size: Number(max) } : {};
  });
}

/** DelegatedResource records as java-tron prints them: the unlocked one, then the locked one. */
function delegationJson(from: HexAddress, to: HexAddress, d: Delegation, visible: boolean): Json[] {
  const base = { from: addressOut(from, visible), to: addressOut(to, visible) };
  const out: Json[] = [];
  if (d.energy || d.bandwidth) {
    const unlocked: Json = { ...base };
    if (d.bandwidth) unlocked.frozen_balance_for_bandwidth = Number(d.bandwidth);
    if (d.energy) unlocked.frozen_balance_for_energy = Number(d.energy);
    out.push(unlocked);
  }
  if (d.lockedEnergy || d.lockedBandwidth) {
    const locked: Json = { ...base };
    if (d.lockedBandwidth) {
      locked.frozen_balance_for_bandwidth = Number(d.lockedBandwidth);
      locked.expire_time_for_bandwidth = d.expireTimeForBandwidth;
    }
    if (d.lockedEnergy) {
      locked.frozen_balance_for_energy = Number(d.lockedEnergy);
      locked.expire_time_for_energy = d.expireTimeForEnergy;
    }
    out.push(locked);
  }
  return out;
}
