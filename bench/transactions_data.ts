// A generated transaction history for the `transactions` bench and the history's tests: pay-ins on all
// three rails, payouts, USDT and XOF withdrawals, conversions and executed bulk items (USDT and mobile
// money), with customers, references and notes drawn from pools that include accents, other scripts and
// text a spreadsheet or a LIKE pattern would misread. Rows go into the real source tables in batches
// (jsonb_to_recordset), so the projection is filled by the same triggers as in production.
import type { Db } from "../db/mod.ts";
import { newId } from "../domain/ids.ts";
import { emptyBatch, writeBatch } from "./transactions_data_write.ts";

export type GeneratedTx = {
  id: string;
  merchantId: string;
  isSandbox: boolean;
  type: "PAYIN" | "PAYOUT" | "WITHDRAWAL" | "CONVERSION" | "BULK_ITEM";
  status: string;
  currency: string;
  paymentMethod: string | null;
  createdAtMs: number;
  /** The fields search looks in, as stored. */
  searchable: string[];
};

/** A small seeded generator (mulberry32): the same seed makes the same history. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const FIRST_NAMES = [
  "Awa",
  "Moussa",
  "Fatimata",
  "Issouf",
  "Aminata",
  "Boukary",
  "Salif",
  "Mariam",
  "Éloïse",
  "Zoé",
  "Ousmane",
  "Rasmata",
  "Δημήτρης",
  "李雷",
  "O'Brien",
  "100%_Pure",
  "Back\\slash",
  '=HYPERLINK("x")',
  "@handle",
  "-minus",
  "(.*)",
  "[abc]",
];
export const LAST_NAMES = [
  "Ouedraogo",
  "Sawadogo",
  "Traoré",
  "Kaboré",
  "Zongo",
  "Compaoré",
  "Diallo",
  "Nikiéma",
];
const DOMAINS = ["gmail.com", "yahoo.fr", "orange.bf", "example.com", "entreprise.bf"];
const NOTES = [
  "Commande boutique",
  "Facture n°12",
  "50% acompte",
  "a_b_c",
  "=1+1",
  "+33 rappel",
  "Livraison Ouaga",
  "café\tcrème",
];

type Pick = <T>(items: readonly T[]) => T;

export type HistoryOptions = {
  merchantId: string;
  count: number;
  isSandbox?: boolean;
  seed?: number;
  /** Newest possible created_at; rows spread over `spanDays` before it. */
  endAt?: Date;
  spanDays?: number;
  /** Keep what was generated (tests' oracle); a bench of a million rows does not. */
  collect?: boolean;
  batchSize?: number;
  onProgress?: (done: number) => void;
  /**
   * Only final statuses (the console bench's history around its waiting items: nothing generated may join
   * a queue). The same draws are made either way, so a seed makes the same rows otherwise.
   */
  finishedOnly?: boolean;
};

/** Statuses after which nothing waits for anyone. */
const FINAL = new Set([
  "CONFIRMED",
  "EXPIRED",
  "FAILED",
  "UNDERPAID",
  "OVERPAID",
  "REJECTED",
  "CANCELLED",
  "SUCCEEDED",
  "COMPLETED",
  "PARTIALLY_COMPLETED",
]);

function usdt(r: () => number, min: number, max: number): string {
  return (min + r() * (max - min)).toFixed(6);
}

function xof(r: () => number, min: number, max: number): string {
  return String(Math.floor(min + r() * (max - min)));
}

/** Generates `count` transactions for one merchant and mode; answers what it made when `collect` is set. */
export async function generateHistory(db: Db, o: HistoryOptions): Promise<GeneratedTx[]> {
  const r = seeded(o.seed ?? 1);
  const pick: Pick = (items) => items[Math.floor(r() * items.length)];
  // A status: with finishedOnly, a drawn status that still waits becomes the list's first final one.
  const pickStatus = (items: readonly string[]) => {
    const drawn = pick(items);
    return o.finishedOnly && !FINAL.has(drawn) ? items.find((s) => FINAL.has(s))! : drawn;
  };
  const isSandbox = o.isSandbox ?? false;
  const endMs = (o.endAt ?? new Date()).getTime();
  const spanMs = (o.spanDays ?? 365) * 86_400_000;
  const batchSize = o.batchSize ?? 5_000;
  const wallets = await db.query<{ id: string; currency: string; rail: string }>(
    `SELECT id, currency, rail FROM accounts WHERE merchant_id = $1 AND is_sandbox = $2 AND kind = 'WALLET'`,
    [o.merchantId, isSandbox],
  );
  const wallet = (rail: string) => wallets.find((w) => w.rail === rail)!.id;
  const out: GeneratedTx[] = [];
  let batch = emptyBatch();
  let pending = 0;
  let bulkLeft = 0;
  let bulkBatch: { id: string; rail: string; currency: string; at: number } | null = null;
  let line = 0;
  const seq = `${o.seed ?? 1}-${Math.floor(r() * 1e9)}`;
  // References as merchants number them (ORD-21-4512): unique per merchant and seed, a short shared prefix.
  const tag = String(o.seed ?? 1);

  const keep = (t: GeneratedTx) => {
    if (o.collect) out.push(t);
  };
  for (let n = 0; n < o.count; n++) {
    // Written in time order as a live history is (with a minute of jitter, so neighbours interleave); a few
    // rows share a second (keyset ties are broken by id), most have their own millisecond.
    let at = Math.min(endMs, endMs - spanMs + Math.floor((n / o.count) * spanMs + (r() - 0.5) * 120_000));
    if (r() < 0.05) at -= at % 1000;
    const iso = new Date(at).toISOString();
    const roll = r();
    const name = `${pick(FIRST_NAMES)} ${pick(LAST_NAMES)}`;
    const note = r() < 0.3 ? pick(NOTES) : null;
    const metadata = note === null ? {} : { note };
    if (bulkLeft > 0 || roll >= 0.99) {
      if (bulkLeft === 0) {
        const rail = r() < 0.5 ? "USDT_TRC20" : "MOBILE_MONEY";
        bulkBatch = { id: newId("blk"), rail, currency: rail === "USDT_TRC20" ? "USDT_TRC20" : "XOF", at };
        bulkLeft = 1 + Math.floor(r() * 40);
        line = 0;
        batch.batches.push({
          id: bulkBatch.id,
          rail,
          currency: bulkBatch.currency,
          status: pickStatus(["PROCESSING", "COMPLETED", "PARTIALLY_COMPLETED"]),
          at: iso,
        });
      }
      const b = bulkBatch!;
      bulkLeft--;
      const momo = b.rail === "MOBILE_MONEY";
      const address = momo ? `+2267${String(Math.floor(r() * 1e7)).padStart(7, "0")}` : `T${seq}${n}`;
      const reference = r() < 0.7 ? `PAIE-${tag}-${n}` : null;
      const id = newId("bli");
      const status = pickStatus(["QUEUED", "PROCESSING", "SUCCEEDED", "SUCCEEDED", "FAILED"]);
      batch.items.push({
        id,
        batch_id: b.id,
        line: ++line,
        wallet_address: address,
        amount: momo ? xof(r, 500, 200_000) : usdt(r, 5, 500),
        fee: momo ? xof(r, 0, 500) : "1.000000",
        recipient_name: name,
        reference,
        status,
        at: iso,
      });
      keep({
        id,
        merchantId: o.merchantId,
        isSandbox,
        type: "BULK_ITEM",
        status,
        currency: b.currency,
        paymentMethod: b.rail,
        createdAtMs: b.at,
        searchable: [name, reference ?? "", momo ? address : ""],
      });
    } else if (roll < 0.62) {
      const method = pick(["USDT_TRC20", "CARD", "MOBILE_MONEY"]);
      const isUsdt = method === "USDT_TRC20";
      const amount = isUsdt ? usdt(r, 5, 2_000) : xof(r, 500, 500_000);
      const status = pickStatus([
        "AWAITING_PAYMENT",
        "CONFIRMED",
        "CONFIRMED",
        "CONFIRMED",
        "EXPIRED",
        "FAILED",
        "UNDERPAID",
        "OVERPAID",
        "CONFIRMING",
      ]);
      const email = r() < 0.8 ? `${name.split(" ")[0].toLowerCase()}.${n}@${pick(DOMAINS)}` : null;
      const phone = method === "MOBILE_MONEY" || r() < 0.3
        ? `+2267${String(Math.floor(r() * 1e7)).padStart(7, "0")}`
        : null;
      const ref = r() < 0.8 ? `ORD-${tag}-${n}` : null;
      const customerName = r() < 0.9 ? name : null;
      const id = newId("pay");
      const settled = ["CONFIRMED", "UNDERPAID", "OVERPAID"].includes(status);
      batch.payins.push({
        id,
        payment_method: method,
        status,
        currency: isUsdt ? "USDT_TRC20" : "XOF",
        chain: isUsdt ? "TRON" : null,
        amount,
        amount_received: settled ? amount : "0",
        service_fee: settled ? (isUsdt ? "0.375000" : "100") : "0",
        net_amount: settled ? amount : "0",
        external_ref: ref,
        metadata,
        customer_name: customerName,
        customer_email: email,
        customer_phone: phone,
        at: iso,
      });
      keep({
        id,
        merchantId: o.merchantId,
        isSandbox,
        type: "PAYIN",
        status,
        currency: isUsdt ? "USDT_TRC20" : "XOF",
        paymentMethod: method,
        createdAtMs: at,
        searchable: [email ?? "", customerName ?? "", phone ?? "", ref ?? "", note ?? ""],
      });
    } else if (roll < 0.82) {
      const withdrawal = roll >= 0.74;
      const xofOut = withdrawal && r() < 0.4;
      const kind = withdrawal ? "WITHDRAWAL" : "PAYOUT";
      const statuses = withdrawal
        ? [
          "PENDING_REVIEW",
          "APPROVED",
          "BROADCAST",
          "CONFIRMED",
          "CONFIRMED",
          "REJECTED",
          "FAILED",
          "CANCELLED",
        ]
        : ["PENDING", "PROCESSING", "BROADCAST", "CONFIRMED", "CONFIRMED", "FAILED"];
      const status = pickStatus(statuses);
      const amount = xofOut ? xof(r, 5_000, 1_000_000) : usdt(r, 5, 5_000);
      const fee = xofOut ? "500" : "1.000000";
      const ref = !withdrawal && r() < 0.7 ? `PO-${tag}-${n}` : null;
      const id = newId(withdrawal ? "wdr" : "pout");
      const channel = xofOut ? pick(["MOMO", "BANK"]) : null;
      batch.outbound.push({
        id,
        kind,
        status,
        currency: xofOut ? "XOF" : "USDT_TRC20",
        chain: xofOut ? "NONE" : "TRON",
        amount,
        fee,
        debited: withdrawal ? amount : (Number(amount) + Number(fee)).toFixed(xofOut ? 0 : 6),
        net_amount: withdrawal ? (Number(amount) - Number(fee)).toFixed(xofOut ? 0 : 6) : amount,
        destination_address: xofOut ? "+22670123456" : `TDest${seq}${n}`,
        external_ref: ref,
        metadata,
        wallet_rail: xofOut ? pick(["MOMO", "CARD"]) : "TRC20",
        fiat_channel: channel,
        at: iso,
      });
      keep({
        id,
        merchantId: o.merchantId,
        isSandbox,
        type: kind,
        status,
        currency: xofOut ? "XOF" : "USDT_TRC20",
        paymentMethod: xofOut ? (channel === "BANK" ? "BANK" : "MOBILE_MONEY") : "USDT_TRC20",
        createdAtMs: at,
        searchable: [ref ?? "", note ?? ""],
      });
    } else {
      const toXof = r() < 0.5;
      const id = newId("cnv");
      const status = r() < 0.9 ? "CONFIRMED" : "FAILED";
      const from = toXof ? usdt(r, 5, 1_000) : xof(r, 5_000, 500_000);
      const gross = toXof ? String(Math.floor(Number(from) * 603)) : (Number(from) / 603).toFixed(6);
      const fee = toXof ? String(Math.ceil(Number(gross) / 100)) : (Number(gross) / 100).toFixed(6);
      const net = toXof ? String(Number(gross) - Number(fee)) : (Number(gross) - Number(fee)).toFixed(6);
      const xofRail = pick(["MOMO", "CARD"]);
      batch.conversions.push({
        id,
        status,
        from_wallet_id: wallet(toXof ? "TRC20" : xofRail),
        to_wallet_id: wallet(toXof ? xofRail : "TRC20"),
        from_currency: toXof ? "USDT_TRC20" : "XOF",
        from_rail: toXof ? "TRC20" : xofRail,
        to_currency: toXof ? "XOF" : "USDT_TRC20",
        to_rail: toXof ? xofRail : "TRC20",
        from_amount: from,
        rate: toXof ? "603" : "0.00165837",
        to_amount_gross: gross,
        fee,
        to_amount_net: net,
        at: iso,
      });
      keep({
        id,
        merchantId: o.merchantId,
        isSandbox,
        type: "CONVERSION",
        status,
        currency: toXof ? "USDT_TRC20" : "XOF",
        paymentMethod: null,
        createdAtMs: at,
        searchable: [],
      });
    }
    if (++pending >= batchSize) {
      await writeBatch(db, o.merchantId, isSandbox, batch);
      batch = emptyBatch();
      pending = 0;
      o.onProgress?.(n + 1);
    }
  }
  await writeBatch(db, o.merchantId, isSandbox, batch);
  return out;
}
