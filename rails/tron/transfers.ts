// USDT transfers out of transaction infos, under the policy "only real transfers": a Transfer log
// counts only when the transaction succeeded and the log was emitted by the configured contract.
import type { TxInfo } from "./client.ts";
import { toBase58Address, toHexAddress } from "./protocol/crypto.ts";

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
export const USDT_DECIMALS = 6;

export interface UsdtTransfer {
  txId: string;
  /** Index of the log within its transaction's log array. */
  logIndex: number;
  blockNumber: number;
  /** 41-prefixed lower-case hex. */
  fromHex: string;
  toHex: string;
  /** Base58 "T...": computed when first read (most transfers of a block are not to a watched address). */
  readonly from: string;
  readonly to: string;
  /** Base units (1e-6 USDT). */
  units: bigint;
  /** Decimal with exactly 6 fractional digits, e.g. "12.500000". */
  amount: string;
}

const WORD = /^[0-9a-f]{64}$/;
const ADDRESS_WORD = /^0{24}[0-9a-f]{40}$/;

/** Transfers of `usdtContract` (base58 or hex) in `infos`, in block order then log order. */
export function extractUsdtTransfers(infos: TxInfo[], usdtContract: string): UsdtTransfer[] {
  const contract20 = toHexAddress(usdtContract).slice(2);
  const out: UsdtTransfer[] = [];
  for (const info of infos) {
    if (!info || info.receiptResult !== "SUCCESS" || info.result === "FAILED") continue;
    if (typeof info.id !== "string" || !WORD.test(info.id.toLowerCase())) continue;
    if (!Number.isSafeInteger(info.blockNumber) || !Array.isArray(info.logs)) continue;
    info.logs.forEach((log, logIndex) => {
      const transfer = readTransfer(log, contract20);
      if (!transfer) return;
      const { fromHex, toHex, units } = transfer;
      out.push({
        txId: info.id.toLowerCase(),
        logIndex,
        blockNumber: info.blockNumber,
        fromHex,
        toHex,
        get from() {
          return base58Of(fromHex);
        },
        get to() {
          return base58Of(toHex);
        },
        units,
        amount: formatUsdt(units),
      });
    });
  }
  return out;
}

function readTransfer(
  log: unknown,
  contract20: string,
): Pick<UsdtTransfer, "fromHex" | "toHex" | "units"> | null {
  if (!log || typeof log !== "object") return null;
  const { address, topics, data } = log as { address?: unknown; topics?: unknown; data?: unknown };
  if (typeof address !== "string" || typeof data !== "string" || !Array.isArray(topics)) return null;
  if (emitter20(address) !== contract20) return null;
  if (topics.length !== 3 || !topics.every((t) => typeof t === "string")) return null;
  const [topic0, fromWord, toWord] = (topics as string[]).map((t) => t.toLowerCase().replace(/^0x/, ""));
  if (topic0 !== TRANSFER_TOPIC) return null;
  // Indexed addresses are 32-byte words whose upper 12 bytes are zero.
  if (!ADDRESS_WORD.test(fromWord) || !ADDRESS_WORD.test(toWord)) return null;
  const value = data.toLowerCase().replace(/^0x/, "");
  if (!WORD.test(value)) return null;
  const units = BigInt("0x" + value);
  if (units === 0n) return null;
  return { fromHex: "41" + fromWord.slice(24), toHex: "41" + toWord.slice(24), units };
}

/**
 * Base58 forms already computed: an exchange's hot wallet or a customer's address sends many transfers,
 * and each form costs two SHA-256 and a big-number division. Bounded: emptied when full.
 */
const base58Forms = new Map<string, string>();
const BASE58_FORMS_KEPT = 20_000;

function base58Of(hex: string): string {
  let form = base58Forms.get(hex);
  if (form === undefined) {
    if (base58Forms.size >= BASE58_FORMS_KEPT) base58Forms.clear();
    form = toBase58Address(hex);
    base58Forms.set(hex, form);
  }
  return form;
}

/** The 20-byte emitter in lower-case hex: nodes print it without the 41 prefix, but accept it with. */
function emitter20(address: string): string | null {
  const value = address.toLowerCase().replace(/^0x/, "");
  if (/^[0-9a-f]{40}$/.test(value)) return value;
  if (/^41[0-9a-f]{40}$/.test(value)) return value.slice(2);
  return null;
}

/** Base units as a decimal string with 6 fractional digits: 12500000n -> "12.500000". */
export function formatUsdt(units: bigint): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = abs / 1_000_000n;
  const frac = (abs % 1_000_000n).toString().padStart(USDT_DECIMALS, "0");
  return `${negative ? "-" : ""}${whole}.${frac}`;
}
