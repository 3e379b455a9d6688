// Shared steps of the bulk payment tests: whitelisting many addresses, building CSV and XLSX files,
// uploading them, reading a batch.
import ExcelJS from "exceljs";
import { stringify } from "csv-stringify/sync";
import type { TestGateway } from "./helpers.ts";
import { randomTronAddress } from "./money_out_helpers.ts";

export const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** `n` fresh addresses, whitelisted for PAYOUT through the API (500 a call). */
export async function whitelistMany(gw: TestGateway, key: string, n: number): Promise<string[]> {
  const addresses = Array.from({ length: n }, () => randomTronAddress());
  for (let i = 0; i < n; i += 500) {
    const res = await gw.request("POST", "/v1/wallets/whitelist/bulk", {
      key,
      body: {
        addresses: addresses.slice(i, i + 500).map((address) => ({ address })),
        usageContexts: ["PAYOUT"],
      },
    });
    if (res.status !== 200) throw new Error(`bulk whitelist failed: ${res.text}`);
  }
  return addresses;
}

export type Row = Array<string | number | { formula: string } | null>;

export async function xlsxOf(rows: Row[]): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet("items");
  for (const row of rows) sheet.addRow(row);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

export function csvOf(rows: Row[]): Uint8Array {
  return new TextEncoder().encode(stringify(rows as unknown[][]));
}

/** Uploads a file as multipart (field `file`), the way `curl -F file=@items.xlsx` does. */
export async function upload(
  gw: TestGateway,
  key: string,
  batchId: string,
  bytes: Uint8Array,
  filename: string,
  type = "application/octet-stream",
) {
  const form = new FormData();
  form.append("file", new File([bytes as Uint8Array<ArrayBuffer>], filename, { type }));
  const res = await gw.app.request(`/v1/bulk-payments/${batchId}/import`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text), text };
}

export async function createBatch(gw: TestGateway, key: string, rail: string, label = "November salaries") {
  const res = await gw.request("POST", "/v1/bulk-payments", { key, body: { rail, label } });
  if (res.status !== 201) throw new Error(`create failed: ${res.text}`);
  return res.json.data.id as string;
}

export async function batchOf(gw: TestGateway, key: string, id: string) {
  const res = await gw.request("GET", `/v1/bulk-payments/${id}`, { key });
  if (res.status !== 200) throw new Error(`get failed: ${res.text}`);
  return res.json.data;
}
