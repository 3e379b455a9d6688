// /v1/merchants/fiat-destinations through the whole app: registration of mobile money numbers and bank
// accounts with every refusal code, one primary per merchant and mode (also under concurrency), update,
// soft delete, scopes, another merchant's ids and malformed ids.
import { assert, assertEquals } from "../assert.ts";
import { withGateway } from "../helpers.ts";

const MOMO = { kind: "MOMO", momoOperator: "OPERATOR_B_BF", momoPhone: "+22670123456", label: "Shop wallet" };
const BANK = {
  kind: "BANK",
  bankName: "Banque Atlantique",
  bankAccountName: "Boutique Wend-Kuuni",
  bankIban: "DE89 3704 0044 0532 0130 00",
};

Deno.test(
  "fiat destinations: register, refuse, primary, update, delete",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Destinations Shop");
    const other = await gw.createMerchant("Other Shop");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: { "POST /v1/merchants/fiat-destinations": 1000 },
    });
    const register = (body: unknown, k = key) =>
      gw.request("POST", "/v1/merchants/fiat-destinations", { key: k, body });
    const list = async (k = key) =>
      (await gw.request("GET", "/v1/merchants/fiat-destinations", { key: k })).json.data;

    // A mobile money number: usable 24 hours later, primary because it is the first.
    const momo = await register(MOMO);
    assertEquals(momo.status, 201);
    const d = momo.json.data;
    assertEquals([d.kind, d.momoOperator, d.momoPhone, d.isPrimary, d.label], [
      "MOMO",
      "OPERATOR_B_BF",
      "+22670123456",
      true,
      "Shop wallet",
    ]);
    assertEquals(new Date(d.availableAt).getTime() - new Date(d.createdAt).getTime(), 24 * 3600 * 1000);

    // A bank account by IBAN (spaces and case do not matter), not primary unless asked.
    const bank = await register({ ...BANK, bankIban: "de89 3704 0044 0532 0130 00" });
    assertEquals(bank.status, 201);
    assertEquals([bank.json.data.bankIban, bank.json.data.isPrimary], ["DE89370400440532013000", false]);
    // By account number and bank code.
    const byNumber = await register({
      kind: "BANK",
      bankName: "Coris Bank",
      bankAccountName: "Boutique",
      bankAccountNumber: "000123456789",
      bankCode: "BF042",
    });
    assertEquals(byNumber.status, 201);

    // Every refusal, with its code; nothing registered by any of them.
    const refusals: Array<[unknown, string]> = [
      [{ kind: "MOMO", momoPhone: "+22670123456" }, "MISSING_MOBILE_MONEY_FIELDS"],
      [{ kind: "MOMO", momoOperator: "OPERATOR_B_BF" }, "MISSING_MOBILE_MONEY_FIELDS"],
      [{ kind: "MOMO" }, "MISSING_MOBILE_MONEY_FIELDS"],
      [{ kind: "BANK", bankAccountName: "X", bankIban: "DE89370400440532013000" }, "MISSING_BANK_FIELDS"],
      [{ kind: "BANK", bankName: "X", bankIban: "DE89370400440532013000" }, "MISSING_BANK_FIELDS"],
      [{ kind: "BANK", bankName: "X", bankAccountName: "Y" }, "MISSING_BANK_FIELDS"],
      [
        { kind: "BANK", bankName: "X", bankAccountName: "Y", bankAccountNumber: "0001234567" },
        "MISSING_BANK_FIELDS",
      ],
      // A wrong checksum, a wrong shape, both identifiers at once, a bad account number.
      [{ ...BANK, bankIban: "DE89370400440532013001" }, "FIAT_DESTINATION_INVALID"],
      [{ ...BANK, bankIban: "DE8937" }, "FIAT_DESTINATION_INVALID"],
      [{ ...BANK, bankIban: "\u00e9\u00e9" + "1".repeat(20) }, "FIAT_DESTINATION_INVALID"],
      [{ ...BANK, bankAccountNumber: "0001234567", bankCode: "BF042" }, "FIAT_DESTINATION_INVALID"],
      [
        { ...BANK, bankIban: undefined, bankAccountNumber: "12", bankCode: "BF042" },
        "FIAT_DESTINATION_INVALID",
      ],
      [{ ...BANK, bankName: "a\u0007b" }, "FIAT_DESTINATION_INVALID"],
      // The number belongs to the other operator; a malformed number; another country; unknown operator.
      [{ ...MOMO, momoOperator: "OPERATOR_A_BF" }, "FIAT_DESTINATION_INVALID"],
      [{ ...MOMO, momoPhone: "70123456" }, "FIAT_DESTINATION_INVALID"],
      [{ ...MOMO, momoPhone: "+226 70 12 34 56" }, "FIAT_DESTINATION_INVALID"],
      [{ ...MOMO, momoPhone: "+2267012345" }, "FIAT_DESTINATION_INVALID"],
      [{ ...MOMO, momoPhone: "+33612345678" }, "OPERATOR_NOT_SUPPORTED"],
      [{ ...MOMO, momoOperator: "OPERATOR_C_BF" }, "OPERATOR_NOT_SUPPORTED"],
      // Fields of the other kind, wrong types, unknown fields, huge strings.
      [{ ...MOMO, bankName: "X" }, "FIAT_DESTINATION_INVALID"],
      [{ ...MOMO, momoPhone: 22670123456 }, "VALIDATION_ERROR"],
      [{ ...MOMO, isPrimary: "yes" }, "VALIDATION_ERROR"],
      [{ ...MOMO, extra: 1 }, "VALIDATION_ERROR"],
      [{ ...MOMO, kind: "CASH" }, "VALIDATION_ERROR"],
      [{ ...MOMO, label: "x".repeat(100_000) }, "VALIDATION_ERROR"],
      [{ ...MOMO, momoPhone: "+226\u000070123456" }, "VALIDATION_ERROR"],
      [{ ...MOMO, label: "\ud800" }, "VALIDATION_ERROR"],
    ];
    for (const [body, code] of refusals) {
      const res = await register(body);
      assertEquals(
        res.json?.error?.code,
        code,
        `${JSON.stringify(body).slice(0, 120)} -> ${res.text.slice(0, 200)}`,
      );
      assert(res.status < 500);
    }
    assertEquals((await list()).meta.total, 3);

    // Making the bank account primary unsets the number, atomically.
    const madePrimary = await gw.request("PATCH", `/v1/merchants/fiat-destinations/${bank.json.data.id}`, {
      key,
      body: { isPrimary: true },
    });
    assertEquals(madePrimary.json.data.isPrimary, true);
    const primaries = (await list()).items.filter((x: { isPrimary: boolean }) => x.isPrimary);
    assertEquals(primaries.map((x: { id: string }) => x.id), [bank.json.data.id]);
    // The primary cannot be un-set by itself.
    const unset = await gw.request("PATCH", `/v1/merchants/fiat-destinations/${bank.json.data.id}`, {
      key,
      body: { isPrimary: false },
    });
    assertEquals(unset.json.error.code, "FIAT_DESTINATION_INVALID");

    // A label change keeps the cooldown; a new number restarts it and is checked like a registration.
    const relabel = await gw.request("PATCH", `/v1/merchants/fiat-destinations/${d.id}`, {
      key,
      body: { label: "Renamed" },
    });
    assertEquals([relabel.json.data.label, relabel.json.data.availableAt], ["Renamed", d.availableAt]);
    const badPhone = await gw.request("PATCH", `/v1/merchants/fiat-destinations/${d.id}`, {
      key,
      body: { momoPhone: "+22654123456" },
    });
    assertEquals(badPhone.json.error.code, "FIAT_DESTINATION_INVALID");
    const newPhone = await gw.request("PATCH", `/v1/merchants/fiat-destinations/${d.id}`, {
      key,
      body: { momoOperator: "OPERATOR_A_BF", momoPhone: "+22654123456" },
    });
    assertEquals(newPhone.json.data.momoPhone, "+22654123456");
    assert(new Date(newPhone.json.data.availableAt) > new Date(d.availableAt));
    const bankOnMomo = await gw.request("PATCH", `/v1/merchants/fiat-destinations/${d.id}`, {
      key,
      body: { bankIban: "DE89370400440532013000" },
    });
    assertEquals(bankOnMomo.json.error.code, "FIAT_DESTINATION_INVALID");

    // Another merchant sees none of them and cannot touch them; malformed ids are NOT_FOUND too.
    assertEquals((await list(other.keys.liveSecret)).meta.total, 0);
    for (const id of [d.id, "fdst_00000000000000000000000000", "fdst_'; DROP TABLE x;--", "x".repeat(5000)]) {
      for (const [method, body] of [["PATCH", { label: "mine" }], ["DELETE", undefined]] as const) {
        const res = await gw.request(method, `/v1/merchants/fiat-destinations/${encodeURIComponent(id)}`, {
          key: other.keys.liveSecret,
          body,
        });
        assertEquals(res.json.error.code, "FIAT_DESTINATION_NOT_FOUND", `${method} ${id.slice(0, 40)}`);
      }
    }
    // Sandbox keys see their own mode only.
    assertEquals((await list(m.keys.testSecret)).meta.total, 0);

    // Deleting the primary promotes the oldest remaining one.
    const del = await gw.request("DELETE", `/v1/merchants/fiat-destinations/${bank.json.data.id}`, { key });
    assertEquals(del.status, 200);
    assert(del.json.data.deletedAt);
    const after = await list();
    assertEquals(after.meta.total, 2);
    assertEquals(
      after.items.filter((x: { isPrimary: boolean }) => x.isPrimary).map((x: { id: string }) => x.id),
      [d.id],
    );
    const again = await gw.request("DELETE", `/v1/merchants/fiat-destinations/${bank.json.data.id}`, { key });
    assertEquals(again.json.error.code, "FIAT_DESTINATION_NOT_FOUND");
  }),
);

Deno.test(
  "fiat destinations: scopes, and 50 concurrent registrations asking for primary leave exactly one",
  withGateway(async (gw) => {
    const m = await gw.createMerchant("Concurrent Shop");
    const key = m.keys.liveSecret;
    await gw.admin("PATCH", `/admin/api/merchants/${m.merchantId}`, {
      rateLimits: {
        "POST /v1/merchants/fiat-destinations": 1000,
        "PATCH /v1/merchants/fiat-destinations": 1000,
      },
    });
    const pk = await gw.request("POST", "/v1/merchants/fiat-destinations", {
      key: m.keys.livePublishable,
      body: MOMO,
    });
    assertEquals(pk.status, 403);
    const noKey = await gw.request("GET", "/v1/merchants/fiat-destinations");
    assertEquals(noKey.status, 401);

    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        gw.request("POST", "/v1/merchants/fiat-destinations", {
          key,
          body: { ...MOMO, momoPhone: `+226701${String(i).padStart(5, "0")}`, isPrimary: true },
        })),
    );
    assertEquals(results.map((r) => r.status).filter((s) => s !== 201), []);
    const rows = await gw.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM fiat_destinations WHERE merchant_id = $1 AND is_primary AND deleted_at IS NULL",
      [m.merchantId],
    );
    assertEquals(rows[0].n, 1);
    // 50 concurrent "make me primary" on different rows: still one.
    const ids = results.map((r) => r.json.data.id as string);
    await Promise.all(
      ids.map((id) =>
        gw.request("PATCH", `/v1/merchants/fiat-destinations/${id}`, { key, body: { isPrimary: true } })
      ),
    );
    const again = await gw.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM fiat_destinations WHERE merchant_id = $1 AND is_primary AND deleted_at IS NULL",
      [m.merchantId],
    );
    assertEquals(again[0].n, 1);
  }),
);
