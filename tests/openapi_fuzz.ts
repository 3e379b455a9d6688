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
  const s = firstBranch(doc, schema);
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

/**
 * A schema that is one of several (one body per rail, kind, currency) as its first branch with what the
 * branches share: the schema validBody builds a value of. Any other schema as it is.
 */
export function firstBranch(doc: Json, schema: Json): Json {
  const s = resolve(doc, schema);
  const branches = s.oneOf ?? s.anyOf;
  if (!branches || typeOf(doc, resolve(doc, branches[0])) === "null") return s;
  const { oneOf: _o, anyOf: _a, ...rest } = s;
  return firstBranch(doc, mergeObjects(doc, [rest, branches[0]]));
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

// ---- Schema-valid cases: requests the document says an operation accepts (tests/contract/prism_run.ts).

const METHODS = ["get", "post", "put", "patch", "delete"];

export type Operation = { method: string; path: string; op: Json; label: string };

export function operationsOf(doc: Json): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, Json]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      method: method.toUpperCase(),
      path,
      op: { ...item[method], parameters: [...(item.parameters ?? []), ...(item[method].parameters ?? [])] },
      label: `${method.toUpperCase()} ${path}`,
    }))
  );
}

/** A string matching `pattern` (the small regex subset schemas use: classes, groups, alternation, counts). */
export function sampleOfPattern(pattern: string, pick = 0): string | undefined {
  let i = 0;
  const atom = (): () => string => {
    const c = pattern[i++];
    if (c === "(") {
      // A lookaround matches no characters: skip it (the final test below still holds the sample to it).
      const look = /^\?<?[=!]/.exec(pattern.slice(i));
      if (look) {
        for (let depth = 1; depth > 0 && i < pattern.length; i++) {
          if (pattern[i] === "\\") i++;
          else if (pattern[i] === "(") depth++;
          else if (pattern[i] === ")") depth--;
        }
        return () => "";
      }
      if (pattern.startsWith("?:", i)) i += 2;
      const branches: Array<Array<() => string>> = [[]];
      while (i < pattern.length && pattern[i] !== ")") {
        if (pattern[i] === "|") (i++, branches.push([]));
        else branches.at(-1)!.push(quantified());
      }
      i++;
      const branch = branches[pick % branches.length];
      return () => branch.map((f) => f()).join("");
    }
    if (c === "[") {
      const negated = pattern[i] === "^" && ++i > 0;
      const chars: string[] = [];
      while (pattern[i] !== "]") {
        const from = pattern[i] === "\\" ? escapeSet(pattern[(i += 2) - 1]) : [pattern[i++]];
        if (pattern[i] === "-" && pattern[i + 1] !== "]") {
          const to = pattern[i + 1].charCodeAt(0);
          for (let k = from[0].charCodeAt(0); k <= to; k++) chars.push(String.fromCharCode(k));
          i += 2;
        } else chars.push(...from);
      }
      i++;
      const set = negated ? [..."abcxyz019"].filter((x) => !chars.includes(x)) : chars;
      return () => set[(pick + 1) % set.length];
    }
    if (c === "\\") {
      const set = escapeSet(pattern[i++]);
      return () => set[0];
    }
    if (c === ".") return () => "a";
    return () => c;
  };
  const quantified = (): () => string => {
    const f = atom();
    const q = /^(\?|\*|\+|\{(\d+)(,(\d*))?\})/.exec(pattern.slice(i));
    if (!q) return f;
    i += q[0].length;
    const min = q[1] === "+" ? 1 : q[2] ? Number(q[2]) : 0;
    const max = q[1] === "?" ? 1 : q[3] === undefined ? (q[2] ? min : min + 2) : Number(q[4] || min + 2);
    const n = Math.min(max, Math.max(min, min + (pick % 2)));
    return () => Array.from({ length: n }, f).join("");
  };
  const parts: Array<() => string> = [];
  if (pattern[0] === "^") i++;
  while (i < pattern.length && !(pattern[i] === "$" && i === pattern.length - 1)) parts.push(quantified());
  const out = parts.map((f) => f()).join("");
  return new RegExp(pattern).test(out) ? out : undefined;
}

function escapeSet(c: string): string[] {
  if (c === "d") return [..."7312"];
  if (c === "w") return [..."ab1_"];
  if (c === "s") return [" "];
  return [c];
}

const FORMATS: Record<string, () => string> = {
  uuid: () => crypto.randomUUID(),
  email: () => "buyer@example.com",
  uri: () => "https://shop.example.com/thanks",
  "date-time": () => new Date(Date.now() + 86_400_000).toISOString(),
  date: () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
};

function validString(s: Json, variant: number): string {
  const fits = (v: unknown) =>
    typeof v === "string" && v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity) &&
    (!s.pattern || new RegExp(s.pattern).test(v));
  const candidates = [
    s.example,
    ...(s.examples ?? []),
    s.format && FORMATS[s.format]?.(),
    s.pattern && sampleOfPattern(s.pattern, variant),
    "sample".padEnd(s.minLength ?? 0, "x").slice(0, s.maxLength ?? 6),
  ];
  return candidates.find(fits) ?? candidates.find((v) => typeof v === "string");
}

/**
 * A value `schema` accepts. Variant 0 is minimal (required fields only, empty arrays where allowed);
 * others fill every property and rotate through enums and oneOf/anyOf branches, so rails differ.
 */
export function validValue(doc: Json, schema: Json, variant = 0, depth = 0): Json {
  const s = resolve(doc, schema);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[variant % s.enum.length];
  const branches = s.oneOf ?? s.anyOf;
  if (branches) {
    const { oneOf: _o, anyOf: _a, ...rest } = s;
    const branch = resolve(doc, branches[variant % branches.length]);
    return validValue(doc, mergeObjects(doc, [rest, branch]), variant, depth);
  }
  if (s.allOf) {
    const { allOf, ...rest } = s;
    return validValue(doc, mergeObjects(doc, [rest, ...allOf]), variant, depth);
  }
  const type = typeOf(doc, s) ?? (s.properties ? "object" : "string");
  if (type === "string") return validString(s, variant);
  if (type === "integer" || type === "number") {
    if (typeof s.example === "number") return s.example;
    const low = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    return Math.min(Math.ceil(low), s.maximum ?? Infinity);
  }
  if (type === "boolean") return variant % 2 === 1;
  if (type === "null") return null;
  if (type === "array") {
    const n = Math.max(s.minItems ?? 0, variant === 0 || depth > 3 ? 0 : 1);
    return Array.from({ length: n }, (_, k) => validValue(doc, s.items, variant + k, depth + 1));
  }
  const props: Record<string, Json> = s.properties ?? {};
  const required: string[] = s.required ?? [];
  let keys = variant === 0 || depth > 3 ? required : Object.keys(props);
  // A minimal object still has as many properties as `minProperties` asks (optional ones added in order).
  if (keys.length < (s.minProperties ?? 0)) {
    keys = [...keys, ...Object.keys(props).filter((k) => !keys.includes(k))].slice(0, s.minProperties);
  }
  const out = Object.fromEntries(
    keys.filter((k) => props[k]).map((k) => [k, validValue(doc, props[k], variant, depth + 1)]),
  );
  if (variant > 0 && keys.length === 0 && s.additionalProperties && depth <= 3) out.note = "contract";
  return out;
}

/**
 * allOf (and a oneOf branch with its parent) as one object: properties and required merged. A branch
 * narrows a property (a `const`, `type: "null"`) or forbids it (`false`, as in "an IBAN or an account
 * number"); a branch that only restates a property's type keeps the schema the object gives it.
 */
function mergeObjects(doc: Json, schemas: Json[]): Json {
  const parts = schemas.map((x) => resolve(doc, x));
  if (!parts.some((p) => p.properties || p.type === "object")) return Object.assign({}, ...parts);
  const properties: Record<string, Json> = {};
  for (const [name, schema] of parts.flatMap((p) => Object.entries(propertiesOf(doc, p)))) {
    const restatesType = Object.keys(resolve(doc, schema) ?? {}).join() === "type" &&
      resolve(doc, schema).type !== "null";
    if (properties[name] === false) continue;
    if (schema === false || !properties[name] || !restatesType) properties[name] = schema;
  }
  for (const name of Object.keys(properties)) if (properties[name] === false) delete properties[name];
  // A branch that is itself a choice (the bank kind: an IBAN or an account number) is chosen next.
  const choice = parts.find((p) => p.oneOf || p.anyOf);
  return {
    ...(choice ? { oneOf: choice.oneOf ?? choice.anyOf } : {}),
    type: "object",
    properties,
    required: [...new Set(parts.flatMap((p) => p.required ?? []))],
    additionalProperties: parts.some((p) => p.additionalProperties !== false) || undefined,
  };
}

/** One request; path parameters keep their schema so the sender may put a real id in their place. */
export type ValidCase = {
  operation: string;
  method: string;
  path: string;
  pathParams: Record<string, { schema: Json; sample: string }>;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** `partType`: a multipart body's declared media type for its `file` part (its encoding). */
  body?: { contentType: string; value: Json; partType?: string };
};

/** Up to `perOperation` schema-valid requests for every operation of the document. */
export function validCases(doc: Json, perOperation = 3): ValidCase[] {
  return operationsOf(doc).flatMap(({ method, path, op, label }) => {
    const content = op.requestBody?.content ?? {};
    const mediaType = ["application/json", "text/csv", "multipart/form-data"].find((m) => content[m]) ??
      Object.keys(content)[0];
    const enumWidth = Math.max(
      1,
      ...Object.values(propertiesOf(doc, content[mediaType]?.schema)).map((p) =>
        resolve(doc, p).enum?.length ?? 1
      ),
    );
    const count = Math.min(perOperation, op.requestBody ? Math.max(2, enumWidth + 1) : 2);
    return Array.from({ length: count }, (_, variant) => {
      const params = (op.parameters ?? []).map((p: Json) => resolve(doc, p));
      const chosen = (where: string) =>
        params.filter((p: Json) => p.in === where && (p.required || variant > 0));
      const text = (p: Json) => String(validValue(doc, p.schema, variant));
      return {
        operation: label,
        method,
        path,
        pathParams: Object.fromEntries(
          chosen("path").map((p: Json) => [p.name, { schema: p.schema, sample: text(p) }]),
        ),
        query: Object.fromEntries(chosen("query").map((p: Json) => [p.name, text(p)])),
        headers: Object.fromEntries(chosen("header").map((p: Json) => [p.name, text(p)])),
        body: op.requestBody && (op.requestBody.required || variant > 0)
          ? {
            contentType: mediaType,
            value: validValue(doc, content[mediaType]?.schema, variant),
            partType: content[mediaType]?.encoding?.file?.contentType?.split(",")[0].trim(),
          }
          : undefined,
      };
    });
  });
}
