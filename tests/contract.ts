// Checks that what the server answers is what /v1/openapi.json says it answers: every response the API
// tests receive through the test helper, and every webhook body the gateway sends, is validated with a
// JSON Schema validator against the served document. An answer with a status the operation does not
// declare is a violation too.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";

// deno-lint-ignore no-explicit-any
const addFormats = addFormatsModule as any as (ajv: Ajv2020) => void;

// deno-lint-ignore no-explicit-any
type Doc = any;

export type Contract = {
  /** The problem with this answer, or null when the document describes it. Undocumented paths: null. */
  checkResponse(method: string, url: string, status: number, json: unknown): string | null;
  /** The problem with this JSON request body for the operation at `path` (a template), or null. */
  checkRequest(method: string, path: string, body: unknown): string | null;
  /** The problem with this webhook body, or null when it matches its `webhooks` entry. */
  checkEvent(body: unknown): string | null;
};

/** A JSON pointer into the document, escaped for use as a URI fragment. */
const pointer = (...parts: string[]) =>
  parts.map((p) => encodeURIComponent(p.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/");

function compileContract(doc: Doc): Contract {
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi");
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (ref: string) => {
    let fn = compiled.get(ref);
    if (!fn) {
      fn = ajv.compile({ $ref: `openapi#/${ref}` });
      compiled.set(ref, fn);
    }
    return fn;
  };
  const explain = (fn: ValidateFunction) =>
    (fn.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
  // Literal paths before templated ones, so /v1/webhooks/test never matches a {id} template.
  const templates = Object.keys(doc.paths).map((path) => ({
    path,
    params: (path.match(/\{/g) ?? []).length,
    regex: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
  })).sort((a, b) => a.params - b.params);

  return {
    checkResponse(method, url, status, json) {
      const path = new URL(url, "http://gateway.test").pathname;
      const template = templates.find((t) => t.regex.test(path));
      const operation = template && doc.paths[template.path][method.toLowerCase()];
      if (!operation) return null;
      const where = `${method.toUpperCase()} ${template.path} -> ${status}`;
      const key = String(status) in operation.responses
        ? String(status)
        : `${String(status)[0]}XX` in operation.responses
        ? `${String(status)[0]}XX`
        : "default" in operation.responses
        ? "default"
        : undefined;
      if (!key) return `${where}: status not declared by the document`;
      if (!operation.responses[key].content?.["application/json"]) return null;
      const at = ["paths", template.path, method.toLowerCase(), "responses", key, "content"];
      const fn = validatorAt(pointer(...at, "application/json", "schema"));
      return fn(json) ? null : `${where}: ${explain(fn)} in ${JSON.stringify(json).slice(0, 300)}`;
    },
    checkRequest(method, path, body) {
      const operation = doc.paths[path]?.[method.toLowerCase()];
      if (!operation?.requestBody?.content?.["application/json"]) {
        return `${method.toUpperCase()} ${path} takes no JSON body in the document`;
      }
      const at = [
        "paths",
        path,
        method.toLowerCase(),
        "requestBody",
        "content",
        "application/json",
        "schema",
      ];
      const fn = validatorAt(pointer(...at));
      return fn(body) ? null : `${method.toUpperCase()} ${path}: ${explain(fn)}`;
    },
    checkEvent(body) {
      const event = (body as { event?: unknown })?.event;
      if (typeof event !== "string" || !doc.webhooks?.[event]) {
        return `webhook event ${event} is not documented`;
      }
      const fn = validatorAt(
        pointer("webhooks", event, "post", "requestBody", "content", "application/json", "schema"),
      );
      return fn(body) ? null : `webhook ${event}: ${explain(fn)} in ${JSON.stringify(body).slice(0, 300)}`;
    },
  };
}

// One compiled validator per distinct document: every test gateway serves the same one.
const cache = new Map<string, Contract>();

export function contractFor(docText: string): Contract {
  let contract = cache.get(docText);
  if (!contract) {
    contract = compileContract(JSON.parse(docText));
    cache.set(docText, contract);
  }
  return contract;
}
