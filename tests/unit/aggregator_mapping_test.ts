// What each aggregator's answers mean to the gateway, and what an answer that is not one (HTML, truncated
// JSON, a timeout) becomes: "unavailable", so the caller asks again by reference and nothing is guessed.
import { callJson } from "../../rails/fiat/aggregators/http.ts";
import { mapCheck } from "../../rails/fiat/cinetpay/collect.ts";
import { mapTreatment } from "../../rails/fiat/cinetpay/transfer.ts";
import { mapConfirm } from "../../rails/fiat/paydunya/collect.ts";
import { mapDisburseStatus } from "../../rails/fiat/paydunya/disburse.ts";
import { ProviderError } from "../../rails/fiat/provider.ts";
import { assert, assertEquals } from "../assert.ts";

Deno.test("CinetPay /v2/payment/check: known statuses mapped, anything else UNKNOWN", () => {
  const data = (status: string, currency = "XOF", amount = "5000") => ({ amount, currency, status });
  assertEquals(mapCheck({ code: "00", message: "SUCCES", data: data("ACCEPTED") }), {
    status: "SUCCEEDED",
    amount: "5000",
    reported: { paid: "5000" },
  });
  assertEquals(
    mapCheck({ code: "627", message: "TRANSACTION_CANCEL", data: data("REFUSED") }).status,
    "FAILED",
  );
  assertEquals(
    mapCheck({ code: "662", message: "WAITING_CUSTOMER_PAYMENT", data: data("") }).status,
    "PENDING",
  );
  assertEquals(mapCheck({ code: "00", data: data("ACCEPTED", "EUR") }).status, "UNKNOWN");
  assertEquals(mapCheck({ code: "00", data: data("ACCEPTED", "XOF", "12.5") }).status, "UNKNOWN");
  assertEquals(mapCheck({ code: "00", data: data("SUSPENDED") }).status, "UNKNOWN");
  assertEquals(mapCheck({ code: "404", message: "NOT_FOUND" }).status, "UNKNOWN");
});

Deno.test("CinetPay treatment_status: NEW/REC/NOS pending, VAL paid, REJ refused, others UNKNOWN", () => {
  const t = (s: string) => mapTreatment({ transaction_id: "T1", treatment_status: s, amount: "2500" }).status;
  assertEquals(["NEW", "REC", "NOS", "VAL", "REJ", "val", ""].map(t), [
    "PENDING",
    "PENDING",
    "PENDING",
    "SUCCEEDED",
    "FAILED",
    "UNKNOWN",
    "UNKNOWN",
  ]);
});

Deno.test("PayDunya confirm and disbursement statuses: documented ones mapped, others UNKNOWN", () => {
  const c = (status: string, response_code = "00") =>
    mapConfirm({
      response_code,
      status,
      invoice: { total_amount: "5000" },
      custom_data: { reference: "pay_1" },
    });
  assertEquals(c("completed"), {
    status: "SUCCEEDED",
    amount: "5000",
    reported: { paid: "5000" },
    reference: "pay_1",
  });
  // PayDunya's fee put on the customer: total_amount is what was paid, total_amount_without_fees the order.
  const paid = (total: string, withoutFees: unknown) =>
    mapConfirm({
      response_code: "00",
      status: "completed",
      invoice: { total_amount: total, total_amount_without_fees: withoutFees },
      custom_data: { reference: "pay_1" },
    });
  assertEquals(paid("5150", "5000"), {
    status: "SUCCEEDED",
    amount: "5000",
    reported: { paid: "5150", fee: "150", settled: "5000" },
    reference: "pay_1",
  });
  assertEquals(paid("5000", 5000).reported, { paid: "5000" });
  // Without fees above the total, or not an amount: nobody knows what was paid, held.
  assertEquals(paid("5000", "5150").status, "UNKNOWN");
  assertEquals(paid("5000", "50.5").status, "UNKNOWN");
  assertEquals(
    ["pending", "cancelled", "failed", "expired"].map((s) => c(s).status),
    ["PENDING", "FAILED", "FAILED", "UNKNOWN"],
  );
  assertEquals(c("completed", "1004").status, "UNKNOWN");
  const d = (status: string) => mapDisburseStatus({ response_code: "00", status }, "tok").status;
  assertEquals(["Created", "Pending", "Success", "Failed", "Reversed"].map(d), [
    "PENDING",
    "PENDING",
    "SUCCEEDED",
    "FAILED",
    "UNKNOWN",
  ]);
});

Deno.test("an aggregator answering HTML, truncated JSON, a 5xx or nothing is 'unavailable'", async () => {
  const answering = (body: string, status = 200): typeof fetch => () =>
    Promise.resolve(new Response(body, { status }));
  const cases: Array<[string, typeof fetch]> = [
    ["HTML", answering("<html><body>Maintenance</body></html>")],
    ["truncated JSON", answering('{"code":"00","data":{"sta')],
    ["a JSON array", answering("[1,2]")],
    ["HTTP 502", answering('{"code":"00"}', 502)],
    ["HTTP 429", answering('{"code":"00"}', 429)],
    ["no connection", () => Promise.reject(new TypeError("connection refused"))],
  ];
  for (const [what, fetch] of cases) {
    const err = await callJson({ fetch, timeoutMs: 1000 }, "https://aggregator.invalid/x", { method: "POST" })
      .then(() => undefined, (e) => e);
    assert(err instanceof ProviderError && err.kind === "unavailable", what);
  }
  const fine = await callJson(
    { fetch: answering('{"code":"00"}'), timeoutMs: 1000 },
    "https://a.invalid/",
    {},
  );
  assertEquals(fine, { status: 200, body: { code: "00" } });
});
