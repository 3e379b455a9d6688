// The shortcuts pay-in creation takes on every request answer exactly what the long way answers: the input
// guard's look at the JSON text, amounts already canonical, a webhook body around data serialized once,
// and ids from a pool of random bytes.
import fc from "fast-check";
import { Decimal } from "decimal.js";
import { MAX_JSON_DEPTH, plainlyStorableJson, unstorableFields } from "../../api/middleware/input_guard.ts";
import { webhookBody } from "../../domain/webhooks/events.ts";
import { ID_ALPHABET, ID_BODY_LENGTH, idTimePrefix, isWellFormedId, newId } from "../../domain/ids.ts";
import { formatAmount } from "../../domain/money.ts";
import { assert, assertEquals } from "../assert.ts";

/** Text of every kind JSON strings and keys can hold: NULs, lone surrogates, pairs, escapes' characters. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\u0000", "\ud800", "\udc00", "😀", "\\", '"', "u", "{", "[", "\n", "a"),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  ),
});
const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    anyText,
    fc.integer(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(anyText, tie("value"), { maxKeys: 3 }),
  ),
})).value;

function nested(depth: number): unknown {
  let value: unknown = "x";
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

Deno.test("the input guard passes JSON text unparsed only when parsing it would find nothing to refuse", () => {
  fc.assert(
    fc.property(anyJson, (value) => {
      const text = JSON.stringify(value);
      if (plainlyStorableJson(text)) assertEquals(unstorableFields(JSON.parse(text)), []);
    }),
    { numRuns: 5000 },
  );
  for (let depth = MAX_JSON_DEPTH - 2; depth <= MAX_JSON_DEPTH + 2; depth++) {
    const text = JSON.stringify(nested(depth));
    if (plainlyStorableJson(text)) assertEquals(unstorableFields(JSON.parse(text)), []);
  }
  assert(plainlyStorableJson('{"amount":"10","metadata":{"order":["a","b"]}}'));
  assert(!plainlyStorableJson('{"x":"\\u0000"}'));
  assert(!plainlyStorableJson(JSON.stringify(nested(MAX_JSON_DEPTH + 1))));
});

Deno.test("an amount already in canonical form is formatted as decimal.js formats it", () => {
  const digits = (maxLength: number) => fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength });
  const amounts = fc.tuple(fc.constantFrom("", "-", "+"), digits(30), fc.option(digits(10)), fc.boolean())
    .map(([sign, whole, fraction, exponent]) =>
      `${sign}${whole}${fraction === null ? "" : `.${fraction}`}${exponent ? "e2" : ""}`
    );
  const canonical = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 999_999 }))
    .map(([whole, micros]) => [`${whole}.${String(micros).padStart(6, "0")}`, `${whole}`]);
  const decimalJs = (amount: string, places: number) => {
    try {
      return new Decimal(amount).toFixed(places, Decimal.ROUND_DOWN);
    } catch (err) {
      return String(err);
    }
  };
  const ours = (amount: string, currency: "USDT_TRC20" | "XOF") => {
    try {
      return formatAmount(amount, currency);
    } catch (err) {
      return String(err);
    }
  };
  fc.assert(
    fc.property(fc.oneof(amounts, canonical.map(([usdt]) => usdt), canonical.map(([, xof]) => xof)), (a) => {
      assertEquals(ours(a, "USDT_TRC20"), decimalJs(a, 6));
      assertEquals(ours(a, "XOF"), decimalJs(a, 0));
    }),
    { numRuns: 20000 },
  );
});

Deno.test("a webhook body is the JSON of {event, data, createdAt, livemode, test}", () => {
  fc.assert(
    fc.property(
      fc.string(),
      fc.dictionary(anyText, fc.jsonValue()),
      fc.date({ noInvalidDate: true }),
      fc.boolean(),
      fc.boolean(),
      (type, data, createdAt, livemode, test) => {
        assertEquals(
          webhookBody(type, data, createdAt, { livemode, test }),
          JSON.stringify({ event: type, data, createdAt: createdAt.toISOString(), livemode, test }),
        );
      },
    ),
  );
});

Deno.test("ids: prefix, time part, 80 random bits over the whole alphabet, never twice", () => {
  const nowMs = Date.UTC(2026, 0, 1);
  const ids = Array.from({ length: 20_000 }, () => newId("pay", nowMs));
  assertEquals(new Set(ids).size, ids.length);
  for (const id of ids) {
    assert(isWellFormedId("pay", id), id);
    assert(id.startsWith(idTimePrefix("pay", nowMs)), id);
  }
  const randomChars = new Set(ids.flatMap((id) => [...id.slice(-ID_BODY_LENGTH + 10)]));
  assertEquals([...randomChars].sort().join(""), ID_ALPHABET);
  assert(newId("evt", nowMs) < newId("evt", nowMs + 1), "ids sort by creation time");
  assertEquals(idTimePrefix("dlv", nowMs), `dlv_${newId("dlv", nowMs).slice(4, 14)}`);
});
