// The patterns the paylink request schemas declare are the domain's own rules, written as regular
// expressions: a price (priceProblem), a percentage discount, a slug and a promo code as sent. Each is held
// to the function that decides, over values at every edge (fast-check adds random ones).
import fc from "fast-check";
import { assertEquals } from "../assert.ts";
import { Decimal } from "../../domain/money.ts";
import {
  normalizeSlug,
  PRICE_PATTERNS,
  priceProblem,
  SLUG_INPUT_PATTERN,
} from "../../domain/paylinks/input.ts";
import {
  normalizeCode,
  PERCENT_PATTERN,
  PROMO_CODE_INPUT_PATTERN,
  PROMO_CODE_PATTERN,
} from "../../domain/paylinks/promo_rules.ts";

const EDGES = [
  "0",
  "0.0",
  "0.000001",
  "0.0000001",
  "0.10",
  "1",
  "01",
  "1.",
  ".5",
  "5000",
  "5000.0",
  "12.50",
  "12.123456",
  "12.1234567",
  "999999999999",
  "999999999999.999999",
  "1000000000000",
  "1000000000000.000000",
  "1000000000000.000001",
  "1000000000001",
  "-1",
  "1e3",
  " 1",
  "abc",
  "",
];

const decimalText = fc.oneof(
  fc.constantFrom(...EDGES),
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 14n }), fc.option(fc.stringMatching(/^[0-9]{0,8}$/)))
    .map(([int, frac]) => frac === null ? String(int) : `${int}.${frac}`),
);

Deno.test("price patterns accept exactly what priceProblem accepts, per currency", () => {
  for (const currency of ["USDT_TRC20", "XOF"] as const) {
    const pattern = new RegExp(PRICE_PATTERNS[currency]);
    fc.assert(
      fc.property(decimalText, (value) => {
        assertEquals(
          pattern.test(value),
          priceProblem(value, currency) === undefined,
          `${currency} ${value}`,
        );
      }),
      { examples: EDGES.map((e) => [e]), numRuns: 2000 },
    );
  }
});

Deno.test("the percent pattern is 'above 0, at most 100, at most 3 integer digits and 4 decimals'", () => {
  const pattern = new RegExp(PERCENT_PATTERN);
  const rule = (v: string) =>
    /^\d{1,3}(\.\d{1,4})?$/.test(v) && new Decimal(v).greaterThan(0) && new Decimal(v).lessThanOrEqualTo(100);
  const extra = [
    "100",
    "100.0000",
    "100.00001",
    "100.0001",
    "000.5",
    "010",
    "099.9999",
    "0.0001",
    "0.0000",
    "101",
  ];
  fc.assert(
    fc.property(fc.oneof(decimalText, fc.constantFrom(...extra)), (v) => {
      assertEquals(pattern.test(v), rule(v), v);
    }),
    { examples: [...EDGES, ...extra].map((e) => [e]), numRuns: 2000 },
  );
});

Deno.test("slug and promo code patterns accept exactly what the normalizers accept", () => {
  const slugPattern = new RegExp(SLUG_INPUT_PATTERN);
  const slugOk = (v: string) => {
    try {
      normalizeSlug(v);
      return true;
    } catch {
      return false;
    }
  };
  const codePattern = new RegExp(PROMO_CODE_INPUT_PATTERN);
  const text = fc.oneof(
    fc.constantFrom(
      "ab",
      "abc",
      " Abc-1 ",
      "-abc",
      "abc-",
      "a".repeat(64),
      "a".repeat(65),
      "école",
      "x/y",
      "A_B",
    ),
    fc.stringMatching(/^[ a-zA-Z0-9_-]{0,70}$/),
  );
  fc.assert(
    fc.property(text, (v) => {
      assertEquals(slugPattern.test(v), slugOk(v), `slug ${JSON.stringify(v)}`);
      // Over ASCII the schema's pattern and the server's rule agree (upper-casing non-ASCII letters can
      // make more of them pass the server: the schema is the narrower, never the wider).
      if (v.length <= 40) {
        assertEquals(
          codePattern.test(v),
          PROMO_CODE_PATTERN.test(normalizeCode(v)),
          `code ${JSON.stringify(v)}`,
        );
      }
    }),
    { numRuns: 2000 },
  );
});
