// Canonical JSON: the same value always gives the same text, whatever spacing or key order it came in.
// Object keys are sorted by UTF-16 code units (what JavaScript's default sort does), arrays keep their
// order, and numbers and strings are written the way JSON.stringify writes them.

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    // defineProperty, not assignment: a "__proto__" key must stay an ordinary key.
    Object.defineProperty(sorted, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return sorted;
}
