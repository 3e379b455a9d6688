// A readable API reference rendered on the server from the generated OpenAPI document. No CDN, no script.
// Schemas are shown as field tables with `$ref`s resolved, each body with an example built from the
// schema's own examples, each operation with the credentials it takes, and the error catalogue at the end.
import { renderToString } from "preact-render-to-string";
import { ERROR_CATALOGUE } from "../domain/errors.ts";

// deno-lint-ignore no-explicit-any
type Schema = Record<string, any>;
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
};
type OpenApiDoc = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
};

const METHOD_COLOURS: Record<string, string> = {
  get: "#1d6f42",
  post: "#1f4f99",
  patch: "#8a5a00",
  delete: "#9b1c1c",
  put: "#5b2a86",
};

/** How each security scheme is presented: the operator token is not an API key. */
const CREDENTIALS: Record<string, string> = {
  ApiKey: "API key: X-Api-Key: <key>",
  Bearer: "API key: Authorization: Bearer <key>",
  OperatorToken: "Operator token: Authorization: Bearer $ADMIN_TOKEN (not an API key)",
};

function resolve(doc: OpenApiDoc, schema: Schema | undefined): Schema {
  if (!schema) return {};
  const ref = schema.$ref as string | undefined;
  return ref ? resolve(doc, doc.components?.schemas?.[ref.split("/").pop()!]) : schema;
}

function typeLabel(doc: OpenApiDoc, raw: Schema | undefined): string {
  const s = resolve(doc, raw);
  const name = raw?.$ref ? ` (${String(raw.$ref).split("/").pop()})` : "";
  if (s.enum) return `one of ${s.enum.map((v: unknown) => JSON.stringify(v)).join(", ")}`;
  if (s.const !== undefined) return JSON.stringify(s.const);
  const variants = s.oneOf ?? s.anyOf;
  if (variants) {
    return `${s.oneOf ? "one" : "any"} of ${variants.map((v: Schema) => typeLabel(doc, v)).join(" | ")}`;
  }
  const type = Array.isArray(s.type) ? s.type.join(" or ") : s.type ?? "any";
  if (type === "array") return `array of ${typeLabel(doc, s.items)}`;
  return `${type}${s.format ? ` (${s.format})` : ""}${name}`;
}

/** An example value for a schema: its own example, else one built from its fields. */
export function exampleOf(doc: OpenApiDoc, raw: Schema | undefined, depth = 0): unknown {
  const s = resolve(doc, raw);
  if (s.example !== undefined) return s.example;
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  if (depth > 5) return null;
  const variant = (s.oneOf ?? s.anyOf)?.[0];
  if (variant) return exampleOf(doc, variant, depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  if (type === "array") return [exampleOf(doc, s.items, depth + 1)];
  if (type === "object" || s.properties) {
    return Object.fromEntries(
      Object.entries((s.properties ?? {}) as Record<string, Schema>).map((
        [k, v],
      ) => [k, exampleOf(doc, v, depth + 1)]),
    );
  }
  return { string: "string", integer: 0, number: 0, boolean: true }[type as string] ?? null;
}

function Fields(props: { doc: OpenApiDoc; schema?: Schema; depth?: number }) {
  const depth = props.depth ?? 0;
  const s = resolve(props.doc, props.schema);
  const variants: Schema[] | undefined = s.oneOf ?? s.anyOf;
  if (variants && depth < 4) {
    return (
      <ul class="variants">
        {variants.map((v, i) => (
          <li key={i}>
            <b>{typeLabel(props.doc, v)}</b>
            <Fields doc={props.doc} schema={v} depth={depth + 1} />
          </li>
        ))}
      </ul>
    );
  }
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  if (Object.keys(properties).length === 0 || depth > 4) return null;
  const required = new Set<string>(s.required ?? []);
  return (
    <table>
      {Object.entries(properties).map(([name, raw]) => {
        const field = resolve(props.doc, raw);
        const nested = field.properties || field.oneOf || field.anyOf ||
          resolve(props.doc, field.items).properties;
        return (
          <tr key={name}>
            <td>
              <code>{name}</code>
              {required.has(name) ? <span class="req">required</span> : null}
            </td>
            <td>
              {typeLabel(props.doc, raw)}
              {field.description ? <div class="desc">{field.description}</div> : null}
              {nested
                ? <Fields doc={props.doc} schema={field.items ? field.items : raw} depth={depth + 1} />
                : null}
            </td>
          </tr>
        );
      })}
    </table>
  );
}

function Endpoint(props: { doc: OpenApiDoc; method: string; path: string; op: Operation }) {
  const { doc, op } = props;
  const body = op.requestBody?.content?.["application/json"]?.schema;
  const credentials = op.security?.length
    ? op.security.flatMap((s) => Object.keys(s)).map((k) => CREDENTIALS[k] ?? k)
    : ["Public: no credentials"];
  return (
    <details class="op">
      <summary>
        <span class="method" style={`background:${METHOD_COLOURS[props.method] ?? "#444"}`}>
          {props.method.toUpperCase()}
        </span>
        <code>{props.path}</code> <span class="sum">{op.summary ?? ""}</span>
      </summary>
      {op.description && <p>{op.description}</p>}
      <p class="auth">Authentication: {credentials.join("; or ")}</p>
      {op.parameters?.length
        ? (
          <table>
            {op.parameters.map((p) => (
              <tr key={`${p.in}${p.name}`}>
                <td>
                  <code>{p.name}</code> <small>({p.in})</small>
                  {p.required ? <span class="req">required</span> : null}
                </td>
                <td>
                  {typeLabel(doc, p.schema)}
                  {p.description || p.schema?.description
                    ? <div class="desc">{p.description ?? p.schema?.description}</div>
                    : null}
                </td>
              </tr>
            ))}
          </table>
        )
        : null}
      {body && (
        <>
          <h4>Request body</h4>
          <Fields doc={doc} schema={body} />
          <h4>Example</h4>
          <pre>{JSON.stringify(exampleOf(doc, body), null, 2)}</pre>
        </>
      )}
      <h4>Responses</h4>
      <table>
        {Object.entries(op.responses ?? {}).map(([status, r]) => {
          const schema = r.content?.["application/json"]?.schema;
          const success = status.startsWith("2");
          return (
            <tr key={status}>
              <td>
                <b>{status}</b>
              </td>
              <td>
                {r.description}
                {success && schema ? <Fields doc={doc} schema={schema} /> : null}
                {success && schema ? <pre>{JSON.stringify(exampleOf(doc, schema), null, 2)}</pre> : null}
              </td>
            </tr>
          );
        })}
      </table>
    </details>
  );
}

function grouped(operations: Record<string, Record<string, Operation>>) {
  const byTag = new Map<string, Array<{ method: string; path: string; op: Operation }>>();
  for (const [path, methods] of Object.entries(operations)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0] ?? "Other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, op }]);
    }
  }
  return [...byTag.entries()];
}

export function renderDocsPage(doc: OpenApiDoc): string {
  const sections = [...grouped(doc.paths), ...grouped(doc.webhooks ?? {})];
  const body = renderToString(
    <main>
      <h1>
        {doc.info.title} <small>v{doc.info.version}</small>
      </h1>
      <p>{doc.info.description}</p>
      <p>
        Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1)
      </p>
      {sections.map(([tag, ops]) => (
        <section key={tag}>
          <h2>{tag}</h2>
          {ops.map((o) => <Endpoint key={`${o.method} ${o.path}`} doc={doc} {...o} />)}
        </section>
      ))}
      <section>
        <h2 id="errors">Error codes</h2>
        <p>
          Every error answers <code>{'{"success":false,"error":{"code","message"},"statusCode"}'}</code>.
        </p>
        <table>
          {Object.entries(ERROR_CATALOGUE).map(([code, [status, meaning]]) => (
            <tr key={code}>
              <td>
                <code>{code}</code>
              </td>
              <td>{status}</td>
              <td>{meaning}</td>
            </tr>
          ))}
        </table>
      </section>
    </main>,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${doc.info.title}</title><style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1a1a1a}
.op{border:1px solid #ddd;border-radius:6px;margin:.4rem 0;padding:.4rem .6rem}
.op summary{cursor:pointer}.method{color:#fff;border-radius:4px;padding:0 .4rem;font-size:12px;font-weight:600;margin-right:.4rem}
.sum{color:#555}pre{background:#f6f6f6;padding:.6rem;overflow:auto;font-size:12px}code{word-break:break-all}
table{border-collapse:collapse;width:100%;font-size:13px}td{border-top:1px solid #eee;padding:.2rem .4rem;vertical-align:top}
.req{color:#9b1c1c;font-size:11px;margin-left:.3rem}.desc{color:#555}.auth{font-size:13px}h4{margin:.6rem 0 .2rem}
</style></head><body>${body}</body></html>`;
}
