// The edge check's rules on their own: what counts as storable text, how a field is named, and the depth
// limit, including on a body nested far deeper than any recursion could walk.
import { assertEquals } from "../assert.ts";
import { isStorableText, MAX_JSON_DEPTH, unstorableFields } from "../../api/middleware/input_guard.ts";

Deno.test("storable text: a surrogate pair (emoji) is fine, a NUL or a lone surrogate is not", () => {
  assertEquals(
    ["Awa 😀 Ouédraogo", "a\u0000b", "\ud800", "x\udc00y", "\udc00\ud800"].map(isStorableText),
    [true, false, false, false, false],
  );
});

Deno.test("unstorable fields are named by their path, keys included, with the bad characters escaped", () => {
  const body = { amount: "10", metadata: { "bad\u0000key": "v", order: { lines: ["ok", "\ud800"] } } };
  assertEquals(unstorableFields(body).map((p) => p.field).sort(), [
    "metadata.bad\\u0000key",
    "metadata.order.lines.1",
  ]);
  assertEquals(unstorableFields({ amount: "10", metadata: { a: { b: "fine" } } }), []);
});

Deno.test("nesting deeper than the limit is refused without recursion, even 200,000 levels deep", () => {
  const nest = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels));
  assertEquals(unstorableFields(nest(MAX_JSON_DEPTH)), []);
  assertEquals(unstorableFields(nest(MAX_JSON_DEPTH + 1)).map((p) => p.reason), [
    `nested deeper than ${MAX_JSON_DEPTH} levels`,
  ]);
  assertEquals(unstorableFields(nest(200_000)).length, 1);
});
