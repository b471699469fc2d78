/**
 * Guards the hook's start-up cost. The hook runs at every stop, so what a
 * stop loads must stay small: `main.ts` and the bundle of the hook's modules
 * (`src/hook/stop_hook.ts`), and nothing else, not even through the
 * bundle's lazily loaded parts; on the hook's path no `node:` module (each
 * starts Deno's Node compatibility layer, about 25 ms of CPU; use
 * `src/shared/paths.ts`) and no npm package (load those with `import()` in
 * the command or branch that needs them).
 */

import assert from "node:assert/strict";
import { BUNDLE_PATH, bundleSources } from "../../.github/scripts/bundle.ts";
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
