// deno-lint-ignore-file no-explicit-any
// The refusals that depend on state are listed per operation (issue 19): every operation with such
// refusals names their codes under the status each answers with, and as `x-error-codes`; every code
// listed is in the error catalogue. The contract run (tests/contract/prism_run.ts) holds the lists to the
// answers: a refusal whose code its operation does not list is a finding.
import { ERROR_CATALOGUE } from "../../domain/errors.ts";
import { codesListedIn, GENERIC_CODES, KEYED_CODES, STATE_CODES } from "../../api/openapi/state_codes.ts";
import { assert, assertEquals } from "../assert.ts";
import { findingsOf } from "../contract/findings.ts";
import { withGateway } from "../helpers.ts";

type Operation =
  & { operationId: string; security: unknown[]; responses: Record<string, any> }
  & Record<string, any>;

Deno.test(
  "state refusals are listed per operation, under their status, and every code is in the catalogue",
  withGateway(async (gw) => {
    const doc = (await gw.request("GET", "/v1/openapi.json")).json;
    const operations: Operation[] = Object.values(doc.paths).flatMap((item) => Object.values(item as object));
    const byId = new Map(operations.map((op) => [op.operationId, op]));
    for (const id of Object.keys(STATE_CODES)) {
      assert(byId.has(id), `STATE_CODES names ${id}, not in the document`);
    }
    for (const code of [...GENERIC_CODES, ...KEYED_CODES]) assert(code in ERROR_CATALOGUE, code);

    for (const op of operations) {
      const listed = op["x-error-codes"] as string[] | undefined;
      for (const [status, response] of Object.entries(op.responses)) {
        for (const code of codesListedIn(response.description)) {
          assert(code in ERROR_CATALOGUE, `${op.operationId} lists ${code}, not in the catalogue`);
          const own = String(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE][0]);
          assertEquals(own, status, `${op.operationId}: ${code} is listed under ${status}`);
          assert(listed?.includes(code), `${op.operationId}: ${code} in x-error-codes`);
        }
      }
      for (const code of STATE_CODES[op.operationId] ?? []) {
        assert(listed?.includes(code), `${op.operationId} lists ${code}`);
        const status = String(ERROR_CATALOGUE[code][0]);
        assert(
          codesListedIn(op.responses[status]?.description).includes(code),
          `${op.operationId} ${status}`,
        );
        assert(
          op.responses[status].content?.["application/json"],
          `${op.operationId} ${status} is an envelope`,
        );
      }
    }

    // Operations whose refusals were listed nowhere before, each with one of its state codes.
    const expected: Array<[string, string, string]> = [
      ["checkoutPaylink", "400", "PAYMENT_METHOD_NOT_ACCEPTED"],
      ["lockPaylinkRate", "400", "PAYMENT_METHOD_NOT_ACCEPTED"],
      ["checkoutPaylink", "409", "RATE_LOCK_ALREADY_USED"],
      ["applyPaylinkPromo", "400", "PROMO_CODE_EXPIRED"],
      ["updatePaylink", "400", "CANNOT_CHANGE_CURRENCY_AFTER_PRODUCTS"],
      ["addPaylinkProduct", "409", "CONFLICT"],
      ["cancelWithdrawal", "400", "CANNOT_CANCEL"],
      ["createWithdrawal", "404", "FIAT_DESTINATION_NOT_FOUND"],
      ["createPaylink", "403", "LIMIT_EXCEEDED_PAYLINKS"],
      ["createWebhookEndpoint", "403", "LIMIT_EXCEEDED_WEBHOOKS"],
      ["submitPaymentOtp", "429", "RATE_LIMITED"],
      ["simulateSandboxPayment", "400", "INVALID_STATE"],
      ["providerCallback", "400", "INVALID_WEBHOOK_SIGNATURE"],
      ["validateBulkPayment", "400", "INSUFFICIENT_BALANCE"],
      ["pauseSubscription", "400", "INVALID_TRANSACTION_STATUS"],
      ["adminRejectOutbound", "400", "WITHDRAWAL_NOT_PENDING_REVIEW"],
      ["adminGetMerchant", "404", "MERCHANT_NOT_FOUND"],
    ];
    for (const [id, status, code] of expected) {
      const op = byId.get(id)!;
      assert(
        codesListedIn(op.responses[status]?.description).includes(code),
        `${id} ${status} lists ${code}`,
      );
    }
  }),
);

Deno.test("the contract run finds a refusal whose code its operation does not list", () => {
  const exchange = {
    operation: "POST /v1/paylinks/{slug}/rate-lock",
    credential: "none" as const,
    url: "POST /v1/paylinks/x/rate-lock",
    status: 400,
    code: "PAYMENT_METHOD_NOT_ACCEPTED",
    fromPrism: false,
    violations: [],
  };
  const generic = new Set<string>(GENERIC_CODES);
  assertEquals(findingsOf(exchange, generic).map((f) => f.key), [
    "unlisted-code POST /v1/paylinks/{slug}/rate-lock 400 PAYMENT_METHOD_NOT_ACCEPTED",
  ]);
  assertEquals(findingsOf(exchange, new Set([...generic, "PAYMENT_METHOD_NOT_ACCEPTED"])), []);
  // A code every operation may answer is never a finding.
  assertEquals(findingsOf({ ...exchange, status: 404, code: "NOT_FOUND" }, generic), []);
});
