// Persistence as an append-only JSON-lines log: one line per genesis, block, reorg and
// funding. Appends never rewrite earlier lines, so a crash can at worst leave a torn last
// line, which loading ignores.
import { fromHex, toHex } from "../protocol/crypto.ts";
import type { Block, IncludedTx } from "./block.ts";
import type { ContractRet } from "./executor.ts";
import type { AccountChange } from "./state.ts";
import { decodeTransaction, encodeTransaction, type Json } from "../protocol/transaction.ts";

export interface GenesisConfig {
  timestamp: number;
  customerPrivateKey: string;
  usdtContract: string;
  accounts: { address: string; trx: bigint; usdt: bigint }[];
  /**
   * The genesis block's id when the devnet speaks as a public network (its real block 0 id, so that a
   * gateway's network check sees nile or mainnet); absent: the id its own header hashes to.
   */
  genesisBlockId?: string;
}

export type LogEntry =
  | { kind: "genesis"; genesis: GenesisConfig }
  | { kind: "block"; block: Block }
  | { kind: "reorg"; depth: number }
  | { kind: "fund"; address: string; trx: bigint; usdt: bigint };

export interface ChainStore {
  load(): LogEntry[];
  append(entry: LogEntry): void;
}

/** Bigints travel as {"$bigint": "123"} so amounts never pass through a JS number. */
function replacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? { $bigint: value.toString() } : value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === "$bigint") return BigInt((value as { $bigint: string }).$bigint);
  }
  return value;
}

interface StoredTx {
  hex: string;
  contractRet: ContractRet;
  info: Json;
}

function toStored(entry: LogEntry): unknown {
  if (entry.kind !== "block") return entry;
  const { txs, ...rest } = entry.block;
  const stored: StoredTx[] = txs.map((t) => ({
    hex: toHex(encodeTransaction(t.tx.rawBytes, t.tx.signatures)),
    contractRet: t.contractRet,
    info: t.info,
  }));
  return { kind: "block", block: { ...rest, txs: stored } };
}

function fromStored(value: Json): LogEntry {
  if (value.kind !== "block") return value as unknown as LogEntry;
  const block = value.block as Json;
  const txs: IncludedTx[] = (block.txs as StoredTx[]).map((t) => ({
    tx: decodeTransaction(fromHex(t.hex)),
    contractRet: t.contractRet,
    info: t.info,
  }));
  return {
    kind: "block",
    block: { ...(block as unknown as Block), txs, changes: block.changes as AccountChange[] },
  };
}

export function serializeEntry(entry: LogEntry): string {
  return JSON.stringify(toStored(entry), replacer);
}

export function parseEntry(line: string): LogEntry {
  return fromStored(JSON.parse(line, reviver));
}

export class MemoryStore implements ChainStore {
  private lines: string[] = [];
  load(): LogEntry[] {
    return this.lines.map(parseEntry);
  }
  append(entry: LogEntry): void {
    this.lines.push(serializeEntry(entry));
  }
}

export class FileStore implements ChainStore {
  readonly file: string;

  constructor(readonly dir: string) {
    this.file = `${dir}/chain.jsonl`;
  }

  load(): LogEntry[] {
    let text: string;
    try {
      text = Deno.readTextFileSync(this.file);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return [];
      throw err;
    }
    const lines = text.split("\n");
    const entries: LogEntry[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() === "") continue;
      try {
        entries.push(parseEntry(lines[i]));
      } catch (err) {
        // Only the last line can be torn by a crash mid-append; anything earlier is corruption.
        const isLast = lines.slice(i + 1).every((l) => l.trim() === "");
        if (!isLast) throw err;
        this.truncateTo(lines.slice(0, i).join("\n") + (i > 0 ? "\n" : ""));
      }
    }
    return entries;
  }

  private truncateTo(text: string): void {
    const tmp = `${this.file}.tmp`;
    Deno.writeTextFileSync(tmp, text);
    Deno.renameSync(tmp, this.file);
  }

  append(entry: LogEntry): void {
    Deno.mkdirSync(this.dir, { recursive: true });
    const file = Deno.openSync(this.file, { append: true, create: true });
    try {
      const bytes = new TextEncoder().encode(serializeEntry(entry) + "\n");
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
      file.syncDataSync();
    } finally {
      file.close();
    }
  }
}
