// Reading an OpenAPI document to build requests: resolve schemas, list the string fields of a body, build
// a body the operation accepts, and set one field to a hostile value. Used by tests/api/hostile_input_test.ts.

// deno-lint-ignore no-explicit-any
export type Json = any;

export function resolve(doc: Json, schema: Json): Json {
  return schema?.$ref ? resolve(doc, doc.components.schemas[schema.$ref.split("/").pop()]) : schema ?? {};
}

/** The properties of an object schema, merging anyOf/oneOf/allOf branches. */
export function propertiesOf(doc: Json, schema: Json): Record<string, Json> {
  const s = resolve(doc, schema);
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
  return Object.assign({}, ...branches.map((b: Json) => propertiesOf(doc, b)), s.properties ?? {});
}

export const typeOf = (doc: Json, schema: Json): string => {
  const t = resolve(doc, schema).type;
  return Array.isArray(t) ? t.find((x: string) => x !== "null") : t;
};

/** Dotted paths of every string in a body schema (and of a key and value inside free-form records). */
export function stringFields(doc: Json, schema: Json, prefix = "", depth = 0): string[] {
  const s = resolve(doc, schema);
  if (depth > 4) return [];
  if (typeOf(doc, s) === "string") return [prefix];
  if (typeOf(doc, s) === "array") return stringFields(doc, s.items, `${prefix}.0`, depth + 1);
  const props = propertiesOf(doc, s);
  const out = Object.entries(props).flatMap(([k, v]) =>
    stringFields(doc, v, prefix ? `${prefix}.${k}` : k, depth + 1)
  );
  if (
    s.additionalProperties !== undefined && s.additionalProperties !== false &&
    Object.keys(props).length === 0
  ) {
    out.push(`${prefix}.k`, `${prefix}.nested.deeper`); // a record such as metadata: values at any depth
  }
  return out;
}

/**
 * A body the operation accepts, so that a request naming a well-formed id reaches the lookup: the
 * required fields from their examples or first enum value; with none required, one optional non-text field.
 */
export function validBody(doc: Json, schema: Json): Json {
  const s = resolve(doc, schema);
  if (s.example !== undefined) return s.example;
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const type = typeOf(doc, s);
  if (type === "array") return s.minItems ? [validBody(doc, s.items)] : [];
  if (type !== "object") return { string: "x", integer: 1, number: 1, boolean: true }[type as "string"];
  const props = propertiesOf(doc, s);
  const required: string[] = s.required ?? [];
  const chosen = required.length > 0 ? required : Object.keys(props)
    .filter((k) => ["integer", "number", "boolean"].includes(typeOf(doc, props[k]))).slice(0, 1);
  return Object.fromEntries(chosen.map((k) => [k, validBody(doc, props[k])]));
}

/** `base` (a valid body) with the field at the dotted `path` set to `value`, so only that field is wrong. */
export function withField(base: Json, path: string, value: unknown): unknown {
  const root = structuredClone(base ?? {});
  const keys = path.split(".");
  let node = root;
  keys.slice(0, -1).forEach((key, i) => {
    if (node[key] === null || typeof node[key] !== "object") node[key] = /^\d+$/.test(keys[i + 1]) ? [] : {};
    node = node[key];
  });
  node[keys.at(-1)!] = value;
  return root;
}

/** The id prefix of a path parameter, from the pattern the document gives it. */
export const prefixOf = (param: Json) =>
  // `^pay_...`, or `^(pout|wdr)_...` for a parameter that takes either kind (the first is used).
  /^\^\(?([a-z]+)(?:\|[a-z|]+\))?_/.exec(param.schema?.pattern ?? "")?.[1];
