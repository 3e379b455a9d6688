// Assertions on node:assert (the @std/assert package lives on JSR, which this project cannot reach).
import nodeAssert from "node:assert/strict";

export function assert(value: unknown, message?: string): asserts value {
  nodeAssert.ok(value, message);
}
export function assertEquals<T>(actual: unknown, expected: T, message?: string): asserts actual is T {
  nodeAssert.deepStrictEqual(actual, expected, message);
}
export function assertNotEquals(actual: unknown, expected: unknown, message?: string): void {
  nodeAssert.notDeepStrictEqual(actual, expected, message);
}
export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  nodeAssert.match(actual, pattern, message);
}
export async function assertRejects(
  fn: () => Promise<unknown>,
  check?: (err: unknown) => boolean,
): Promise<void> {
  if (check) await nodeAssert.rejects(fn, (err: unknown) => check(err));
  else await nodeAssert.rejects(fn);
}
