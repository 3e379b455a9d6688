// What counts as "the same request" under one Idempotency-Key, and which answers become its outcome.
import { isKeptAnswer, requestFingerprint } from "../../domain/idempotency.ts";
import { assertEquals, assertNotEquals } from "../assert.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const fp = (body: Uint8Array<ArrayBuffer>, query = "", path = "/v1/payments", method = "POST") =>
  requestFingerprint(method, path, new URLSearchParams(query), body);

Deno.test("the fingerprint reads the body as canonical JSON", async () => {
  const a = await fp(bytes('{"amount":"10","metadata":{"x":1,"y":[1,2]}}'));
  assertEquals(await fp(bytes(' {\n "metadata": {"y": [1, 2], "x": 1},\n "amount": "10" }\t')), a);
  assertNotEquals(await fp(bytes('{"amount":"11","metadata":{"x":1,"y":[1,2]}}')), a);
  // Array order is meaning, not formatting.
  assertNotEquals(await fp(bytes('{"amount":"10","metadata":{"x":1,"y":[2,1]}}')), a);
  // "__proto__" is an ordinary key in JSON and must count.
  assertNotEquals(await fp(bytes('{"__proto__":{"a":1}}')), await fp(bytes("{}")));
});

Deno.test("the fingerprint covers method, path and query string, not the order of parameters", async () => {
  const body = bytes('{"amount":"10"}');
  const base = await fp(body, "sandbox=true&tag=a");
  assertEquals(await fp(body, "tag=a&sandbox=true"), base);
  assertNotEquals(await fp(body, "sandbox=true"), base);
  assertNotEquals(await fp(body, "sandbox=true&tag=b"), base);
  assertNotEquals(await fp(body, "sandbox=true&tag=a", "/v1/card-payments"), base);
  assertNotEquals(await fp(body, "sandbox=true&tag=a", "/v1/payments", "PUT"), base);
});

Deno.test("a body that is not JSON counts by its bytes, whatever they are", async () => {
  assertEquals(await fp(bytes("amount=10")), await fp(bytes("amount=10")));
  assertNotEquals(await fp(bytes("amount=10")), await fp(bytes("amount=10 ")));
  // Two invalid UTF-8 bodies that a lenient decoder would both turn into U+FFFD.
  assertNotEquals(await fp(new Uint8Array([0xff])), await fp(new Uint8Array([0xfe])));
  // Lone surrogates and NUL inside JSON strings stay distinct.
  assertNotEquals(await fp(bytes('{"a":"\\ud800"}')), await fp(bytes('{"a":"\\ud801"}')));
  assertNotEquals(await fp(bytes('{"a":"\\u0000"}')), await fp(bytes('{"a":""}')));
  // JSON nested too deep to re-serialise falls back to bytes rather than failing the request.
  const deep = bytes("[".repeat(200_000) + "]".repeat(200_000));
  assertEquals(typeof await fp(deep), "string");
});

Deno.test("answers kept as the key's outcome, and refusals that leave the key free", () => {
  const refusal = (code: string, status: number) =>
    JSON.stringify({ success: false, error: { code, message: "m" }, statusCode: status });
  const kept = (status: number, body: string) => isKeptAnswer(status, body);
  assertEquals(kept(201, '{"success":true}'), true);
  assertEquals(kept(409, refusal("DUPLICATE_EXTERNAL_REF", 409)), true);
  assertEquals(kept(400, refusal("INSUFFICIENT_BALANCE", 400)), true);
  for (
    const [status, code] of [
      [400, "VALIDATION_ERROR"],
      [400, "BAD_REQUEST"],
      [400, "SANDBOX_KEY_LIVE_REQUEST"],
      [400, "LIVE_KEY_SANDBOX_REQUEST"],
      [401, "UNAUTHORIZED"],
      [403, "FORBIDDEN"],
      [429, "RATE_LIMIT_EXCEEDED"],
      [409, "CONFLICT"],
      [500, "INTERNAL_ERROR"],
      [503, "SERVICE_UNAVAILABLE"],
    ] as const
  ) {
    assertEquals(kept(status, refusal(code, status)), false, code);
  }
  assertEquals(kept(413, "Payload Too Large"), false);
});
