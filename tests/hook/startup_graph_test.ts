/**
 * Guards the hook's start-up cost. The hook runs at every stop, so what a
 * stop loads must stay small: `main.ts` and the bundle of the hook's modules
 * (`src/hook/stop_hook.ts`, Codex's `codex-stop` included), and nothing else, not even through the
 * bundle's lazily loaded parts; on the hook's path no `node:` module (each
 * starts Deno's Node compatibility layer, about 25 ms of CPU; use
 * `src/shared/paths.ts`) and no npm package (load those with `import()` in
 * the command or branch that needs them).
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { BUNDLE_PATH, bundleSources } from "../../.github/scripts/bundle.ts";
import { tempProject } from "../support/temp_project.ts";
import { moduleGraph, relativeTo } from "../support/module_graph.ts";

const ROOT = new URL("../../", import.meta.url).href;

Deno.test("a stop loads main.ts and the hook's bundle, and nothing else", async () => {
  const graph = await moduleGraph(`${ROOT}main.ts`, { dynamic: true });
  assert.deepEqual(relativeTo(ROOT, graph.keys()), ["main.ts", BUNDLE_PATH]);
});

Deno.test("the bundle imports nothing, not even lazily", async () => {
  const graph = await moduleGraph(`${ROOT}${BUNDLE_PATH}`, { dynamic: true });
  assert.deepEqual(relativeTo(ROOT, graph.keys()), [BUNDLE_PATH]);
  // A computed specifier (`import(new URL(...))`) is invisible to deno info:
  // inside the bundle it would load a second copy of a source module.
  const code = Deno.readTextFileSync(new URL(BUNDLE_PATH, ROOT));
  assert.deepEqual(code.match(/\bimport\((?!["'])[^)]*\)/g) ?? [], []);
});

Deno.test("the hook's sources load no node: modules and no npm packages, even lazily", async () => {
  const graph = await moduleGraph(`${ROOT}src/hook/stop_hook.ts`, {
    dynamic: true,
  });
  const heavy = [...graph].filter(([specifier]) =>
    specifier.startsWith("node:") || specifier.startsWith("npm:")
  ).map(([specifier, from]) =>
    `${specifier} (imported by ${relativeTo(ROOT, [from])[0]})`
  );
  assert.deepEqual(
    heavy,
    [],
    "the hook's import graph must stay free of node: and npm: modules",
  );
  assert.ok(graph.size > 30, "the graph was walked");
});

Deno.test("every lazy import on the hook's path says when it loads", async () => {
  // The boundaries that keep a healthy stop small are named where they are
  // drawn: `// Loaded lazily: only <when>` right above the import().
  const unnamed: string[] = [];
  let seen = 0;
  for (const file of await bundleSources()) {
    if (!file.startsWith("src/")) continue;
    const lines = Deno.readTextFileSync(new URL(file, ROOT)).split("\n");
    lines.forEach((line, i) => {
      if (!/\bimport\(/.test(line) || /^\s*(\*|\/\/)/.test(line)) return;
      seen++;
      const above = lines.slice(Math.max(0, i - 3), i).join("\n");
      if (!/\/\/ Loaded lazily: only /.test(above)) {
        unnamed.push(`${file}:${i + 1}`);
      }
    });
  }
  assert.deepEqual(unnamed, []);
  assert.ok(seen >= 6, `${seen} lazy imports found`);
});

Deno.test("a Codex stop (codex-stop) runs from the same bundle: it reads no module of the checkout, so it loads none besides main.ts and the bundle", async () => {
  // main.ts and the bundle are the entry's graph, loaded without read
  // access; the CLI and every source module are computed imports, which
  // need it. With read access to the rollout alone, a stop that went
  // through the CLI would fail on reading src/cli.ts.
  await using project = await tempProject();
  const fixtures = fileURLToPath(new URL("fixtures/codex/", ROOT));
  const name = "codex_call_then_empty_reply";
  const [{ payload }] = JSON.parse(
    await Deno.readTextFile(`${fixtures}${name}.stops.json`),
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      `--allow-read=${fixtures},${project.dir}`,
      "--allow-write=.codex",
      "--allow-env",
      "--no-prompt",
      fileURLToPath(new URL("main.ts", ROOT)),
      "codex-stop",
    ],
    cwd: project.dir,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { STALL_WATCH_LAG_WAIT_MS: "0" },
  }).spawn();
  const writer = out.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(
      JSON.stringify({
        ...payload,
        transcript_path: `${fixtures}${name}.jsonl`,
        cwd: project.dir,
      }),
    ),
  );
  await writer.close();
  const { code, stderr } = await out.output();
  const text = new TextDecoder().decode(stderr);
  assert.equal(code, 2, text);
  assert.match(text, /^stall_watch: 1 missing follow-up in /);
});
