// Keeps the typed client walk-throughs honest (issue 19: README's walk-throughs run through a client
// generated from /v1/openapi.json "without a cast or a hand-written type"). Parsed with the TypeScript
// compiler, the walk-through tests and their harness may hold no `as` (not even `as const`), no `<T>x`
// assertion, no `x!`, no `any`, no `satisfies`, no interface or type alias of their own shape, and no
// comment switching the checker or the linter off. The test files may not even write an object type
// (`{ id: string }`): every shape they read comes from the generated `paths`.
import ts from "typescript";
import { assertEquals } from "../assert.ts";

const TESTS = new URL("../api/", import.meta.url);
const HARNESS = new URL("../typed_client.ts", import.meta.url);

/** The problems in one source file, as "line: what". */
export function dishonesty(fileName: string, source: string, { objectTypes = false } = {}): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: ${what}`);
  const hasObjectType = (node: ts.Node): boolean =>
    ts.isTypeLiteralNode(node) || ts.isMappedTypeNode(node) || ts.forEachChild(node, hasObjectType) === true;
  const visit = (node: ts.Node) => {
    if (ts.isAsExpression(node)) at(node, "an `as` cast");
    else if (ts.isTypeAssertionExpression(node)) at(node, "a `<T>` cast");
    else if (ts.isNonNullExpression(node)) at(node, "a `!` non-null assertion");
    else if (ts.isSatisfiesExpression(node)) at(node, "a `satisfies` type");
    else if (node.kind === ts.SyntaxKind.AnyKeyword) at(node, "`any`");
    else if (ts.isInterfaceDeclaration(node)) at(node, "a hand-written interface");
    else if (ts.isTypeAliasDeclaration(node) && hasObjectType(node.type)) at(node, "a hand-written type");
    else if (!objectTypes && (ts.isTypeLiteralNode(node) || ts.isMappedTypeNode(node))) {
      at(node, "a hand-written object type");
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  source.split("\n").forEach((line, i) => {
    if (/@ts-(ignore|expect-error|nocheck)|deno-lint-ignore|eslint-disable/.test(line)) {
      found.push(`${i + 1}: a comment that switches a check off`);
    }
  });
  return found;
}

Deno.test("the typed client walk-throughs hold no cast, no any and no hand-written type", async () => {
  const problems: string[] = [];
  const files: string[] = [];
  for await (const entry of Deno.readDir(TESTS)) {
    if (/^typed_client_.*_test\.ts$/.test(entry.name)) files.push(entry.name);
  }
  assertEquals(files.length >= 6, true, `the walk-through files: ${files.join(", ")}`);
  for (const name of files.sort()) {
    const source = await Deno.readTextFile(new URL(name, TESTS));
    problems.push(...dishonesty(name, source).map((p) => `tests/api/${name}:${p}`));
    if (!source.includes('from "../typed_client.ts"')) problems.push(`tests/api/${name}: not on the harness`);
  }
  // The harness may type its own helpers' parameters (`ok(result: { data?: D; ... })`), nothing else.
  const harness = await Deno.readTextFile(HARNESS);
  problems.push(
    ...dishonesty("typed_client.ts", harness, { objectTypes: true }).map((p) => `tests/typed_client.ts:${p}`),
  );
  assertEquals(problems, []);
});

Deno.test("the honesty check finds what it forbids", () => {
  const bad = [
    "const a = x as Foo;",
    "const b = <Foo>x;",
    "const c = x!.y;",
    "let d: any;",
    "const e = x satisfies Foo;",
    "interface F { id: string }",
    "type G = { id: string };",
    "const h: { id: string } = x;",
    "// @ts-ignore",
    "const i = [1] as const;",
  ];
  for (const line of bad) assertEquals(dishonesty("bad.ts", line).length > 0, true, line);
  const fine =
    'const a = ok(await w.live.GET("/v1/payments/{id}", { params: { path: { id } } }), 200); // as is';
  assertEquals(dishonesty("fine.ts", fine), []);
  assertEquals(dishonesty("fine.ts", "type W = Awaited<ReturnType<typeof start>>;"), []);
});
