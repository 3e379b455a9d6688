// README's walk-throughs, run as written: every ```sh block of README.md, in order, in ONE bash session
// (variables a block sets are there for the next, as in a reader's terminal), against a fresh development
// server started as `deno task start` starts it, from a directory whose ./data is that server's data.
// Conventions README follows so that it needs no help from here:
//   - a block captures the ids later blocks need (`PAYIN=$(curl ... | jq -r ...)`); waiting is a loop;
//   - `<!-- not run: why -->` on the line before a block skips it (a command that starts another server);
//   - `<!-- expect: CODE ... -->` names the refusals a block shows on purpose. Any other answer with
//     `"success":false` in a block's output fails the test, as does any failing command (`set -euo pipefail`).
// The only rewriting: `localhost:8000` becomes the test server's address (it listens on a free port).
import { startGateway } from "./process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
// A block may take this long; at 3 s devnet blocks (README_TEST_BLOCK_MS=3000) chain waits take minutes.
const BLOCK_TIMEOUT_MS = Deno.env.get("README_TEST_BLOCK_MS") ? 600_000 : 120_000;

export type ReadmeBlock = {
  heading: string;
  line: number;
  code: string;
  skip: string | null;
  expect: string[];
};

/** The ```sh blocks of a Markdown text, with the section they stand in and their markers. */
export function shellBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split("\n");
  const blocks: ReadmeBlock[] = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    if (/^#{1,4} /.test(lines[i])) heading = lines[i].replace(/^#+ /, "");
    if (lines[i].trim() !== "```sh") continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i].trim() !== "```"; i++) body.push(lines[i]);
    let before = start - 1;
    while (before >= 0 && lines[before].trim() === "") before--;
    const marker = before >= 0 ? lines[before].trim() : "";
    blocks.push({
      heading,
      line: start + 1,
      code: body.join("\n"),
      skip: marker.match(/^<!-- not run: (.*) -->$/)?.[1] ?? null,
      expect: marker.match(/^<!-- expect: (.*) -->$/)?.[1].split(/\s+/) ?? [],
    });
  }
  return blocks;
}

/** Codes of the `"success":false` answers in a block's output. */
function refusals(output: string): string[] {
  return [...output.matchAll(/"success":false,"error":\{"code":"([A-Z_]+)"/g)].map((m) => m[1]);
}

/** One bash that reads commands from a pipe; each block is sourced from a file with stdin closed. */
function startShell(cwd: string) {
  const shell = new Deno.Command("bash", {
    args: ["--noprofile", "--norc"],
    cwd,
    env: {
      // deno on the PATH, as after `npx -y deno@2.9.6` installs it; nothing of the runner's environment.
      PATH: `${Deno.execPath().replace(/\/[^/]+$/, "")}:${Deno.env.get("PATH") ?? ""}`,
      HOME: Deno.env.get("HOME") ?? "/tmp",
      NO_COLOR: "1",
    },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let output = "";
  const pumped = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of shell.stdout) output += decoder.decode(chunk, { stream: true });
  })();
  let exited = false;
  shell.status.then(() => exited = true);
  const writer = shell.stdin.getWriter();
  const send = (text: string) => writer.write(new TextEncoder().encode(text));
  return {
    send,
    output: () => output,
    exited: () => exited,
    async close() {
      // A block that timed out may still be looping: TERM lets the shell's trap end its background jobs.
      if (!exited) shell.kill("SIGTERM");
      await writer.close().catch(() => {});
      await shell.status;
      await pumped;
    },
  };
}

Deno.test({
  name: "README: every shell walk-through runs as written against a fresh development server",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const blocks = shellBlocks(await Deno.readTextFile(`${ROOT}README.md`));
    const work = await Deno.makeTempDir({ prefix: "gateway-readme-" });
    // Short blocks so confirmations and solidification take seconds; simulators answer quickly.
    const gw = await startGateway({
      DATA_DIR: `${work}/data`,
      DEVNET_BLOCK_MS: Deno.env.get("README_TEST_BLOCK_MS") ?? "200", // 3000 runs README at `deno task start`'s pace
      SIMULATOR_DELAY_MS: "300",
    });
    const shell = startShell(work);
    const timings: string[] = [];
    try {
      // stderr into the same stream, so a failure shows in order; background jobs end with the shell.
      await shell.send("set -euo pipefail\nexec 2>&1\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n");
      for (const [index, block] of blocks.entries()) {
        if (block.skip) continue;
        const file = `${work}/block-${index}.sh`;
        await Deno.writeTextFile(
          file,
          block.code.replaceAll("localhost:8000", gw.url.replace(/^http:\/\//, "")),
        );
        const sentinel = `__README_BLOCK_${index}_DONE__`;
        const from = shell.output().length;
        const started = Date.now();
        await shell.send(`source ${file} </dev/null\necho ${sentinel}\n`);
        while (
          !shell.output().includes(sentinel, from) && !shell.exited() &&
          Date.now() - started < BLOCK_TIMEOUT_MS
        ) {
          await new Promise((r) => setTimeout(r, 100));
        }
        const output = shell.output().slice(from).replace(`${sentinel}\n`, "");
        const where = `README.md line ${block.line} (${block.heading})`;
        const shown = `--- block ---\n${block.code}\n--- output ---\n${output}`;
        if (!shell.output().includes(sentinel, from)) {
          throw new Error(`${where}: ${shell.exited() ? "a command failed" : "timed out"}\n${shown}`);
        }
        const unexpected = refusals(output).filter((code) => !block.expect.includes(code));
        if (unexpected.length) throw new Error(`${where}: refused with ${unexpected.join(", ")}\n${shown}`);
        const missing = block.expect.filter((code) => !refusals(output).includes(code));
        if (missing.length) {
          throw new Error(`${where}: README says it answers ${missing.join(", ")}\n${shown}`);
        }
        if (Deno.env.get("README_TEST_SHOW")) console.log(`${where}\n${output}`);
        timings.push(`line ${block.line}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
      console.log(`README blocks run: ${timings.length} of ${blocks.length}; ${timings.join(", ")}`);
    } finally {
      await shell.close();
      await gw.stop();
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
});
