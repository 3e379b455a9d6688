// Builds and signs TRON transactions locally, without asking the node to build them: staking
// (FreezeBalanceV2, UnfreezeBalanceV2, WithdrawExpireUnfreeze), energy delegation (DelegateResource / UnDelegateResource), TRX and TRC20
// transfers. Nothing here broadcasts: payouts store the signed transaction and its txID first,
// then broadcast it (resources.ts), so a crash in between re-sends the same bytes.
// The protobuf encoding is the devnet's, which is checked byte for byte against tronweb's.
import { addressFromPrivateKey, fromHex, signHash, toHex, toHexAddress } from "./protocol/crypto.ts";
import { type ContractCall, makeSigned, rawToJson } from "./protocol/transaction.ts";
import { RESOURCE_CODES } from "./protocol/resource_contracts.ts";
import { abiAddress, abiUint } from "./client.ts";

export type Resource = "ENERGY" | "BANDWIDTH";

/** The block a transaction references (TAPOS): the node's head, from client.getNowBlock(). */
export interface RefBlock {
  number: number;
  /** blockID, 64 hex characters. */
  hash: string;
  /** Milliseconds. */
  timestamp: number;
}

export interface SignOptions {
  /** How long after the reference block the transaction stays valid; default 60 s, at most 24 h. */
  expirationMs?: number;
  /** The transaction's timestamp (ms); default now. */
  now?: number;
  /**
   * A note carried in raw_data.data (TRON's memo). A payout puts its id there: two payouts of the same
   * amount to the same address, signed in the same millisecond, are then still two transactions.
   */
  memo?: string;
}

/** A signed transaction as wallet/broadcasttransaction takes it. */
export interface SignedTronTransaction {
  visible: false;
  txID: string;
  raw_data: Record<string, unknown>;
  raw_data_hex: string;
  signature: string[];
}

const INT64_MAX = (1n << 63n) - 1n;
const MAX_EXPIRATION_MS = 86_400_000;

function positive(name: string, value: bigint): bigint {
  if (typeof value !== "bigint" || value <= 0n || value > INT64_MAX) {
    throw new RangeError(`${name} must be a positive int64 bigint`);
  }
  return value;
}

function keyOf(privateKey: string): string {
  const key = String(privateKey).replace(/^0x/, "");
  if (!/^[0-9a-fA-F]{64}$/.test(key)) throw new RangeError("private key must be 32 bytes of hex");
  return key.toLowerCase();
}

function resourceCode(resource: Resource): number {
  if (resource !== "ENERGY" && resource !== "BANDWIDTH") {
    throw new RangeError(`unknown resource: ${resource}`);
  }
  return RESOURCE_CODES[resource];
}

function receiverOf(receiver: string, owner: string): string {
  const hex = toHexAddress(receiver);
  if (hex === owner) throw new RangeError("the receiver must not be the owner");
  return hex;
}

function sign(
  privateKey: string,
  contract: ContractCall,
  ref: RefBlock,
  feeLimit: bigint,
  options: SignOptions = {},
): SignedTronTransaction {
  const expirationMs = options.expirationMs ?? 60_000;
  if (!Number.isSafeInteger(expirationMs) || expirationMs <= 0 || expirationMs > MAX_EXPIRATION_MS) {
    throw new RangeError("expirationMs must be between 1 ms and 24 h");
  }
  if (!Number.isSafeInteger(ref.number) || ref.number < 0 || !/^[0-9a-fA-F]{64}$/.test(ref.hash)) {
    throw new RangeError("not a reference block");
  }
  const tx = makeSigned({
    refBlockBytes: (ref.number & 0xffff).toString(16).padStart(4, "0"),
    refBlockHash: ref.hash.toLowerCase().slice(16, 32),
    expiration: ref.timestamp + expirationMs,
    timestamp: options.now ?? Date.now(),
    feeLimit,
    data: options.memo ? toHex(new TextEncoder().encode(options.memo)) : "",
    contract,
    permissionId: 0,
  });
  return {
    visible: false,
    txID: tx.txID,
    raw_data: rawToJson(tx.raw, false),
    raw_data_hex: toHex(tx.rawBytes),
    signature: [signHash(fromHex(tx.txID), privateKey)],
  };
}

/** Stakes `amountSun` of the key's TRX for a resource. */
export function signFreezeBalanceV2(
  privateKey: string,
  p: { amountSun: bigint; resource: Resource },
  ref: RefBlock,
  options?: SignOptions,
): SignedTronTransaction {
  const key = keyOf(privateKey);
  return sign(
    key,
    {
      type: "FreezeBalanceV2Contract",
      value: {
        owner_address: addressFromPrivateKey(key),
        frozen_balance: positive("amountSun", p.amountSun),
        resource: resourceCode(p.resource),
      },
    },
    ref,
    0n,
    options,
  );
}

/** Starts unstaking `amountSun` (the TRX comes back after the 14-day unfreeze delay). */
export function signUnfreezeBalanceV2(
  privateKey: string,
  p: { amountSun: bigint; resource: Resource },
  ref: RefBlock,
  options?: SignOptions,
): SignedTronTransaction {
  const key = keyOf(privateKey);
  return sign(
    key,
    {
      type: "UnfreezeBalanceV2Contract",
      value: {
        owner_address: addressFromPrivateKey(key),
        unfreeze_balance: positive("amountSun", p.amountSun),
        resource: resourceCode(p.resource),
      },
    },
    ref,
    0n,
    options,
  );
}

/** Returns unstaked TRX whose unfreeze delay has passed to the balance. */
export function signWithdrawExpireUnfreeze(
  privateKey: string,
  ref: RefBlock,
  options?: SignOptions,
): SignedTronTransaction {
  const key = keyOf(privateKey);
  return sign(
    key,
    {
      type: "WithdrawExpireUnfreezeContract",
      value: { owner_address: addressFromPrivateKey(key) },
    },
    ref,
    0n,
    options,
  );
}

/** Lends the resource of `amountSun` staked TRX to `receiver` (which must be an activated account). */
export function signDelegateResource(
  privateKey: string,
  p: { receiver: string; amountSun: bigint; resource: Resource; lockPeriodBlocks?: bigint },
  ref: RefBlock,
  options?: SignOptions,
): SignedTronTransaction {
  const key = keyOf(privateKey);
  const owner = addressFromPrivateKey(key);
  const lock = p.lockPeriodBlocks !== undefined;
  return sign(
    key,
    {
      type: "DelegateResourceContract",
      value: {
        owner_address: owner,
        resource: resourceCode(p.resource),
        balance: positive("amountSun", p.amountSun),
        receiver_address: receiverOf(p.receiver, owner),
        lock,
        lock_period: lock ? positive("lockPeriodBlocks", p.lockPeriodBlocks!) : 0n,
      },
    },
    ref,
    0n,
    options,
  );
}

/** Takes back what was delegated to `receiver`. */
export function signUndelegateResource(
  privateKey: string,
  p: { receiver: string; amountSun: bigint; resource: Resource },
  ref: RefBlock,
  options?: SignOptions,
): SignedTronTransaction {
  const key = keyOf(privateKey);
  const owner = addressFromPrivateKey(key);
  return sign(
    key,
    {
      type: "UnDelegateResourceContract",
      value: {
        owner_address: owner,
        resource: resourceCode(p.resource),
        balance: positive("amountSun", p.amountSun),
        receiver_address: receiverOf(p.receiver, owner),
      },
    },
    ref,
    0n,
    options,
  );
}

/** Sends `amountSun` TRX (the fee fallback for a sweep, or activating a deposit address). */
export function signTrxTransfer(
  privateKey: string,
  p: { to: string; amountSun: bigint },
  ref: RefBlock,
  options?: SignOptions,
): SignedTronTransaction {
  const key = keyOf(privateKey);
  const owner = addressFromPrivateKey(key);
  return sign(
    key,
    {
      type: "TransferContract",
      value: {
        owner_address: owner,
        to_address: receiverOf(p.to, owner),
        amount: positive("amountSun", p.amountSun),
      },
    },
    ref,
    0n,
    options,
  );
}

/**
 * A TRC20 transfer(to, units). `feeLimitSun` caps all the energy the call may use, staked or bought
 * (java-tron's rule), so even a fully delegated sweep needs fee_limit >= energy * energy price.
 */
export function signTrc20Transfer(
  privateKey: string,
  p: { contract: string; to: string; units: bigint; feeLimitSun: bigint },
  ref: RefBlock,
  options?: SignOptions,
): SignedTronTransaction {
  const key = keyOf(privateKey);
  const feeLimit = positive("feeLimitSun", p.feeLimitSun);
  return sign(
    key,
    {
      type: "TriggerSmartContract",
      value: {
        owner_address: addressFromPrivateKey(key),
        contract_address: toHexAddress(p.contract),
        call_value: 0n,
        data: "a9059cbb" + abiAddress(p.to) + abiUint(positive("units", p.units)),
        call_token_value: 0n,
        token_id: 0n,
      },
    },
    ref,
    feeLimit,
    options,
  );
}
