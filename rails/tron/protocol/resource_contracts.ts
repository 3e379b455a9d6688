// The Stake 2.0 contracts (core/contract/balance_contract.proto): their model, protobuf
// encoding (field numbers as java-tron's, proto3 defaults omitted so txIDs match) and JSON.
import { fromHex, type HexAddress, toBase58Address, toHex, toHexAddress } from "./crypto.ts";
import { firstBytes, firstInt, ProtoWriter, type readFields } from "./protobuf.ts";

/** Common.ResourceCode; TRON_POWER (2) and unknown values decode but fail validation. */
export const RESOURCE_CODES = { BANDWIDTH: 0, ENERGY: 1, TRON_POWER: 2 } as const;
export type ResourceName = keyof typeof RESOURCE_CODES;

export const resourceName = (code: number): string =>
  (Object.keys(RESOURCE_CODES) as ResourceName[]).find((k) => RESOURCE_CODES[k] === code) ?? String(code);

export interface FreezeV2Value {
  owner_address: HexAddress;
  frozen_balance: bigint;
  resource: number;
}

export interface DelegateValue {
  owner_address: HexAddress;
  resource: number;
  balance: bigint;
  receiver_address: HexAddress;
  lock: boolean;
  lock_period: bigint;
}

export interface UnDelegateValue {
  owner_address: HexAddress;
  resource: number;
  balance: bigint;
  receiver_address: HexAddress;
}

export interface UnfreezeV2Value {
  owner_address: HexAddress;
  unfreeze_balance: bigint;
  resource: number;
}

export type ResourceCall =
  | { type: "FreezeBalanceV2Contract"; value: FreezeV2Value }
  | { type: "UnfreezeBalanceV2Contract"; value: UnfreezeV2Value }
  | { type: "WithdrawExpireUnfreezeContract"; value: { owner_address: HexAddress } }
  | { type: "DelegateResourceContract"; value: DelegateValue }
  | { type: "UnDelegateResourceContract"; value: UnDelegateValue };

export const RESOURCE_CONTRACT_IDS = {
  FreezeBalanceV2Contract: 54,
  UnfreezeBalanceV2Contract: 55,
  WithdrawExpireUnfreezeContract: 56,
  DelegateResourceContract: 57,
  UnDelegateResourceContract: 58,
} as const;

export const isResourceCall = (call: { type: string }): call is ResourceCall =>
  call.type in RESOURCE_CONTRACT_IDS;

export function encodeResourceValue(call: ResourceCall): Uint8Array {
  const w = new ProtoWriter().bytes(1, fromHex(call.value.owner_address));
  if (call.type === "FreezeBalanceV2Contract") {
    return w.int(2, call.value.frozen_balance).int(3, call.value.resource).finish();
  }
  if (call.type === "UnfreezeBalanceV2Contract") {
    return w.int(2, call.value.unfreeze_balance).int(3, call.value.resource).finish();
  }
  if (call.type === "WithdrawExpireUnfreezeContract") return w.finish();
  w.int(2, call.value.resource).int(3, call.value.balance).bytes(4, fromHex(call.value.receiver_address));
  if (call.type === "DelegateResourceContract") {
    w.int(5, call.value.lock ? 1 : 0).int(6, call.value.lock_period);
  }
  return w.finish();
}

type Fields = ReturnType<typeof readFields>;

/** The contract of type id `typeId` from its decoded value fields; null for another type. */
export function decodeResourceValue(typeId: number, value: Fields): ResourceCall | null {
  const owner_address = toHex(firstBytes(value, 1));
  if (typeId === RESOURCE_CONTRACT_IDS.FreezeBalanceV2Contract) {
    return {
      type: "FreezeBalanceV2Contract",
      value: { owner_address, frozen_balance: firstInt(value, 2), resource: Number(firstInt(value, 3)) },
    };
  }
  if (typeId === RESOURCE_CONTRACT_IDS.UnfreezeBalanceV2Contract) {
    return {
      type: "UnfreezeBalanceV2Contract",
      value: { owner_address, unfreeze_balance: firstInt(value, 2), resource: Number(firstInt(value, 3)) },
    };
  }
  if (typeId === RESOURCE_CONTRACT_IDS.WithdrawExpireUnfreezeContract) {
    return { type: "WithdrawExpireUnfreezeContract", value: { owner_address } };
  }
  const common = {
    owner_address,
    resource: Number(firstInt(value, 2)),
    balance: firstInt(value, 3),
    receiver_address: toHex(firstBytes(value, 4)),
  };
  if (typeId === RESOURCE_CONTRACT_IDS.DelegateResourceContract) {
    return {
      type: "DelegateResourceContract",
      value: { ...common, lock: firstInt(value, 5) !== 0n, lock_period: firstInt(value, 6) },
    };
  }
  if (typeId === RESOURCE_CONTRACT_IDS.UnDelegateResourceContract) {
    return { type: "UnDelegateResourceContract", value: common };
  }
  return null;
}

type Json = Record<string, unknown>;
const addressOut = (hex: HexAddress, visible: boolean) => visible ? toBase58Address(hex) : hex;

/** The value as java-tron prints it: enum names, defaults (0, false) left out, keys sorted. */
export function resourceValueJson(call: ResourceCall, visible: boolean): Json {
  const out: Json = {};
  if (call.type === "WithdrawExpireUnfreezeContract") {
    return { owner_address: addressOut(call.value.owner_address, visible) };
  }
  if (call.type === "UnfreezeBalanceV2Contract") {
    out.owner_address = addressOut(call.value.owner_address, visible);
    if (call.value.resource !== 0) out.resource = resourceName(call.value.resource);
    out.unfreeze_balance = Number(call.value.unfreeze_balance);
    return out;
  }
  if (call.type === "FreezeBalanceV2Contract") {
    out.frozen_balance = Number(call.value.frozen_balance);
  } else {
    out.balance = Number(call.value.balance);
  }
  if (call.type === "DelegateResourceContract") {
    if (call.value.lock) out.lock = true;
    if (call.value.lock_period !== 0n) out.lock_period = Number(call.value.lock_period);
  }
  out.owner_address = addressOut(call.value.owner_address, visible);
  if (call.type !== "FreezeBalanceV2Contract") {
    out.receiver_address = addressOut(call.value.receiver_address, visible);
  }
  if (call.value.resource !== 0) out.resource = resourceName(call.value.resource);
  return out;
}

/** A ResourceCode from JSON: its name ("ENERGY") or number; anything else throws. */
export function resourceFromJson(value: unknown): number {
  if (value === undefined || value === null || value === "") return 0;
  if (typeof value === "string" && value in RESOURCE_CODES) return RESOURCE_CODES[value as ResourceName];
  const n = Number(value);
  if (typeof value !== "boolean" && Number.isInteger(n) && n >= 0 && n <= 0x7fffffff) return n;
  throw new Error(`invalid resource: ${String(value).slice(0, 40)}`);
}

const int = (v: unknown): bigint => {
  if (v === undefined || v === null || v === "") return 0n;
  if (typeof v === "boolean" || typeof v === "object") throw new Error("an integer was expected");
  return BigInt(String(v));
};
const bool = (v: unknown): boolean => v === true || v === "true" || v === 1;

/** Parses a contract value JSON (addresses in either form); null for another contract type. */
export function resourceCallFromJson(type: string, value: Json): ResourceCall | null {
  const addr = (k: string) => toHexAddress(String(value[k] ?? ""));
  if (type === "FreezeBalanceV2Contract") {
    return {
      type,
      value: {
        owner_address: addr("owner_address"),
        frozen_balance: int(value.frozen_balance),
        resource: resourceFromJson(value.resource),
      },
    };
  }
  if (type === "UnfreezeBalanceV2Contract") {
    return {
      type,
      value: {
        owner_address: addr("owner_address"),
        unfreeze_balance: int(value.unfreeze_balance),
        resource: resourceFromJson(value.resource),
      },
    };
  }
  if (type === "WithdrawExpireUnfreezeContract") {
    return { type, value: { owner_address: addr("owner_address") } };
  }
  if (type !== "DelegateResourceContract" && type !== "UnDelegateResourceContract") return null;
  const common = {
    owner_address: addr("owner_address"),
    resource: resourceFromJson(value.resource),
    balance: int(value.balance),
    receiver_address: addr("receiver_address"),
  };
  if (type === "UnDelegateResourceContract") return { type, value: common };
  return { type, value: { ...common, lock: bool(value.lock), lock_period: int(value.lock_period) } };
}
