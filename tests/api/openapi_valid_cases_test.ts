// The contract run (tests/contract/prism_run.ts) trusts the generated "valid" requests: a request the
// generator gets wrong would be blamed on the gateway. Here every generated JSON body, query and header
// is checked against the served document with ajv, and every pattern the document uses is sampled.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";
import { assert, assertEquals } from "../assert.ts";
import { startTestGateway } from "../helpers.ts";
import { type Json, operationsOf, sampleOfPattern, validCases } from "../openapi_fuzz.ts";

// deno-lint-ignore no-explicit-any
const addFormats = addFormatsModule as any as (ajv: Ajv2020) => void;

function patternsIn(node: Json, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => patternsIn(n, out));
  else if (node && typeof node === "object") {
    if (typeof node.pattern === "string") out.add(node.pattern);
    Object.values(node).forEach((n) => patternsIn(n, out));
  }
  return out;
}

Deno.test("generated valid cases: every operation, and every body, query and header on its schema", async () => {
  const gw = await startTestGateway();
  try {
    const doc = (await gw.request("GET", "/v1/openapi.json")).json;
    for (const pattern of patternsIn(doc)) {
      for (const pick of [0, 1]) {
        const sample = sampleOfPattern(pattern, pick);
        assert(sample !== undefined && new RegExp(pattern).test(sample), `no sample for ${pattern}`);
      }
    }
    assertEquals(sampleOfPattern("^(pout|wdr)_[0-9a-z]{3}$", 1)?.slice(0, 4), "wdr_");

    const cases = validCases(doc, 4);
    const operations = operationsOf(doc);
    assertEquals(new Set(cases.map((c) => c.operation)).size, operations.length);

    const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, "openapi");
    const problems: string[] = [];
    const compiled = new Map<string, ValidateFunction>();
    for (const c of cases) {
      const op = operations.find((o) => o.label === c.operation)!.op;
      const check = (what: string, schema: Json, value: unknown) => {
        const text = JSON.stringify(schema);
        const fn = compiled.get(text) ?? ajv.compile(schema);
        compiled.set(text, fn);
        if (!fn(value)) problems.push(`${c.operation} ${what}: ${ajv.errorsText(fn.errors)}`);
      };
      for (const p of op.parameters ?? []) {
        const given =
          { path: c.pathParams[p.name]?.sample, query: c.query[p.name], header: c.headers[p.name] }[
            p.in as "path"
          ];
        // On the wire every parameter is text: an integer parameter is checked as the number it spells.
        const typed = given !== undefined && ["integer", "number", "boolean"].includes(p.schema?.type)
          ? JSON.parse(given)
          : given;
        if (given !== undefined) check(`${p.in} ${p.name}`, refsInto(p.schema), typed);
        else assert(!p.required, `${c.operation}: required ${p.in} parameter ${p.name} missing`);
      }
      if (c.body?.contentType === "application/json") {
        check("body", refsInto(op.requestBody.content["application/json"].schema), c.body.value);
      }
    }
    assertEquals(problems, []);
  } finally {
    await gw.close();
  }
});

/** A schema of the document with its `#/components/...` references pointed into the registered document. */
function refsInto(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"openapi#/'));
}
