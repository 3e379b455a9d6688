// A RECURRING paylink, a checkout paid through the sandbox, and the readers the subscription tests share:
// events of a type, the mail outbox (through the operator route), renewals in the database.
import { ADMIN_TOKEN, type TestGateway } from "./helpers.ts";
import { makePaylink } from "./shop_fixture.ts";
import { assertEquals } from "./assert.ts";

export async function makeRecurringPaylink(
  gw: TestGateway,
  merchantId: string,
  opts: { interval?: "WEEKLY" | "MONTHLY" | "YEARLY"; count?: number; price?: string; isSandbox?: boolean } =
    {},
) {
  return await makePaylink(gw, merchantId, {
    isSandbox: opts.isSandbox,
    title: "Panier bio",
    currency: "XOF",
    products: [{ name: "Panier hebdomadaire", price: opts.price ?? "5000" }],
    promos: [{ code: "BIENVENUE", type: "PERCENT", value: "10" }],
    fields: {
      type: "RECURRING",
      recurring_interval: opts.interval ?? "MONTHLY",
      recurring_interval_count: opts.count ?? 1,
    },
  });
}

/** A paid checkout on `slug` (mobile money, sandbox simulate): answers the order and pay-in ids. */
export async function paidCheckout(
  gw: TestGateway,
  key: string,
  slug: string,
  productId: string,
  extra: Record<string, unknown> = {},
) {
  const res = await gw.request("POST", `/v1/pay/link/${slug}/checkout`, {
    body: {
      items: [{ productId, quantity: 1 }],
      paymentMethod: "MOBILE_MONEY",
      customerPhone: "+22670123456",
      customerEmail: "awa@example.com",
      customerName: "Awa Ouedraogo",
      ...extra,
    },
  });
  assertEquals(res.status, 201, res.text);
  const paid = await gw.request("POST", `/v1/sandbox/payments/${res.json.data.transactionId}/simulate`, {
    key,
  });
  assertEquals(paid.status, 200, paid.text);
  return { orderId: res.json.data.orderId as string, payinId: res.json.data.transactionId as string };
}

// deno-lint-ignore no-explicit-any
export async function eventsOf(gw: TestGateway, type: string, subscriptionId?: string): Promise<any[]> {
  const rows = await gw.db.query<{ data: Record<string, unknown> }>(
    `SELECT data FROM events WHERE type = $1 AND ($2::text IS NULL OR data->>'subscriptionId' = $2)
      ORDER BY created_at, id`,
    [type, subscriptionId ?? null],
  );
  return rows.map((r) => typeof r.data === "string" ? JSON.parse(r.data) : r.data);
}

/** The outbox as the operator reads it (GET /admin/api/mail-outbox), newest first. */
// deno-lint-ignore no-explicit-any
export async function outbox(gw: TestGateway, refId?: string): Promise<any[]> {
  const res = await gw.request("GET", `/admin/api/mail-outbox${refId ? `?refId=${refId}` : ""}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assertEquals(res.status, 200, res.text);
  return res.json.data.items;
}

export async function renewalsOf(gw: TestGateway, subscriptionId: string) {
  return await gw.db.query<{ id: string; period_index: number; status: string; period_start: Date }>(
    "SELECT id, period_index, status, period_start FROM subscription_renewals WHERE subscription_id = $1 ORDER BY period_index",
    [subscriptionId],
  );
}

/** The path of the first link to this gateway's `path` prefix in a text. */
export function linkIn(text: string, prefix: string): string {
  const match = new RegExp(`https?://[^\\s/]+(${prefix}[^\\s]*)`).exec(text);
  if (!match) throw new Error(`no ${prefix} link in:\n${text}`);
  return match[1];
}
