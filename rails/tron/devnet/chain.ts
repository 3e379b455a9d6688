// The chain: blocks, mempool, broadcast checks, block production, reorgs, and replay of
// the persisted log on start.
import { checkSignature, checkTapos } from "./admission.ts";
import { type Block, type IncludedTx, sealBlock } from "./block.ts";
import {
  addressFromPrivateKey,
  type HexAddress,
  privateKeyFromSeed,
  sha256,
  toHex,
} from "../protocol/crypto.ts";
import { type ExecContext, execute, TxRejected, validate } from "./executor.ts";
import { type Account, WorldState } from "./state.ts";
import type { ChainStore, GenesisConfig, LogEntry } from "./store.ts";
import type { SignedTransaction } from "../protocol/transaction.ts";

/** A real node treats blocks this far below the head as irreversible. */
export const SOLIDIFY_DEPTH = 19;
const MAX_EXPIRATION_MS = 86_400_000;

/** Two well-known witnesses; forks are sealed by the other one so their block ids differ. */
const WITNESS_KEYS = [
  privateKeyFromSeed("tron-devnet witness 1"),
  privateKeyFromSeed("tron-devnet witness 2"),
];
const WITNESS_ADDRESSES = WITNESS_KEYS.map(addressFromPrivateKey);

export class Chain {
  readonly state = new WorldState();
  readonly blocks: Block[] = [];
  private readonly txIndex = new Map<string, { block: number; index: number }>();
  mempool: SignedTransaction[] = [];
  readonly usdtContract: HexAddress;

  private constructor(
    readonly genesis: GenesisConfig,
    private readonly store: ChainStore,
    private readonly now: () => number,
  ) {
    this.usdtContract = genesis.usdtContract;
  }

  /** Opens the chain in `store`, creating it from `genesis` when the store is empty. */
  static open(store: ChainStore, genesis: GenesisConfig, now: () => number): Chain {
    const entries = store.load();
    const first = entries[0];
    const chain = new Chain(first?.kind === "genesis" ? first.genesis : genesis, store, now);
    if (entries.length === 0) {
      chain.record({ kind: "genesis", genesis });
      chain.applyGenesis();
      return chain;
    }
    chain.applyGenesis();
    for (const entry of entries.slice(1)) chain.replay(entry);
    return chain;
  }

  private record(entry: LogEntry): void {
    this.store.append(entry);
  }

  private applyGenesis(): void {
    const g = this.genesis;
    for (const a of g.accounts) this.credit(a.address, a.trx, a.usdt, g.timestamp);
    const contract = this.state.write(this.usdtContract);
    contract.exists = true;
    contract.createTime = g.timestamp;
    if (this.blocks.length === 0) {
      const genesis = sealBlock({
        number: 0,
        parentHash: toHex(sha256(new TextEncoder().encode("tron-devnet genesis"))),
        timestamp: g.timestamp,
        txs: [],
        changes: [],
        witnessAddress: WITNESS_ADDRESSES[0],
      });
      // Speaking as nile or mainnet: block 0 carries that network's id (its header cannot be rebuilt here),
      // and every later block descends from it, as TAPOS and parent hashes expect.
      if (g.genesisBlockId) genesis.blockID = g.genesisBlockId;
      this.pushBlock(genesis);
    }
  }

  private replay(entry: LogEntry): void {
    if (entry.kind === "block") {
      this.state.redo(entry.block.changes);
      this.pushBlock(entry.block);
    } else if (entry.kind === "reorg") {
      this.popBlocks(entry.depth);
    } else if (entry.kind === "fund") {
      this.credit(entry.address, entry.trx, entry.usdt, this.head.timestamp);
    }
  }

  private credit(address: HexAddress, trx: bigint, usdt: bigint, time: number): Account {
    const account = this.state.write(address);
    if (!account.exists) {
      account.exists = true;
      account.createTime = time;
    }
    account.funded = true;
    account.trx += trx;
    account.usdt += usdt;
    this.state.usdtTotalSupply += usdt;
    return account;
  }

  private pushBlock(block: Block): void {
    this.blocks.push(block);
    block.txs.forEach((t, index) => this.txIndex.set(t.tx.txID, { block: block.number, index }));
  }

  private popBlocks(depth: number): Block[] {
    const popped: Block[] = [];
    for (let i = 0; i < depth; i++) {
      const block = this.blocks.pop()!;
      this.state.undo(block.changes);
      for (const t of block.txs) this.txIndex.delete(t.tx.txID);
      popped.push(block);
    }
    return popped.reverse();
  }

  get head(): Block {
    return this.blocks[this.blocks.length - 1];
  }

  get solidifiedNumber(): number {
    return Math.max(0, this.head.number - SOLIDIFY_DEPTH);
  }

  /** The time broadcast checks expiration against: the head's, or now when blocks lag behind. */
  get referenceTime(): number {
    return Math.max(this.head.timestamp, this.now());
  }

  findTx(txID: string): { block: Block; included: IncludedTx } | null {
    const at = this.txIndex.get(txID.toLowerCase());
    if (!at) return null;
    const block = this.blocks[at.block];
    return { block, included: block.txs[at.index] };
  }

  /** The account as of block `number` (by undoing later blocks' changes). */
  accountAt(address: HexAddress, number: number): Account {
    if (number >= this.head.number) return this.state.read(address);
    return this.state.readBefore(address, this.blocks.slice(number + 1).map((b) => b.changes));
  }

  private context(time: number): ExecContext {
    return { state: this.state, usdtContract: this.usdtContract, time };
  }

  /** Checks a signed transaction as a node's broadcast does and queues it; throws TxRejected. */
  broadcast(tx: SignedTransaction): void {
    if (this.txIndex.has(tx.txID) || this.mempool.some((p) => p.txID === tx.txID)) {
      throw new TxRejected("DUP_TRANSACTION_ERROR", "Dup transaction.");
    }
    checkSignature(tx);
    checkTapos(tx, this.blocks);
    const reference = this.referenceTime;
    if (tx.raw.expiration <= reference || tx.raw.expiration > reference + MAX_EXPIRATION_MS) {
      throw new TxRejected(
        "TRANSACTION_EXPIRATION_ERROR",
        `Transaction expiration, transaction expiration time is ${tx.raw.expiration}, but headBlockTime is ${reference}`,
      );
    }
    this.validateAfterPending(tx, reference);
    this.mempool.push(tx);
  }

  /** Validates against the state the mempool would leave, as a node's pending state does. */
  private validateAfterPending(tx: SignedTransaction, time: number): void {
    this.state.beginBlock();
    try {
      for (const pending of this.mempool) {
        try {
          validate(pending, this.context(time));
          execute(pending, this.context(time));
        } catch (err) {
          if (!(err instanceof TxRejected)) throw err;
        }
      }
      validate(tx, this.context(time));
    } finally {
      this.state.rollbackBlock();
    }
  }

  /** Contract-level checks only, as the create* APIs do before handing out an unsigned transaction. */
  validateUnsigned(tx: SignedTransaction): void {
    validate(tx, this.context(this.referenceTime));
  }

  /** Seals the mempool into a new block; transactions that expired or became invalid are dropped. */
  produceBlock(
    timestamp = Math.max(this.now(), this.head.timestamp + 1),
    witness = 0,
    includeMempool = true,
  ): Block {
    const included: IncludedTx[] = [];
    const pending = includeMempool ? this.mempool : [];
    if (includeMempool) this.mempool = [];
    this.state.beginBlock();
    try {
      for (const tx of pending) {
        if (tx.raw.expiration <= timestamp || this.txIndex.has(tx.txID)) continue;
        try {
          validate(tx, this.context(timestamp));
        } catch (err) {
          if (err instanceof TxRejected) continue;
          throw err;
        }
        const { contractRet, info } = execute(tx, this.context(timestamp));
        included.push({ tx, contractRet, info });
      }
    } catch (err) {
      this.state.rollbackBlock();
      throw err;
    }
    const changes = this.state.commitBlock();
    const parent = this.head;
    const block = sealBlock({
      number: parent.number + 1,
      parentHash: parent.blockID,
      timestamp,
      txs: included,
      changes,
      witnessAddress: WITNESS_ADDRESSES[witness],
      witnessKey: WITNESS_KEYS[witness],
    });
    this.pushBlock(block);
    this.record({ kind: "block", block });
    return block;
  }

  /**
   * Replaces the last `depth` blocks with empty ones sealed by the other witness at the same
   * times; their transactions are dropped and their state changes undone.
   */
  reorg(depth: number): { dropped: string[] } {
    if (!Number.isInteger(depth) || depth < 1 || depth > this.head.number) {
      throw new RangeError(`reorg depth must be between 1 and ${this.head.number}`);
    }
    const popped = this.popBlocks(depth);
    this.record({ kind: "reorg", depth });
    for (const old of popped) {
      const otherWitness = WITNESS_ADDRESSES[0] === old.witnessAddress ? 1 : 0;
      this.produceBlock(old.timestamp, otherWitness, false);
    }
    return { dropped: popped.flatMap((b) => b.txs.map((t) => t.tx.txID)) };
  }

  /** Credits an account outside any block (the devnet's faucet); survives reorgs. */
  fund(address: HexAddress, trx: bigint, usdt: bigint): Account {
    if (trx < 0n || usdt < 0n) throw new RangeError("funding amounts must not be negative");
    const account = this.credit(address, trx, usdt, this.head.timestamp);
    this.record({ kind: "fund", address, trx, usdt });
    return { ...account };
  }
}
