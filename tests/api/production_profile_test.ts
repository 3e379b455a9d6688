// Production mounts nothing that lets someone pay without money: no devnet controls, no simulator pages.
import { assertEquals } from "../assert.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";

/** A sandbox card pay-in's hosted page: the simulator's own page, where a test card pays. */
async function sandboxCardPage(gw: TestGateway): Promise<string> {
  const m = await gw.createMerchant("Profile");
  const created = await gw.request("POST", "/v1/payments?sandbox=true", {
    key: m.keys.testSecret,
    body: { amount: "5000", paymentMethod: "CARD", customerName: "Awa", customerEmail: "awa@example.bf" },
  });
  assertEquals(created.status, 201, created.text);
  return new URL(created.json.data.hostedPaymentUrl).pathname;
}

Deno.test("development mounts the devnet controls and the simulators' pages", async () => {
  const gw = await startTestGateway({ env: { APP_ENV: "development" } });
  try {
    assertEquals((await gw.request("GET", "/devnet/control/state")).status, 200);
    const page = await sandboxCardPage(gw);
    assertEquals((await gw.request("GET", page)).status, 200);
  } finally {
    await gw.close();
  }
});

Deno.test("production mounts no /devnet and no /simulators, even when handed them", async () => {
  const gw = await startTestGateway({ env: { APP_ENV: "production" } });
  try {
    const devnet = await gw.request("GET", "/devnet/control/state");
    assertEquals([devnet.status, devnet.json.error.code], [404, "NOT_FOUND"]);
    const transfer = await gw.request("POST", "/devnet/control/transfer", {
      body: { to: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", amount: "11.5" },
    });
    assertEquals(transfer.status, 404);
    const page = await sandboxCardPage(gw);
    assertEquals((await gw.request("GET", page)).status, 404);
    assertEquals((await gw.request("POST", `${page}`, { rawBody: "number=4242424242424242" })).status, 404);
  } finally {
    await gw.close();
  }
});

Deno.test("with no APP_ENV, a simulator's signed callback cannot settle a live pay-in", async () => {
  // APP_ENV empty is unset: the default profile, as a forgotten variable leaves it.
  const gw = await startTestGateway({ env: { APP_ENV: "" } });
  try {
    assertEquals(gw.deps.config.appEnv, "production");
    const m = await gw.createMerchant("Default profile");
    // The simulator takes a pay-in it was asked for in the sandbox; the row is then made live, as if the
    // simulator had been asked for a live one: its approval must not credit the live wallet.
    const created = await gw.request("POST", "/v1/payments?sandbox=true", {
      key: m.keys.testSecret,
      body: { amount: "5000", paymentMethod: "MOBILE_MONEY", customerPhone: "+22670123456" },
    });
    assertEquals(created.status, 201, created.text);
    const id = created.json.data.transactionId;
    await gw.db.query("UPDATE payins SET is_sandbox = false WHERE id = $1", [id]);
    await gw.simulators.flush();
    const live = await gw.request("GET", `/v1/payments/${id}`, { key: m.keys.liveSecret });
    assertEquals(live.json.data.status, "AWAITING_PAYMENT");
    const balance = await gw.request("GET", "/v1/merchant/balances/XOF", { key: m.keys.liveSecret });
    const momo = balance.json.data.wallets.find((w: { rail: string }) => w.rail === "MOMO");
    assertEquals(Number(momo.balance), 0, "nothing credited to the live wallet");
  } finally {
    await gw.close();
  }
});
