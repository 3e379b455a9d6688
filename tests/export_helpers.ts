// Shared steps of the export tests: run the queue's export messages, read the sources' rows as a file must
// show them, and compare a downloaded CSV with them row for row.
import { parse } from "csv-parse/sync";
import { assert, assertEquals } from "./assert.ts";
import type { TestGateway } from "./helpers.ts";
import { handleExportRun } from "../jobs/exports.ts";
import { exactAmount } from "../domain/transactions/view.ts";

/** Runs the queue's export.run messages as the listener would, until none is left. */
export async function drainExports(gw: TestGateway): Promise<void> {
  for (let guard = 0; guard < 10_000; guard++) {
    const i = gw.enqueued.findIndex((e) => e.message.type === "export.run");
    if (i < 0) return;
    const [{ message }] = gw.enqueued.splice(i, 1);
    await handleExportRun(message as { type: "export.run"; jobId: string }, gw.deps);
  }
}

/** The sources' rows (the views, not the projection the export read) as the CSV must show them. */
export async function expectedRows(
  gw: TestGateway,
  merchantId: string,
  isSandbox: boolean,
  from: string,
  before: string,
) {
  type Row = { id: string; currency: string; fee_currency: string; to_currency: string | null };
  const rows = await gw.db.query<
    Row & Record<string, string | null> & { created_at: Date; updated_at: Date }
  >(
    `SELECT id, type, status, payment_method, wallet_rail, currency, amount::text, amount_received::text, fee::text,
            fee_currency, net_amount::text, to_currency, to_wallet_rail, to_amount::text, external_ref, customer_name,
            customer_email, customer_phone, recipient_name, destination, note, tx_hash, batch_id, failure_reason,
            created_at, updated_at
       FROM transaction_rows WHERE merchant_id = $1 AND is_sandbox = $2 AND created_at >= $3 AND created_at < $4
      ORDER BY created_at, id`,
    [merchantId, isSandbox, from, before],
  );
  return rows.map((r) => ({
    ...r,
    amount: exactAmount(r.amount!, r.currency!),
    fee: exactAmount(r.fee!, r.fee_currency!),
    net_amount: exactAmount(r.net_amount!, r.currency!),
    amount_received: r.amount_received === null ? null : exactAmount(r.amount_received, r.currency!),
    to_amount: r.to_amount === null ? null : exactAmount(r.to_amount, r.to_currency!),
  }));
}

/** A cell read back: the apostrophe the export put before formula-like text taken off again. */
const unguard = (cell: string) => /^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell;

export function assertFileMatches(csv: string, want: Awaited<ReturnType<typeof expectedRows>>) {
  const records: Record<string, string>[] = parse(csv, { columns: true, relax_quotes: false });
  assertEquals(records.length, want.length, "one line per row");
  const text = [
    "externalRef",
    "customerName",
    "customerEmail",
    "customerPhone",
    "recipientName",
    "destination",
    "note",
    "txHash",
    "failureReason",
  ];
  for (let i = 0; i < want.length; i++) {
    const got = records[i];
    const w = want[i];
    for (const column of text) {
      const cell = got[column];
      assert(!/^[=+\-@\t\r]/.test(cell), `${column} of ${w.id} starts like a formula: ${cell}`);
    }
    const row = {
      id: got.id,
      type: got.type,
      status: got.status,
      payment_method: got.paymentMethod || null,
      wallet_rail: got.walletRail,
      currency: got.currency,
      amount: got.amount,
      amount_received: got.amountReceived || null,
      fee: got.fee,
      fee_currency: got.feeCurrency,
      net_amount: got.netAmount,
      to_currency: got.toCurrency || null,
      to_wallet_rail: got.toWalletRail || null,
      to_amount: got.toAmount || null,
      external_ref: unguard(got.externalRef) || null,
      customer_name: unguard(got.customerName) || null,
      customer_email: unguard(got.customerEmail) || null,
      customer_phone: unguard(got.customerPhone) || null,
      recipient_name: unguard(got.recipientName) || null,
      destination: unguard(got.destination) || null,
      note: unguard(got.note) || null,
      tx_hash: unguard(got.txHash) || null,
      batch_id: got.batchId || null,
      failure_reason: unguard(got.failureReason) || null,
      created_at: new Date(got.createdAt),
      updated_at: new Date(got.updatedAt),
    };
    assertEquals(row, w, `row ${i + 1} (${w.id})`);
  }
}

export async function download(gw: TestGateway, key: string, jobId: string) {
  const res = await gw.app.request(`/v1/exports/${jobId}/download`, { headers: { "x-api-key": key } });
  return { res, text: await res.text() };
}
