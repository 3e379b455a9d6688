// Burkina Faso operator table: E.164 shape, every prefix range, other countries, malformed numbers, modes
// and customer instructions.
import {
  formatXof,
  isBurkinaFasoNumber,
  isE164,
  OPERATOR_MODES,
  OPERATOR_PREFIXES,
  operatorInstruction,
  resolveOperator,
} from "../../rails/fiat/operators.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";

const A = ["05", "06", "07", "54", "55", "56", "57", "64", "65", "66", "67", "74", "75", "76", "77"];
const B = ["01", "02", "03", "50", "51", "52", "53", "60", "61", "62", "63", "70", "71", "72", "73"];

Deno.test("isE164: + and 7-15 digits; a Burkina Faso number has exactly 8 national digits", () => {
  for (const good of ["+22670000000", "+22605123456", "+33612345678", "+22507000000", "+12025550123"]) {
    assert(isE164(good), good);
  }
  assert(isBurkinaFasoNumber("+22670000000"));
  for (const foreign of ["+33612345678", "+22507000000"]) assertEquals(isBurkinaFasoNumber(foreign), false);
  for (
    const bad of [
      "",
      "+",
      "+226",
      "+2267000000", // 7 national digits
      "+226700000000", // 9 national digits
      "22670000000", // no plus
      "0022670000000",
      "+0226700000",
      "+226 70 00 00 00",
      "+226-70000000",
      "+22670000000 ",
      " +22670000000",
      "+226700000a0",
      "+3361234567890123", // 16 digits
      "+226７0000000", // full-width digit
      "+22670000000\n",
    ]
  ) {
    assertEquals(isE164(bad), false, JSON.stringify(bad));
    assertEquals(isBurkinaFasoNumber(bad), false, JSON.stringify(bad));
  }
});

Deno.test("resolveOperator: every two-digit prefix of the table, and only those", () => {
  assertEquals([...OPERATOR_PREFIXES.OPERATOR_A_BF].sort(), [...A].sort());
  assertEquals([...OPERATOR_PREFIXES.OPERATOR_B_BF].sort(), [...B].sort());
  for (let n = 0; n < 100; n++) {
    const prefix = String(n).padStart(2, "0");
    const expected = A.includes(prefix) ? "OPERATOR_A_BF" : B.includes(prefix) ? "OPERATOR_B_BF" : null;
    for (const rest of ["000000", "123456", "999999"]) {
      assertEquals(resolveOperator(`+226${prefix}${rest}`), expected, `+226${prefix}${rest}`);
    }
  }
});

Deno.test("resolveOperator: range edges, other countries and malformed numbers are null", () => {
  assertEquals(resolveOperator("+22654000001"), "OPERATOR_A_BF");
  assertEquals(resolveOperator("+22657999999"), "OPERATOR_A_BF");
  assertEquals(resolveOperator("+22658000000"), null);
  assertEquals(resolveOperator("+22653000000"), "OPERATOR_B_BF");
  assertEquals(resolveOperator("+22649999999"), null);
  assertEquals(resolveOperator("+22670000001"), "OPERATOR_B_BF");
  assertEquals(resolveOperator("+22674000000"), "OPERATOR_A_BF");
  assertEquals(resolveOperator("+22678000000"), null);
  assertEquals(resolveOperator("+22600000000"), null);
  assertEquals(resolveOperator("+22604000000"), null);
  assertEquals(resolveOperator("+22608000000"), null);
  for (const other of ["+22507000000", "+22370000000", "+22770000000", "+2217000000", "+2337000000"]) {
    assertEquals(resolveOperator(other), null, other);
  }
  for (const bad of ["70000000", "+226 70000000", "+2267000000", "+226700000000", "+226abcdefgh", ""]) {
    assertEquals(resolveOperator(bad), null, bad);
  }
});

Deno.test("operator modes and instructions name the amount in XOF", () => {
  assertEquals(OPERATOR_MODES, { OPERATOR_A_BF: "otp", OPERATOR_B_BF: "approval" });
  const otp = operatorInstruction("OPERATOR_A_BF", "15000");
  assertMatch(otp.fr, /^Composez le code reçu par SMS/);
  assertMatch(otp.en, /^Enter the code received by SMS/);
  assert(otp.fr.includes("15\u202f000 XOF"), otp.fr);
  assert(otp.en.includes("15,000 XOF"), otp.en);
  const approval = operatorInstruction("OPERATOR_B_BF", "2500000");
  assertMatch(approval.fr, /^Validez la demande sur votre téléphone/);
  assertMatch(approval.en, /^Approve the request on your phone/);
  assert(approval.fr.includes("2\u202f500\u202f000 XOF"), approval.fr);
  assert(approval.en.includes("2,500,000 XOF"), approval.en);
  assertEquals(formatXof("100", "en"), "100");
  assertEquals(formatXof("1000", "fr"), "1\u202f000");
  assertEquals(formatXof("not a number", "en"), "not a number");
});
