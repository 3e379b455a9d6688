// Account state with a per-block change journal, so blocks can be undone (reorg) and
// old states read back (walletsolidity answers as of the solidified block).
import type { HexAddress } from "./crypto.ts";

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
}

/** The fields a block sets outright (as opposed to balances, which it moves by a delta). */
type AbsoluteFields = Pick<
  Account,
  "exists" | "createTime" | "latestOperationTime" | "freeNetUsed" | "latestConsumeFreeTime"
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
  };
}

export class WorldState {
  private accounts = new Map<HexAddress, Account>();
  private journal: Map<HexAddress, Account> | null = null;
  usdtTotalSupply = 0n;

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
    for (const [address, before] of journal) this.accounts.set(address, before);
  }

  /** Re-applies a persisted block's changes (used when reloading the chain). */
  redo(changes: AccountChange[]): void {
    for (const change of changes) {
      const account = this.write(change.address);
      account.trx += change.trx;
      account.usdt += change.usdt;
      Object.assign(account, change.after);
    }
  }

  undo(changes: AccountChange[]): void {
    for (const change of [...changes].reverse()) {
      const account = this.write(change.address);
      undoInto(account, change);
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
