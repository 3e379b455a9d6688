// A readable API reference rendered on the server from the generated OpenAPI document. No CDN, no script.
import { renderToString } from "preact-render-to-string";

type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: unknown;
};
type OpenApiDoc = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
};

const METHOD_COLOURS: Record<string, string> = {
  get: "#1d6f42",
  post: "#1f4f99",
  patch: "#8a5a00",
  delete: "#9b1c1c",
  put: "#5b2a86",
};

function Endpoint(props: { method: string; path: string; op: Operation }) {
  const body = props.op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
  const schema = body?.content?.["application/json"]?.schema;
  return (
    <details class="op">
      <summary>
        <span class="method" style={`background:${METHOD_COLOURS[props.method] ?? "#444"}`}>
          {props.method.toUpperCase()}
        </span>
        <code>{props.path}</code> <span class="sum">{props.op.summary ?? ""}</span>
      </summary>
      {props.op.description && <p>{props.op.description}</p>}
      <p>{props.op.security ? "Authentication: API key (X-Api-Key or Authorization: Bearer)" : "Public"}</p>
      {schema && <pre>{JSON.stringify(schema, null, 2)}</pre>}
    </details>
  );
}

export function renderDocsPage(doc: OpenApiDoc): string {
  const byTag = new Map<string, Array<{ method: string; path: string; op: Operation }>>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0] ?? "Other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, op }]);
    }
  }
  const body = renderToString(
    <main>
      <h1>
        {doc.info.title} <small>v{doc.info.version}</small>
      </h1>
      <p>{doc.info.description}</p>
      <p>
        Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1)
      </p>
      {[...byTag.entries()].map(([tag, ops]) => (
        <section key={tag}>
          <h2>{tag}</h2>
          {ops.map((o) => <Endpoint key={`${o.method} ${o.path}`} {...o} />)}
        </section>
      ))}
    </main>,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${doc.info.title}</title><style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1a1a1a}
.op{border:1px solid #ddd;border-radius:6px;margin:.4rem 0;padding:.4rem .6rem}
.op summary{cursor:pointer}.method{color:#fff;border-radius:4px;padding:0 .4rem;font-size:12px;font-weight:600;margin-right:.4rem}
.sum{color:#555}pre{background:#f6f6f6;padding:.6rem;overflow:auto;font-size:12px}code{word-break:break-all}
</style></head><body>${body}</body></html>`;
}
