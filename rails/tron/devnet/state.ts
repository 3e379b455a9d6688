// Account state with a per-block change journal, so blocks can be undone (reorg) and
// old states read back (walletsolidity answers as of the solidified block).
import type { HexAddress } from "../protocol/crypto.ts";

/** What one owner delegated to one receiver (java-tron's DelegatedResourceV2, locked and not). */
export interface Delegation {
  energy: bigint;
  bandwidth: bigint;
  lockedEnergy: bigint;
  lockedBandwidth: bigint;
  /** When the locked part may be taken back (ms). */
  expireTimeForEnergy: number;
  expireTimeForBandwidth: number;
}

export interface Account {
  address: HexAddress;
  /** Activated on chain: a real node has an Account record (getaccount answers {} otherwise). */
  exists: boolean;
  /** Activated by the control API rather than by a transaction; a reorg never deactivates it. */
  funded: boolean;
  trx: bigint;
  usdt: bigint;
  createTime: number;
  latestOperationTime: number;
  freeNetUsed: number;
  latestConsumeFreeTime: number;
  /** Stake 2.0 (sun): staked and kept, delegated out to others, acquired from others. */
  frozenEnergy: bigint;
  frozenBandwidth: bigint;
  delegatedEnergy: bigint;
  delegatedBandwidth: bigint;
  acquiredEnergy: bigint;
  acquiredBandwidth: bigint;
  /** Staked resources used, recovering over 24 h from the latest consume time. */
  energyUsage: number;
  latestConsumeTimeForEnergy: number;
  netUsage: number;
  latestConsumeTime: number;
  /** Delegations made by this account, by receiver. Replaced, never mutated, so journals stay true. */
  delegations: Record<HexAddress, Delegation>;
  /** Unstaked TRX waiting out the unfreeze delay (unfrozenV2). Replaced, never mutated. */
  unfrozen: Unfreezing[];
}

export interface Unfreezing {
  resource: number;
  amount: bigint;
  expireTime: number;
}

const STAKE_FIELDS = [
  "frozenEnergy",
  "frozenBandwidth",
  "delegatedEnergy",
  "delegatedBandwidth",
  "acquiredEnergy",
  "acquiredBandwidth",
  "energyUsage",
  "latestConsumeTimeForEnergy",
  "netUsage",
  "latestConsumeTime",
  "delegations",
  "unfrozen",
] as const;

/** The fields a block sets outright (as opposed to balances, which it moves by a delta). */
type AbsoluteFields = Pick<
  Account,
  | "exists"
  | "createTime"
  | "latestOperationTime"
  | "freeNetUsed"
  | "latestConsumeFreeTime"
  | (typeof STAKE_FIELDS)[number]
>;

/** What one block did to one account. Balances are deltas so out-of-band funding survives undo. */
export interface AccountChange {
  address: HexAddress;
  trx: bigint;
  usdt: bigint;
  before: AbsoluteFields;
  after: AbsoluteFields;
}

const absolute = (a: Account): AbsoluteFields => ({
  exists: a.exists,
  createTime: a.createTime,
  latestOperationTime: a.latestOperationTime,
  freeNetUsed: a.freeNetUsed,
  latestConsumeFreeTime: a.latestConsumeFreeTime,
  ...Object.fromEntries(STAKE_FIELDS.map((k) => [k, a[k]])) as Pick<Account, (typeof STAKE_FIELDS)[number]>,
});

/** TRX an account itself staked (kept or delegated out): what counts in the network's total weight. */
const ownStake = (a: Account) => ({
  energy: a.frozenEnergy + a.delegatedEnergy,
  bandwidth: a.frozenBandwidth + a.delegatedBandwidth,
});

export function emptyAccount(address: HexAddress): Account {
  return {
    address,
    exists: false,
    funded: false,
    trx: 0n,
    usdt: 0n,
    createTime: 0,
    latestOperationTime: 0,
    freeNetUsed: 0,
    latestConsumeFreeTime: 0,
    frozenEnergy: 0n,
    frozenBandwidth: 0n,
    delegatedEnergy: 0n,
    delegatedBandwidth: 0n,
    acquiredEnergy: 0n,
    acquiredBandwidth: 0n,
    energyUsage: 0,
    latestConsumeTimeForEnergy: 0,
    netUsage: 0,
    latestConsumeTime: 0,
    delegations: {},
    unfrozen: [],
  };
}

export class WorldState {
  private accounts = new Map<HexAddress, Account>();
  private journal: Map<HexAddress, Account> | null = null;
  usdtTotalSupply = 0n;
  /** Sum of every account's own stake (sun), recomputed lazily after a stake may have changed. */
  private stakeTotals: { energy: bigint; bandwidth: bigint } | null = null;

  totalStaked(): { energy: bigint; bandwidth: bigint } {
    if (!this.stakeTotals) {
      const totals = { energy: 0n, bandwidth: 0n };
      for (const a of this.accounts.values()) {
        const own = ownStake(a);
        totals.energy += own.energy;
        totals.bandwidth += own.bandwidth;
      }
      this.stakeTotals = totals;
    }
    return { ...this.stakeTotals };
  }

  /** Called by whatever changes an account's stake outside the journal's undo paths. */
  stakeChanged(): void {
    this.stakeTotals = null;
  }

  private noteRestored(before: Account | AbsoluteFields, after: Account | AbsoluteFields): void {
    const staked = (a: Partial<Account>) =>
      (a.frozenEnergy ?? 0n) + (a.delegatedEnergy ?? 0n) +
          (a.frozenBandwidth ?? 0n) + (a.delegatedBandwidth ?? 0n) !== 0n;
    if (staked(before) || staked(after)) this.stakeTotals = null;
  }

  /** A copy of the account (a fresh empty one when never seen). */
  read(address: HexAddress): Account {
    const found = this.accounts.get(address);
    return found ? { ...found } : emptyAccount(address);
  }

  /** The live account for changing; inside a block the prior value is journaled first. */
  write(address: HexAddress): Account {
    let account = this.accounts.get(address);
    if (!account) {
      account = emptyAccount(address);
      this.accounts.set(address, account);
    }
    if (this.journal && !this.journal.has(address)) this.journal.set(address, { ...account });
    return account;
  }

  beginBlock(): void {
    this.journal = new Map();
  }

  /** Ends the block, answering its changes. */
  commitBlock(): AccountChange[] {
    const journal = this.journal ?? new Map();
    this.journal = null;
    const changes: AccountChange[] = [];
    for (const [address, before] of journal) {
      const after = this.accounts.get(address)!;
      changes.push({
        address,
        trx: after.trx - before.trx,
        usdt: after.usdt - before.usdt,
        before: absolute(before),
        after: absolute(after),
      });
    }
    return changes;
  }

  /** Throws away the open block's changes (a block that failed half-way). */
  rollbackBlock(): void {
    const journal = this.journal ?? new Map();
    this.journal = null;
    for (const [address, before] of journal) {
      this.noteRestored(before, this.accounts.get(address)!);
      this.accounts.set(address, before);
    }
  }

  /** Re-applies a persisted block's changes (used when reloading the chain). */
  redo(changes: AccountChange[]): void {
    for (const change of changes) {
      const account = this.write(change.address);
      account.trx += change.trx;
      account.usdt += change.usdt;
      Object.assign(account, change.after);
      this.noteRestored(change.before, change.after);
    }
  }

  undo(changes: AccountChange[]): void {
    for (const change of [...changes].reverse()) {
      const account = this.write(change.address);
      undoInto(account, change);
      this.noteRestored(change.before, change.after);
    }
  }

  /** The account as it was before the given blocks' changes (newest block first or any order). */
  readBefore(address: HexAddress, laterBlocks: AccountChange[][]): Account {
    const account = this.read(address);
    for (let i = laterBlocks.length - 1; i >= 0; i--) {
      for (const change of laterBlocks[i]) if (change.address === address) undoInto(account, change);
    }
    return account;
  }

  all(): Account[] {
    return [...this.accounts.values()].map((a) => ({ ...a }));
  }
}

function undoInto(account: Account, change: AccountChange): void {
  account.trx -= change.trx;
  account.usdt -= change.usdt;
  const wasFunded = account.funded && account.exists;
  Object.assign(account, change.before);
  if (wasFunded) account.exists = true;
}
