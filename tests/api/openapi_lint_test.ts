// The served OpenAPI document passes Redocly's linter with its recommended rules: no error, no warning
// (but the listed name-only ambiguities of the templates path). Runs the pinned CLI through npx; skipped
// (saying so) only where npx is not installed.
import { assert } from "../assert.ts";
import { withGateway } from "../helpers.ts";

const REDOCLY = "@redocly/cli@2.77.0";

async function hasNpx(): Promise<boolean> {
  try {
    await new Deno.Command("npx", { args: ["--version"], stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}

/**
 * The one accepted warning: the specification's `DELETE /v1/paylinks/templates/{id}` is "ambiguous" with
 * the `/v1/paylinks/{id}/...` paths by name only (a template id is `tpl_...`, never `cover-image` or
 * `orders`; a paylink id is `plk_...`, never `templates`). Each pair is listed, so any other ambiguity
 * still fails.
 */
const AMBIGUOUS_WITH_TEMPLATES = [
  "{id}/save-as-template",
  "{id}/products",
  "{id}/promo-codes",
  "{id}/cover-image",
  "{slug}/rate-lock",
  "{id}/orders",
  "{id}/stats",
].map((tail) => `    - '#/paths/~1v1~1paylinks~1${tail.replaceAll("/", "~1")}'`);
const LINT_IGNORE = `openapi.json:\n  no-ambiguous-paths:\n${AMBIGUOUS_WITH_TEMPLATES.join("\n")}\n`;

const npx = await hasNpx();
if (!npx) console.warn(`npx is not installed: the ${REDOCLY} lint of /v1/openapi.json is skipped`);

Deno.test({
  name: `/v1/openapi.json passes \`${REDOCLY} lint\` (recommended rules) with no error or warning`,
  ignore: !npx,
  fn: withGateway(async (gw) => {
    const dir = await Deno.makeTempDir({ prefix: "openapi_lint_" });
    try {
      const file = `${dir}/openapi.json`;
      await Deno.writeTextFile(file, (await gw.request("GET", "/v1/openapi.json")).text);
      await Deno.writeTextFile(`${dir}/.redocly.lint-ignore.yaml`, LINT_IGNORE);
      const out = await new Deno.Command("npx", {
        args: ["-y", REDOCLY, "lint", "--format=stylish", file],
        cwd: dir,
        env: { NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      }).output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert(out.success, `redocly lint failed:\n${text}`);
      assert(text.includes("Your API description is valid"), text);
      assert(!/You have \d+ warnings?/.test(text), `redocly lint warned:\n${text}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }),
});
